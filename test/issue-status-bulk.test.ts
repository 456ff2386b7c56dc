// One status for many issues at once (PATCH /api/issues), as Sentry's bulk Resolve and Ignore.
import { describe, it } from "vitest";
import { OWNER_LIMITS } from "../domain/limits";
import { call, createProjectKey } from "./helpers";
import { ingestOk, issueOf, issuesOf, ownerWithLogKey } from "./logHelpers";

type Json = Record<string, any>;

const setStatuses = (token: string | undefined, body: unknown) => call("/api/issues", { method: "PATCH", token, json: body });

describe("PATCH /api/issues", () => {
	it("sets one status on every issue named, in one request, and answers them as changed in the order named", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const first = await ingestOk(owner.rawKey, { message: "first", release: "web@1.0.0" });
		const second = await ingestOk(owner.rawKey, { message: "second", release: "web@1.1.0" });
		const untouched = await ingestOk(owner.rawKey, { message: "untouched" });
		const unknown = "f".repeat(32);

		const res = await setStatuses(owner.token, {
			project_name: owner.projectName,
			status: "resolved",
			// Upper case is the same hash; a hash named twice is changed once; one of no issue is left out.
			group_hashes: [second.group_hash.toUpperCase(), unknown, first.group_hash, second.group_hash],
		});
		expect(res.status).toBe(200);
		const { issues } = await res.json<Json>();
		expect(issues.map((i: Json) => [i.group_hash, i.status, i.resolved_in_release])).toEqual([
			[second.group_hash, "resolved", "web@1.1.0"],
			[first.group_hash, "resolved", "web@1.1.0"],
		]);
		expect((await issueOf(owner, first.group_hash)).status).toBe("resolved");
		expect((await issuesOf(owner, { status: "open" })).map((i) => i.group_hash)).toEqual([untouched.group_hash]);

		const reopened = await setStatuses(owner.token, { project_name: owner.projectName, status: "open", group_hashes: [first.group_hash, second.group_hash] });
		expect((await reopened.json<Json>()).issues.map((i: Json) => i.status)).toEqual(["open", "open"]);
		expect((await issuesOf(owner, { status: "open" })).length).toBe(3);
	});

	it("resolves every issue named in the next release, each after its own release; one seen in no release plainly", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const web = await ingestOk(owner.rawKey, { message: "web", release: "web@1.0.0" });
		const api = await ingestOk(owner.rawKey, { message: "api", release: "api@2.0.0" });
		const none = await ingestOk(owner.rawKey, { message: "none" });
		const res = await setStatuses(owner.token, {
			project_name: owner.projectName,
			status: "resolved",
			resolve_in_next_release: true,
			group_hashes: [web.group_hash, api.group_hash, none.group_hash],
		});
		expect(res.status).toBe(200);
		const { issues } = await res.json<Json>();
		expect(issues.map((i: Json) => [i.resolved_in_release, i.resolved_in_next_release])).toEqual([
			["web@1.0.0", true],
			["api@2.0.0", true],
			[null, undefined],
		]);
		await ingestOk(owner.rawKey, { message: "web", release: "web@1.0.0" });
		await ingestOk(owner.rawKey, { message: "api", release: "api@2.0.1" });
		expect((await issueOf(owner, web.group_hash)).status).toBe("resolved");
		expect((await issueOf(owner, api.group_hash)).status).toBe("open");
		const ignored = await setStatuses(owner.token, { project_name: owner.projectName, status: "ignored", resolve_in_next_release: true, group_hashes: [web.group_hash] });
		expect(ignored.status).toBe(400);
		// In a release named, each of them; one the project never sent changes none.
		const named = await setStatuses(owner.token, { project_name: owner.projectName, status: "resolved", resolve_in_release: "api@2.0.1", group_hashes: [api.group_hash, none.group_hash] });
		expect((await named.json<Json>()).issues.map((i: Json) => i.resolved_in_release)).toEqual(["api@2.0.1", "api@2.0.1"]);
		const unknown = await setStatuses(owner.token, { project_name: owner.projectName, status: "resolved", resolve_in_release: "web@9.0.0", group_hashes: [web.group_hash] });
		expect(unknown.status).toBe(400);
		expect((await issueOf(owner, web.group_hash)).status).toBe("resolved");
	});

	it(`takes 1 to ${OWNER_LIMITS.issueMutationHashes} hashes; refuses more, none, a malformed hash and an unknown status`, async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m" });
		const named = (n: number) => [group_hash, ...Array.from({ length: n - 1 }, (_, i) => i.toString(16).padStart(32, "0"))];
		const body = (changes: Json) => ({ project_name: owner.projectName, status: "ignored", group_hashes: [group_hash], ...changes });

		const atLimit = await setStatuses(owner.token, body({ group_hashes: named(OWNER_LIMITS.issueMutationHashes) }));
		expect(atLimit.status).toBe(200);
		expect((await atLimit.json<Json>()).issues.map((i: Json) => i.group_hash)).toEqual([group_hash]);

		const refusals: Json[] = [
			body({ group_hashes: named(OWNER_LIMITS.issueMutationHashes + 1) }),
			body({ group_hashes: [] }),
			body({ group_hashes: "not a list" }),
			body({ group_hashes: [group_hash.slice(1)] }),
			body({ group_hashes: [42] }),
			body({ status: "closed" }),
			body({ ignore_until_event: 10 }),
			body({ project_name: undefined }),
		];
		for (const refused of refusals) {
			const res = await setStatuses(owner.token, refused);
			expect(res.status, JSON.stringify(refused).slice(0, 80)).toBe(400);
			expect((await res.json<Json>()).error).toEqual(expect.any(String));
		}
		expect((await issueOf(owner, group_hash)).status).toBe("ignored");
	});

	it("changes only the project's own issues: another project's, or another owner's, are left as they were", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const other = await createProjectKey(owner.token);
		const own = await ingestOk(owner.rawKey, { message: "own" });
		const elsewhere = await ingestOk(other.rawKey, { message: "elsewhere" });
		const stranger = await ownerWithLogKey();

		const res = await setStatuses(owner.token, { project_name: owner.projectName, status: "resolved", group_hashes: [own.group_hash, elsewhere.group_hash] });
		expect((await res.json<Json>()).issues.map((i: Json) => i.group_hash)).toEqual([own.group_hash]);
		expect((await issueOf({ token: owner.token, projectName: other.projectName }, elsewhere.group_hash)).status).toBe("open");

		expect((await setStatuses(stranger.token, { project_name: owner.projectName, status: "resolved", group_hashes: [own.group_hash] })).status).toBe(404);
		expect((await setStatuses(undefined, { project_name: owner.projectName, status: "resolved", group_hashes: [own.group_hash] })).status).toBe(401);
	});
});
