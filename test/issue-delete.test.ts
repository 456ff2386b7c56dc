// Deleting an issue with every event of it (DELETE /api/issues/:group_hash), or many at once
// (DELETE /api/issues), as Sentry's delete: gone from the list, D1 and the key's object, and
// opened anew by the next event of its fingerprint.
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { OWNER_LIMITS } from "../domain/limits";
import { call, ownerWithKey } from "./helpers";
import { ingest, ingestOk, issueGrouper, issueOf, issuesOf, ownerWithLogKey, readIssue } from "./logHelpers";

type Project = { token: string; projectName: string };

const issuePath = (project: Project, groupHash: string) => `/api/issues/${groupHash}?${new URLSearchParams({ project_name: project.projectName })}`;
const deleteIssue = (project: Project, groupHash: string) => call(issuePath(project, groupHash), { method: "DELETE", token: project.token });

/** Rows of the key's issue in each D1 table that holds them. */
async function rowsInD1(keyId: string, groupHash: string) {
	const tables = ["log_issues", "log_events", "log_issue_environments", "log_issue_tags"];
	const counts = await env.DB.batch(tables.map((table) => env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE key_id = ? AND group_hash = ?`).bind(keyId, groupHash)));
	return Object.fromEntries(tables.map((table, i) => [table, (counts[i].results[0] as { n: number }).n]));
}

const crash = (user: string) => ({ message: "Checkout failed", level: "error", environment: "production", user: { id: user } });

describe("DELETE /api/issues/:group_hash", () => {
	it("deletes the issue and its events everywhere; the next event of its fingerprint opens it anew, counted from one", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const { group_hash } = await ingestOk(project.rawKey, crash("u1"));
		await ingestOk(project.rawKey, crash("u2"));
		const kept = await ingestOk(project.rawKey, { message: "Another bug" });
		expect(await issueOf(project, group_hash)).toMatchObject({ count: 2, users: 2 });
		// Its tags: level, environment and the two users.
		expect(await rowsInD1(project.keyId, group_hash)).toEqual({ log_issues: 1, log_events: 2, log_issue_environments: 1, log_issue_tags: 4 });

		const res = await deleteIssue(project, group_hash.toUpperCase());
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ deleted: 1, events: 2 });
		expect(await rowsInD1(project.keyId, group_hash)).toEqual({ log_issues: 0, log_events: 0, log_issue_environments: 0, log_issue_tags: 0 });
		expect((await issuesOf(project)).map((i) => i.group_hash)).toEqual([kept.group_hash]);
		expect((await readIssue(project.token, project.projectName, group_hash)).status).toBe(404);
		// The key's object forgot it too: its counters and who it affected.
		const held = await issueGrouper(project.keyId).setStatus([group_hash], "resolved");
		expect(held).toEqual([]);

		const again = await ingestOk(project.rawKey, crash("u1"));
		expect(again).toMatchObject({ group_hash, is_new: true });
		expect(await issueOf(project, group_hash)).toMatchObject({ count: 1, users: 1, status: "open" });
		expect(await rowsInD1(project.keyId, group_hash)).toEqual({ log_issues: 1, log_events: 1, log_issue_environments: 1, log_issue_tags: 3 });
		// The other issue is untouched.
		expect(await issueOf(project, kept.group_hash)).toMatchObject({ count: 1 });
	});

	it("the key's object drops the events it accepted and has not moved to D1 yet", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const { group_hash } = await ingestOk(project.rawKey, crash("u1"));
		expect(await rowsInD1(project.keyId, group_hash)).toMatchObject({ log_events: 0 });
		await issueOf(project, group_hash); // an owner read moves it to D1
		// Accepted into the key's object; the move to D1 waits for its alarm or an owner read.
		expect((await ingest(project.rawKey, crash("u2"))).status).toBe(200);
		expect((await ingest(project.rawKey, crash("u3"))).status).toBe(200);
		expect(await issueGrouper(project.keyId).deleteIssues(project.keyId, [group_hash])).toEqual({ issues: 1, events: 1 });
		await issueGrouper(project.keyId).flush();
		expect(await rowsInD1(project.keyId, group_hash)).toEqual({ log_issues: 0, log_events: 0, log_issue_environments: 0, log_issue_tags: 0 });
	});

	it("400 for a hash that is none or no project named; 404 for an unknown issue, a deleted one, another owner's; 401 signed out", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const { group_hash } = await ingestOk(project.rawKey, crash("u1"));
		const bad = await deleteIssue(project, "not-a-hash");
		expect(bad.status).toBe(400);
		expect((await bad.json<{ error: string }>()).error).toContain("32 hexadecimal characters");
		expect((await call(`/api/issues/${group_hash}`, { method: "DELETE", token: project.token })).status).toBe(400);
		const unknown = await deleteIssue(project, "f".repeat(32));
		expect(unknown.status).toBe(404);
		expect((await unknown.json<{ error: string }>()).error).toBe("No such issue in this project");
		const stranger = await ownerWithKey();
		expect((await deleteIssue({ token: stranger.token, projectName: project.projectName }, group_hash)).status).toBe(404);
		expect((await call(issuePath(project, group_hash), { method: "DELETE" })).status).toBe(401);
		// Nothing of it was deleted by those.
		expect(await rowsInD1(project.keyId, group_hash)).toMatchObject({ log_issues: 1, log_events: 1 });

		expect((await deleteIssue(project, group_hash)).status).toBe(200);
		expect((await deleteIssue(project, group_hash)).status).toBe(404);
	});
});

const deleteIssues = (token: string | undefined, body: unknown) => call("/api/issues", { method: "DELETE", token, json: body });

describe("DELETE /api/issues", () => {
	it("deletes every issue named with its events, those just accepted too; the others, and other projects', stay", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const first = await ingestOk(project.rawKey, crash("u1"));
		await ingestOk(project.rawKey, crash("u2"));
		const second = await ingestOk(project.rawKey, { message: "Second bug" });
		const kept = await ingestOk(project.rawKey, { message: "Kept bug" });
		const other = await ownerWithLogKey();
		const othersIssue = await ingestOk(other.rawKey, { message: "Second bug" });
		expect(othersIssue.group_hash).toBe(second.group_hash);
		// Accepted, not yet moved to D1: the delete moves it first, so it goes with its issue.
		expect((await ingest(project.rawKey, { message: "Second bug" })).status).toBe(200);

		const res = await deleteIssues(project.token, {
			project_name: project.projectName,
			// Upper case is the same hash; one named twice counts once; one of no issue counts for nothing.
			group_hashes: [first.group_hash.toUpperCase(), second.group_hash, first.group_hash, "f".repeat(32)],
		});
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ deleted: 2, events: 4 });
		expect((await issuesOf(project)).map((i) => i.group_hash)).toEqual([kept.group_hash]);
		for (const { group_hash } of [first, second]) {
			expect(await rowsInD1(project.keyId, group_hash)).toEqual({ log_issues: 0, log_events: 0, log_issue_environments: 0, log_issue_tags: 0 });
		}
		expect(await issuesOf(other)).toMatchObject([{ group_hash: othersIssue.group_hash, count: 1 }]);
		// Forgotten by the key's object too: each opens anew.
		expect(await ingestOk(project.rawKey, crash("u1"))).toMatchObject({ group_hash: first.group_hash, is_new: true });
		expect(await issueOf(project, first.group_hash)).toMatchObject({ count: 1, users: 1 });
	});

	it(`takes 1 to ${OWNER_LIMITS.issueMutationHashes} hashes; 400 for more, none, a malformed hash, no project; 404 for another owner's project; 401 signed out`, async ({ expect }) => {
		const project = await ownerWithLogKey();
		const { group_hash } = await ingestOk(project.rawKey, crash("u1"));
		const named = (n: number) => [group_hash, ...Array.from({ length: n - 1 }, (_, i) => i.toString(16).padStart(32, "0"))];
		const body = (changes: Record<string, unknown>) => ({ project_name: project.projectName, group_hashes: [group_hash], ...changes });

		for (const refused of [
			body({ group_hashes: named(OWNER_LIMITS.issueMutationHashes + 1) }),
			body({ group_hashes: [] }),
			body({ group_hashes: "not a list" }),
			body({ group_hashes: [group_hash.slice(1)] }),
			body({ group_hashes: [42] }),
			body({ project_name: undefined }),
			body({ group_hash: group_hash }),
		]) {
			const res = await deleteIssues(project.token, refused);
			expect(res.status, JSON.stringify(refused).slice(0, 80)).toBe(400);
			expect((await res.json<{ error: string }>()).error).toMatch(/group_hashes|project_name|unknown member group_hash/);
		}
		const stranger = await ownerWithKey();
		expect((await deleteIssues(stranger.token, body({}))).status).toBe(404);
		expect((await deleteIssues(undefined, body({}))).status).toBe(401);
		// Nothing of it was deleted by those.
		expect(await issuesOf(project)).toMatchObject([{ group_hash, count: 1 }]);

		const atLimit = await deleteIssues(project.token, body({ group_hashes: named(OWNER_LIMITS.issueMutationHashes) }));
		expect(atLimit.status).toBe(200);
		expect(await atLimit.json()).toEqual({ deleted: 1, events: 1 });
		expect(await issuesOf(project)).toEqual([]);
	});
});
