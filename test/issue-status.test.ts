// An issue's status as its owner sets it (PATCH /api/issues/:group_hash): resolved, ignored and
// open again, the release an issue is resolved in, and the events that reopen it (a regression).
import { describe, it } from "vitest";
import { OWNER_LIMITS } from "../domain/limits";
import { call } from "./helpers";
import { ingestOk, issueOf, issuesOf, ownerWithLogKey, setIssueStatus } from "./logHelpers";

type Json = Record<string, any>;

describe("PATCH /api/issues/:group_hash", () => {
	it("sets open, resolved and ignored; refuses other statuses", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m" });
		for (const status of ["resolved", "ignored", "open"]) {
			const res = await setIssueStatus(owner.token, owner.projectName, group_hash, status);
			expect(res.status).toBe(200);
			expect(await res.json<Json>()).toMatchObject({ group_hash, status });
			expect((await issueOf(owner, group_hash)).status).toBe(status);
		}
		for (const bad of ["closed", "", 5, null]) {
			expect((await setIssueStatus(owner.token, owner.projectName, group_hash, bad)).status).toBe(400);
		}
		expect((await setIssueStatus(owner.token, owner.projectName, "f".repeat(32), "resolved")).status).toBe(404);
		expect((await setIssueStatus(owner.token, "no-such-project", group_hash, "resolved")).status).toBe(404);
	});

	it("refuses a member it does not know, naming it, rather than ignore it for good", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m" });
		// Misspelt: taken without it, the issue would be ignored for ever instead of 30 minutes.
		const res = await call(`/api/issues/${group_hash}`, {
			method: "PATCH",
			token: owner.token,
			json: { project_name: owner.projectName, status: "ignored", ignore_for_minute: 30 },
		});
		expect(res.status).toBe(400);
		expect((await res.json<Json>()).error).toBe("Invalid request: unknown member ignore_for_minute");
		expect((await issueOf(owner, group_hash)).status).toBe("open");
	});

	it("says which member or parameter was left out, and a bound passed, in words, not zod's types and symbols", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m" });
		const noStatus = await call(`/api/issues/${group_hash}`, { method: "PATCH", token: owner.token, json: { project_name: owner.projectName } });
		expect(noStatus.status).toBe(400);
		expect((await noStatus.json<Json>()).error).toBe("Invalid request: status: is required");
		const noProject = await call(`/api/issues/${group_hash}`, { token: owner.token });
		expect(noProject.status).toBe(400);
		expect((await noProject.json<Json>()).error).toBe("Invalid request: project_name: is required");
		// A value of the wrong type keeps its own words.
		const numberStatus = await setIssueStatus(owner.token, owner.projectName, group_hash, 5);
		expect((await numberStatus.json<Json>()).error).not.toContain("is required");
		// A bound in words, at one past it on either side.
		const ignoreFor = async (minutes: number) => {
			const res = await call(`/api/issues/${group_hash}`, {
				method: "PATCH",
				token: owner.token,
				json: { project_name: owner.projectName, status: "ignored", ignore_for_minutes: minutes },
			});
			return { status: res.status, error: (await res.json<Json>()).error };
		};
		expect(await ignoreFor(0)).toEqual({ status: 400, error: "Invalid request: ignore_for_minutes: must be at least 1" });
		expect(await ignoreFor(OWNER_LIMITS.ignoreMinutesMax + 1)).toEqual({
			status: 400,
			error: `Invalid request: ignore_for_minutes: must be at most ${OWNER_LIMITS.ignoreMinutesMax}`,
		});
	});

	it("a new event on a resolved issue reopens it (a regression)", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m" });
		await setIssueStatus(owner.token, owner.projectName, group_hash, "resolved");
		expect((await ingestOk(owner.rawKey, { message: "m" })).is_new).toBe(false);
		expect((await issueOf(owner, group_hash)).status).toBe("open");
	});

	it("a regression keeps the release it was resolved in; reopening by hand clears it", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m", release: "2.0.0" });
		await setIssueStatus(owner.token, owner.projectName, group_hash, "resolved");
		await ingestOk(owner.rawKey, { message: "m", release: "2.1.0" });
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "open", resolved_in_release: "2.0.0" });
		expect((await issuesOf(owner))[0]).toMatchObject({ status: "open", resolved_in_release: "2.0.0" });

		await setIssueStatus(owner.token, owner.projectName, group_hash, "resolved");
		await setIssueStatus(owner.token, owner.projectName, group_hash, "open");
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "open", resolved_in_release: null });
	});

	it("an ignored issue stays ignored while events keep counting", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m" });
		await setIssueStatus(owner.token, owner.projectName, group_hash, "ignored");
		await ingestOk(owner.rawKey, { message: "m" });
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "ignored", count: 2 });
	});

	it("events from releases older than the one it was resolved in do not reopen it", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const event = (release: string) => ({ exception: { type: "E", value: "v" }, release });
		const { group_hash } = await ingestOk(owner.rawKey, event("1.2.0"));
		await ingestOk(owner.rawKey, event("1.10.0"));
		const resolved = await setIssueStatus(owner.token, owner.projectName, group_hash, "resolved").then((r) => r.json<Json>());
		// 1.10.0 is newer than 1.2.0 (compared as versions, not as text).
		expect(resolved).toMatchObject({ status: "resolved", resolved_in_release: "1.10.0" });

		await ingestOk(owner.rawKey, event("1.9.3"));
		await ingestOk(owner.rawKey, event("1.10.0-rc.1"));
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "resolved", count: 4 });

		await ingestOk(owner.rawKey, event("1.10.0"));
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "open", count: 5, resolved_in_release: "1.10.0" });
	});

	it("resolve_in_next_release: events of the release it was resolved in do not reopen it either; the next release's do", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const patch = (groupHash: string, body: Json) =>
			call(`/api/issues/${groupHash}`, { method: "PATCH", token: owner.token, json: { project_name: owner.projectName, ...body } });
		const event = (release?: string) => ({ exception: { type: "E", value: "v" }, ...(release && { release }) });
		const { group_hash } = await ingestOk(owner.rawKey, event("1.2.0"));
		const resolved = await patch(group_hash, { status: "resolved", resolve_in_next_release: true });
		expect(resolved.status).toBe(200);
		expect(await resolved.json<Json>()).toMatchObject({ status: "resolved", resolved_in_release: "1.2.0", resolved_in_next_release: true });
		expect((await issuesOf(owner, { status: "resolved" }))[0]).toMatchObject({ group_hash, resolved_in_next_release: true });

		await ingestOk(owner.rawKey, event("1.2.0"));
		await ingestOk(owner.rawKey, event("1.1.0"));
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "resolved", count: 3 });
		const detail = await issueOf(owner, group_hash);
		expect(detail.activity[0]).toMatchObject({ kind: "resolved", release: "1.2.0", in_next_release: true });
		await ingestOk(owner.rawKey, event("1.2.1"));
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "open", count: 4, resolved_in_release: "1.2.0" });

		// Resolved plainly again: the release's own events reopen it, and the flag is gone.
		const plain = await (await patch(group_hash, { status: "resolved" })).json<Json>();
		expect(plain).toMatchObject({ status: "resolved", resolved_in_release: "1.2.1" });
		expect(plain).not.toHaveProperty("resolved_in_next_release");
		await ingestOk(owner.rawKey, event("1.2.1"));
		expect((await issueOf(owner, group_hash)).status).toBe("open");

		// An issue seen in no release has no next one: resolved plainly, any event reopens it.
		const unreleased = await ingestOk(owner.rawKey, { message: "no release" });
		const none = await (await patch(unreleased.group_hash, { status: "resolved", resolve_in_next_release: true })).json<Json>();
		expect(none).toMatchObject({ status: "resolved", resolved_in_release: null });
		expect(none).not.toHaveProperty("resolved_in_next_release");

		for (const body of [
			{ status: "resolved", resolve_in_next_release: false },
			{ status: "resolved", resolve_in_next_release: "yes" },
			{ status: "ignored", resolve_in_next_release: true },
			{ status: "open", resolve_in_next_release: true },
		]) {
			const res = await patch(group_hash, body);
			expect(res.status, JSON.stringify(body)).toBe(400);
			expect((await res.json<Json>()).error).toMatch(/resolve_in_next_release|status/);
		}
	});

	it("resolve_in_release: resolved in a release the project sent (Sentry's another existing release): older releases' events do not reopen it, its own and newer do", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const patch = (groupHash: string, body: Json) =>
			call(`/api/issues/${groupHash}`, { method: "PATCH", token: owner.token, json: { project_name: owner.projectName, ...body } });
		const event = (release?: string) => ({ exception: { type: "E", value: "v" }, ...(release && { release }) });
		const { group_hash } = await ingestOk(owner.rawKey, event("1.2.0"));
		// Another issue sent the release the fix is in: the project has it, this issue never saw it.
		await ingestOk(owner.rawKey, { message: "elsewhere", release: "1.4.0" });
		const resolved = await patch(group_hash, { status: "resolved", resolve_in_release: "1.4.0" });
		expect(resolved.status).toBe(200);
		const body = await resolved.json<Json>();
		expect(body).toMatchObject({ status: "resolved", resolved_in_release: "1.4.0" });
		expect(body).not.toHaveProperty("resolved_in_next_release");
		expect((await issueOf(owner, group_hash)).activity[0]).toMatchObject({ kind: "resolved", release: "1.4.0" });

		// Clients still on 1.2.0 and 1.3.0 do not reopen it; 1.4.0 does, as any release the fix is in.
		await ingestOk(owner.rawKey, event("1.2.0"));
		await ingestOk(owner.rawKey, event("1.3.0"));
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "resolved", count: 3 });
		await ingestOk(owner.rawKey, event("1.4.0"));
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "open", count: 4, resolved_in_release: "1.4.0" });

		// A release the project never sent, and the shapes the member does not take: 400, the issue as it was.
		const unknown = await patch(group_hash, { status: "resolved", resolve_in_release: "9.9.9" });
		expect(unknown.status).toBe(400);
		expect((await unknown.json<Json>()).error).toBe("Invalid request: resolve_in_release: no event of this project came from that release");
		for (const [change, words] of [
			[{ status: "resolved", resolve_in_release: "" }, "resolve_in_release"],
			[{ status: "resolved", resolve_in_release: "x".repeat(501) }, "resolve_in_release"],
			[{ status: "resolved", resolve_in_release: 140 }, "resolve_in_release: must be text"],
			[{ status: "ignored", resolve_in_release: "1.4.0" }, "status: must be resolved when resolve_in_next_release or resolve_in_release is given"],
			[{ status: "resolved", resolve_in_release: "1.4.0", resolve_in_next_release: true }, "resolve_in_release: names the release the fix is in: leave out resolve_in_next_release"],
		] as const) {
			const res = await patch(group_hash, change);
			expect(res.status, JSON.stringify(change)).toBe(400);
			expect((await res.json<Json>()).error, JSON.stringify(change)).toContain(words);
		}
		expect((await issueOf(owner, group_hash)).status).toBe("open");
		// 500 characters is a release name the project can have sent.
		const long = "r".repeat(500);
		await ingestOk(owner.rawKey, { message: "long release", release: long });
		expect((await patch(group_hash, { status: "resolved", resolve_in_release: long })).status).toBe(200);
	});

	it("resolving records the newest final release of the issue's package, even one this issue never saw", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "old bug", release: "web@3.0.0" });
		await ingestOk(owner.rawKey, { message: "another bug", release: "web@3.1.0" });
		await setIssueStatus(owner.token, owner.projectName, group_hash, "resolved");
		await ingestOk(owner.rawKey, { message: "old bug", release: "web@3.0.0" });
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "resolved", resolved_in_release: "web@3.1.0" });
		await ingestOk(owner.rawKey, { message: "old bug", release: "web@3.2.0" });
		expect((await issueOf(owner, group_hash)).status).toBe("open");
	});

	it("another app's releases and prereleases in the project do not count: the bug recurring in its own release reopens it", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "gateway timeout", release: "shop@1.4.0" });
		await ingestOk(owner.rawKey, { message: "staging only", release: "shop@2.0.0-beta.1", environment: "staging" });
		await ingestOk(owner.rawKey, { message: "the web app", release: "web@9.0.0" });
		const resolved = await setIssueStatus(owner.token, owner.projectName, group_hash, "resolved").then((r) => r.json<Json>());
		expect(resolved).toMatchObject({ status: "resolved", resolved_in_release: "shop@1.4.0" });
		await ingestOk(owner.rawKey, { message: "gateway timeout", release: "shop@1.3.9" });
		expect((await issueOf(owner, group_hash)).status).toBe("resolved");
		await ingestOk(owner.rawKey, { message: "gateway timeout", release: "shop@1.4.0" });
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "open", resolved_in_release: "shop@1.4.0" });
	});

	it("an issue seen in no release is resolved in none: an event from any release reopens it", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m" });
		await ingestOk(owner.rawKey, { message: "other", release: "2.0.0" });
		const resolved = await setIssueStatus(owner.token, owner.projectName, group_hash, "resolved").then((r) => r.json<Json>());
		expect(resolved).toMatchObject({ status: "resolved", resolved_in_release: null });
		await ingestOk(owner.rawKey, { message: "m", release: "1.0.0" });
		expect((await issueOf(owner, group_hash)).status).toBe("open");
	});

	it("releases that are not versions are ordered by when the project first sent them", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const event = (release: string) => ({ message: "m", release });
		const { group_hash } = await ingestOk(owner.rawKey, event("a1b2c3d"));
		await ingestOk(owner.rawKey, event("f00ba47"));
		await setIssueStatus(owner.token, owner.projectName, group_hash, "resolved");
		await ingestOk(owner.rawKey, event("a1b2c3d"));
		expect((await issueOf(owner, group_hash)).status).toBe("resolved");
		await ingestOk(owner.rawKey, event("9e8d7c6"));
		expect((await issueOf(owner, group_hash)).status).toBe("open");
	});

	it("an event without a release reopens an issue resolved in a release", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m", release: "2.0.0" });
		await setIssueStatus(owner.token, owner.projectName, group_hash, "resolved");
		await ingestOk(owner.rawKey, { message: "m" });
		expect((await issueOf(owner, group_hash)).status).toBe("open");
	});
});
