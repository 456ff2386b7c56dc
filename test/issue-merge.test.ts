import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { OWNER_LIMITS } from "../domain/limits";
import { call } from "./helpers";
import { ingestOk, issueOf, issuesOf, ownerWithLogKey, seededHash } from "./logHelpers";
import { merge, mergeOk, threeIssues } from "./mergeHelpers";

type Json = Record<string, any>;


describe("merging issues (POST /api/issues/merge)", () => {
	it("makes them one issue, the one with the most events, with every event, figure and tag of theirs", async ({ expect }) => {
		const { project, alpha, beta, crash } = await threeIssues();
		const merged = await mergeOk(project, [beta, crash, alpha]);
		expect(merged).toMatchObject({ group_hash: alpha, title: "Alpha", count: 5, users: 3, unhandled: true });
		expect(merged.environments.sort()).toEqual(["production", "staging"]);
		expect(merged.releases).toEqual(["1.0.0"]);
		expect(Date.parse(merged.first_seen)).toBeLessThan(Date.now() - 39 * 60_000);
		expect(Date.parse(merged.last_seen)).toBeGreaterThan(Date.now() - 6 * 60_000);

		expect((await issuesOf(project)).map((issue) => issue.group_hash)).toEqual([alpha]);
		const detail = await issueOf(project, alpha);
		expect(detail.events.map((e: Json) => e.message ?? e.exception?.type)).toEqual(["TypeError", "Alpha", "Alpha", "Alpha", "Beta"]);
		expect(detail.hourly_counts.reduce((sum: number, hour: Json) => sum + hour.count, 0)).toBe(5);
		// Gone, and each says where: a link to one (a bookmark, an old alert) can go on to the merged issue.
		for (const gone of [beta, crash]) {
			const res = await call(`/api/issues/${gone}?project_name=${project.projectName}`, { token: project.token });
			expect(res.status).toBe(404);
			expect(await res.json()).toEqual({ error: `This issue was merged into ${alpha}`, merged_into: alpha });
		}
		// An issue never merged is not found, as before.
		expect(await (await call(`/api/issues/${seededHash(42)}?project_name=${project.projectName}`, { token: project.token })).json()).toEqual({ error: "No such issue in this project" });

		// Figures per environment: counts summed, users counted once.
		const production = await issuesOf(project, { environment: "production" });
		expect(production).toMatchObject([{ group_hash: alpha, count: 3, users: 3 }]);
		expect(await issuesOf(project, { environment: "staging" })).toMatchObject([{ group_hash: alpha, count: 2, users: 1 }]);
		// Tags summed, and searchable under the merged issue alone.
		const tags = await (await call(`/api/issues/${alpha}/tags?project_name=${project.projectName}`, { token: project.token })).json<Json>();
		expect(tags.events).toBe(5);
		expect(tags.tags.find((tag: Json) => tag.key === "route").values).toEqual([
			{ value: "/a", count: 2 },
			{ value: "/b", count: 1 },
		]);
		expect((await issuesOf(project, { q: "route:/b" })).map((issue) => issue.group_hash)).toEqual([alpha]);
		for (const table of ["log_issues", "log_issue_environments", "log_issue_tags", "log_events"]) {
			const { left } = (await env.DB.prepare(`SELECT count(*) AS left FROM ${table} WHERE key_id = ? AND group_hash IN (?, ?)`).bind(project.keyId, beta, crash).first<{ left: number }>())!;
			expect(left, table).toBe(0);
		}
	});

	it("sends the merged issues' later events to it, through merges of merges, until it is deleted", async ({ expect }) => {
		const { project, alpha, beta } = await threeIssues();
		await mergeOk(project, [alpha, beta]);
		expect(await ingestOk(project.rawKey, { message: "Beta", user: { id: "u9" } })).toMatchObject({ group_hash: alpha, is_new: false });
		expect(await issueOf(project, alpha)).toMatchObject({ count: 5, users: 4 });

		// Merged into an issue of more events, Alpha takes Beta's fingerprint with it.
		const send = (message: string) => ingestOk(project.rawKey, { message });
		const gamma = (await send("Gamma")).group_hash;
		for (let i = 0; i < 5; i++) await send("Gamma");
		expect(await mergeOk(project, [alpha, gamma])).toMatchObject({ group_hash: gamma, count: 11 });
		expect(await send("Beta")).toMatchObject({ group_hash: gamma, is_new: false });
		expect(await send("Alpha")).toMatchObject({ group_hash: gamma, is_new: false });

		// Deleted, the merged issue takes nothing more: each fingerprint opens its own issue again.
		const deleted = await call(`/api/issues/${gamma}?project_name=${project.projectName}`, { method: "DELETE", token: project.token });
		expect(deleted.status).toBe(200);
		expect(await send("Beta")).toMatchObject({ group_hash: beta, is_new: true });
		expect(await send("Alpha")).toMatchObject({ group_hash: alpha, is_new: true });
	});

	it("merged in the key's object while D1 refuses it, arrives in D1 whole once it works again", async ({ expect }) => {
		const { project, alpha, beta, crash } = await threeIssues();
		await issuesOf(project);
		await env.DB.prepare(
			`CREATE TRIGGER refuse_merge BEFORE UPDATE ON log_events WHEN NEW.key_id = '${project.keyId}' BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
		).run();
		expect(await mergeOk(project, [alpha, beta])).toMatchObject({ group_hash: alpha, count: 4 });
		const rows = () =>
			env.DB.prepare("SELECT group_hash, count(*) AS events FROM log_events WHERE key_id = ? GROUP BY 1 ORDER BY 1")
				.bind(project.keyId)
				.all<{ group_hash: string; events: number }>()
				.then((result) => Object.fromEntries(result.results.map((row) => [row.group_hash, row.events])));
		// The batch is one transaction: nothing of the merge in D1 yet, and the events sent meanwhile wait with it.
		expect((await rows())[beta]).toBe(1);
		await ingestOk(project.rawKey, { message: "Beta" });
		await env.DB.prepare("DROP TRIGGER refuse_merge").run();
		const merged = await issueOf(project, alpha);
		expect(merged.count).toBe(5);
		expect((await rows())[alpha]).toBe(5);
		expect((await rows())[beta]).toBeUndefined();
		expect((await issuesOf(project)).map((issue) => issue.group_hash).sort()).toEqual([alpha, crash].sort());
	});

	it("refuses fewer than two issues, more than the bulk limit, and issues of no project of the owner's", async ({ expect }) => {
		const { project, alpha, beta, crash } = await threeIssues();
		const other = await ownerWithLogKey();
		const theirs = (await ingestOk(other.rawKey, { message: "Theirs" })).group_hash;
		const statusOf = async (hashes: unknown, extra?: Json) => {
			const res = await merge(project, hashes, extra);
			return { status: res.status, error: res.status === 200 ? undefined : (await res.json<Json>()).error };
		};
		expect(await statusOf([alpha])).toEqual({ status: 400, error: "Invalid request: group_hashes: must name at least two different issues to merge" });
		expect((await statusOf([alpha, alpha.toUpperCase()])).status).toBe(400);
		expect((await statusOf([])).status).toBe(400);
		expect((await statusOf([alpha, "not-a-hash"])).status).toBe(400);
		expect((await statusOf([alpha, beta], { into: alpha })).status).toBe(400);
		const filler = (n: number) => Array.from({ length: n }, (_, i) => seededHash(i + 1));
		expect(await statusOf([alpha, ...filler(OWNER_LIMITS.issueMutationHashes)])).toMatchObject({ status: 400 });
		expect(await statusOf([alpha, theirs])).toEqual({ status: 404, error: "Fewer than two of these issues are in this project" });
		expect((await statusOf(filler(2))).status).toBe(404);
		// At the limit: hashes of no issue count for nothing, the two real ones merge.
		expect(await statusOf([alpha, crash, ...filler(OWNER_LIMITS.issueMutationHashes - 2)])).toEqual({ status: 200, error: undefined });
		expect((await issuesOf(project)).length).toBe(2);
		expect((await call("/api/issues/merge", { method: "POST", json: { project_name: project.projectName, group_hashes: [alpha, beta] } })).status).toBe(401);
		expect((await issueOf(other, theirs)).count).toBe(1);
	});
});
