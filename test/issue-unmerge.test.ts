// Sentry's unmerge: the fingerprints merged into an issue listed, and their events sent back to
// issues of their own, both sides counted again from their events (docs/api.md#unmerge-issues).
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { LOG_LIMITS, OWNER_LIMITS } from "../domain/limits";
import { call } from "./helpers";
import { ingestOk, issueGrouper, issueOf, issuesOf, raiseLogsLimit, seededHash } from "./logHelpers";
import { mergeOk, type Project, threeIssues } from "./mergeHelpers";

type Json = Record<string, any>;

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

function unmerge(project: Project, groupHash: string, groupHashes: unknown, extra: Json = {}) {
	return call(`/api/issues/${groupHash}/unmerge`, {
		method: "POST",
		token: project.token,
		json: { project_name: project.projectName, group_hashes: groupHashes, ...extra },
	});
}

async function unmergeOk(project: Project, groupHash: string, groupHashes: string[]): Promise<Json> {
	const res = await unmerge(project, groupHash, groupHashes);
	if (res.status !== 200) throw new Error(`unmerge failed: ${res.status} ${await res.text()}`);
	return res.json();
}

async function mergedOf(project: Project, groupHash: string): Promise<Json[]> {
	const res = await call(`/api/issues/${groupHash}/merged?project_name=${project.projectName}`, { token: project.token });
	if (res.status !== 200) throw new Error(`merged list failed: ${res.status} ${await res.text()}`);
	return (await res.json<Json>()).merged;
}

const tagValues = async (project: Project, groupHash: string, key: string) => {
	const tags = await (await call(`/api/issues/${groupHash}/tags?project_name=${project.projectName}`, { token: project.token })).json<Json>();
	return tags.tags.find((tag: Json) => tag.key === key)?.values ?? [];
};

/** What D1 holds of each issue: its row's count, and its events, rows per environment and tag counts, counted. */
async function storedFigures(keyId: string, groupHash: string) {
	const one = (sql: string) => env.DB.prepare(sql).bind(keyId, groupHash).first<{ n: number | null }>().then((row) => row?.n ?? null);
	return {
		count: await one(`SELECT count AS n FROM log_issues WHERE key_id = ? AND group_hash = ?`),
		events: await one(`SELECT count(*) AS n FROM log_events WHERE key_id = ? AND group_hash = ?`),
		inEnvironments: await one(`SELECT sum(count) AS n FROM log_issue_environments WHERE key_id = ? AND group_hash = ?`),
		levelTags: await one(`SELECT sum(count) AS n FROM log_issue_tags WHERE key_id = ? AND group_hash = ? AND tag_key = 'level'`),
	};
}

describe("the fingerprints merged into an issue (GET /api/issues/:group_hash/merged)", () => {
	it("lists each with its events the issue holds and its latest; none for an issue nothing was merged into", async ({ expect }) => {
		const { project, alpha, beta, crash } = await threeIssues();
		expect(await mergedOf(project, alpha)).toEqual([]);
		await mergeOk(project, [alpha, beta, crash]);
		await ingestOk(project.rawKey, { message: "Beta", timestamp: minutesAgo(1) });
		const merged = await mergedOf(project, alpha);
		expect(merged.map((m) => m.group_hash)).toEqual([beta, crash].sort());
		const byHash = new Map(merged.map((m) => [m.group_hash, m]));
		expect(byHash.get(beta)).toMatchObject({ events: 2, title: "Beta" });
		expect(Date.parse(byHash.get(beta)?.last_seen)).toBeGreaterThan(Date.now() - 2 * 60_000);
		expect(byHash.get(crash)).toMatchObject({ events: 1, title: "TypeError: x is undefined" });
		// The latest event's id is one of the issue's events.
		const detail = await issueOf(project, alpha);
		expect(detail.events.map((e: Json) => e.id)).toContain(byHash.get(crash)?.latest_event_id);
	});

	it("404 for an issue merged into another, an unknown issue or project; 401 signed out", async ({ expect }) => {
		const { project, alpha, beta } = await threeIssues();
		await mergeOk(project, [alpha, beta]);
		const path = (hash: string, name = project.projectName) => `/api/issues/${hash}/merged?project_name=${name}`;
		expect((await call(path(beta), { token: project.token })).status).toBe(404);
		expect((await call(path(seededHash(99)), { token: project.token })).status).toBe(404);
		expect((await call(path(alpha, "no-such-project"), { token: project.token })).status).toBe(404);
		expect((await call(path(alpha))).status).toBe(401);
		expect((await call(`/api/issues/not-a-hash/merged?project_name=${project.projectName}`, { token: project.token })).status).toBe(400);
	});
});

describe("unmerging (POST /api/issues/:group_hash/unmerge)", () => {
	it("sends a fingerprint's events back to its own issue, and counts both sides again from their events", async ({ expect }) => {
		const { project, alpha, beta, crash } = await threeIssues();
		await mergeOk(project, [alpha, beta, crash]);
		const answer = await unmergeOk(project, alpha, [beta]);

		expect(answer.issue).toMatchObject({ group_hash: alpha, title: "TypeError: x is undefined", count: 4, users: 2, releases: [], unhandled: true });
		expect(answer.issue.environments.sort()).toEqual(["production", "staging"]);
		expect(Date.parse(answer.issue.first_seen)).toBeGreaterThan(Date.now() - 31 * 60_000);
		expect(answer.unmerged).toHaveLength(1);
		expect(answer.unmerged[0]).toMatchObject({ group_hash: beta, title: "Beta", status: "open", count: 1, users: 1, environments: ["production"], releases: ["1.0.0"], unhandled: false });

		// Each reads as its own again, in the list, by environment, in its tags and in the search.
		expect((await issuesOf(project)).map((issue) => issue.group_hash).sort()).toEqual([alpha, beta].sort());
		expect((await issueOf(project, beta)).events.map((e: Json) => e.message)).toEqual(["Beta"]);
		expect((await issueOf(project, alpha)).events).toHaveLength(4);
		expect(await issuesOf(project, { environment: "production" })).toEqual(
			expect.arrayContaining([expect.objectContaining({ group_hash: alpha, count: 2, users: 2 }), expect.objectContaining({ group_hash: beta, count: 1, users: 1 })]),
		);
		expect(await tagValues(project, alpha, "route")).toEqual([{ value: "/a", count: 2 }]);
		expect(await tagValues(project, beta, "route")).toEqual([{ value: "/b", count: 1 }]);
		expect((await issuesOf(project, { q: "route:/b" })).map((issue) => issue.group_hash)).toEqual([beta]);
		expect((await issuesOf(project, { q: "firstRelease:1.0.0" })).map((issue) => issue.group_hash)).toEqual([beta]);
		for (const hash of [alpha, beta]) {
			const stored = await storedFigures(project.keyId, hash);
			expect(stored, hash).toEqual({ count: stored.events, events: stored.events, inEnvironments: stored.events, levelTags: stored.events });
		}

		// Its later events are its own; the fingerprint left merged still goes to the issue.
		expect(await ingestOk(project.rawKey, { message: "Beta", user: { id: "u4" } })).toEqual({ ok: true, group_hash: beta, is_new: false });
		expect(await ingestOk(project.rawKey, { exception: { type: "TypeError", value: "x is undefined" } })).toMatchObject({ group_hash: alpha });
		expect(await issueOf(project, beta)).toMatchObject({ count: 2, users: 2 });
		expect((await mergedOf(project, alpha)).map((m) => m.group_hash)).toEqual([crash]);

		// Each side's activity says so.
		const kinds = async (hash: string) => (await issueOf(project, hash)).activity.map(({ at, ...entry }: Json) => entry);
		expect((await kinds(alpha))[0]).toEqual({ kind: "unmerged", issues: 1 });
		expect(await kinds(beta)).toEqual([{ kind: "unmerged_from", group_hash: alpha }]);
	});

	it("unmerges several at once, and a fingerprint merged in along with another issue comes back alone", async ({ expect }) => {
		const { project, alpha, beta, crash } = await threeIssues();
		// Beta taken into Alpha, then Alpha (4 events) into Gamma (5): Gamma holds all three fingerprints.
		await mergeOk(project, [alpha, beta]);
		const send = () => ingestOk(project.rawKey, { message: "Gamma", environment: "production" });
		const gamma = (await send()).group_hash;
		for (let i = 0; i < 4; i++) await send();
		expect((await mergeOk(project, [alpha, gamma, crash])).group_hash).toBe(gamma);
		expect((await mergedOf(project, gamma)).map((m) => m.group_hash)).toEqual([alpha, beta, crash].sort());

		const answer = await unmergeOk(project, gamma, [alpha, crash]);
		expect(answer.issue).toMatchObject({ group_hash: gamma, count: 6, title: "Gamma" });
		expect(answer.unmerged.map((issue: Json) => [issue.group_hash, issue.count])).toEqual([
			[alpha, 3],
			[crash, 1],
		]);
		expect((await mergedOf(project, gamma)).map((m) => m.group_hash)).toEqual([beta]);
		expect(await ingestOk(project.rawKey, { message: "Beta" })).toMatchObject({ group_hash: gamma });
		expect(await ingestOk(project.rawKey, { message: "Alpha" })).toMatchObject({ group_hash: alpha, is_new: false });
	});

	it("keeps events that arrive meanwhile where they belong, counted once on each side", async ({ expect }) => {
		const { project, alpha, beta } = await threeIssues();
		await raiseLogsLimit(project);
		await mergeOk(project, [alpha, beta]);
		// Events of both fingerprints sent all through the unmerge: some reach the object while it reads D1.
		let unmerged = false;
		const sent = { Alpha: 0, Beta: 0 };
		const keepSending = async (message: "Alpha" | "Beta") => {
			while (!unmerged) {
				await ingestOk(project.rawKey, { message, environment: "production" });
				sent[message]++;
			}
		};
		const unmerging = unmergeOk(project, alpha, [beta]).finally(() => {
			unmerged = true;
		});
		const [answer] = await Promise.all([unmerging, keepSending("Alpha"), keepSending("Beta"), keepSending("Alpha"), keepSending("Beta")]);
		expect(answer.unmerged.map((issue: Json) => issue.group_hash)).toEqual([beta]);
		expect(sent.Beta).toBeGreaterThan(0);
		expect(await issueOf(project, alpha)).toMatchObject({ count: 3 + sent.Alpha });
		expect(await issueOf(project, beta)).toMatchObject({ count: 1 + sent.Beta });
		for (const hash of [alpha, beta]) {
			const stored = await storedFigures(project.keyId, hash);
			expect(stored, hash).toEqual({ count: stored.events, events: stored.events, inEnvironments: stored.events, levelTags: stored.events });
		}
		const production = await issuesOf(project, { environment: "production" });
		expect(production.find((issue) => issue.group_hash === alpha)?.count).toBe(2 + sent.Alpha);
		expect(production.find((issue) => issue.group_hash === beta)?.count).toBe(1 + sent.Beta);
	});

	it("an issue left with no unhandled event reads handled again: in its page, the list and is:unhandled", async ({ expect }) => {
		const { project, alpha, crash } = await threeIssues();
		expect((await mergeOk(project, [alpha, crash])).unhandled).toBe(true);
		expect((await issuesOf(project, { q: "is:unhandled" })).map((issue) => issue.group_hash)).toEqual([alpha]);

		expect((await unmergeOk(project, alpha, [crash])).issue).toMatchObject({ group_hash: alpha, unhandled: false });
		expect(await issueOf(project, alpha)).toMatchObject({ unhandled: false });
		expect((await issuesOf(project)).find((issue) => issue.group_hash === alpha)).toMatchObject({ unhandled: false });
		expect((await issuesOf(project, { q: "is:unhandled" })).map((issue) => issue.group_hash)).toEqual([crash]);
		// A status change asks D1 for the flags of issues the object holds handled: it stays handled.
		const res = await call(`/api/issues/${alpha}`, { method: "PATCH", token: project.token, json: { project_name: project.projectName, status: "resolved" } });
		expect(await res.json()).toMatchObject({ unhandled: false });
	});

	it("keeps an ignore waiting for as many more events as it did", async ({ expect }) => {
		const { project, alpha, beta } = await threeIssues();
		await mergeOk(project, [alpha, beta]);
		const res = await call(`/api/issues/${alpha}`, {
			method: "PATCH",
			token: project.token,
			json: { project_name: project.projectName, status: "ignored", ignore_until_events: 3 },
		});
		expect(await res.json()).toMatchObject({ count: 4, ignored_until_count: 7 });
		expect((await unmergeOk(project, alpha, [beta])).issue).toMatchObject({ count: 3, status: "ignored", ignored_until_count: 6 });
		for (let i = 0; i < 2; i++) await ingestOk(project.rawKey, { message: "Alpha" });
		expect((await issueOf(project, alpha)).status).toBe("ignored");
		await ingestOk(project.rawKey, { message: "Alpha" });
		expect((await issueOf(project, alpha)).status).toBe("open");
	});

	it("a fingerprint with no event kept opens no issue: its next event opens it anew", async ({ expect }) => {
		const { project, alpha, beta } = await threeIssues();
		await mergeOk(project, [alpha, beta]);
		// As an event stored before events kept their fingerprint: it stays in the issue.
		await env.DB.prepare(`UPDATE log_events SET fingerprint_hash = NULL WHERE key_id = ?`).bind(project.keyId).run();
		expect(await mergedOf(project, alpha)).toEqual([{ group_hash: beta, events: 0, last_seen: null, title: null, latest_event_id: null }]);
		const answer = await unmergeOk(project, alpha, [beta]);
		expect(answer.unmerged).toEqual([]);
		expect(answer.issue).toMatchObject({ count: 4 });
		expect(await mergedOf(project, alpha)).toEqual([]);
		expect(await ingestOk(project.rawKey, { message: "Beta" })).toEqual({ ok: true, group_hash: beta, is_new: true });
	});

	it("403 when the issues opened again would take the project past its 10,000: at 10,000 they open", async ({ expect }) => {
		const { project, alpha, beta, crash } = await threeIssues();
		await mergeOk(project, [alpha, beta, crash]);
		// The project's other issues, straight into its object: with Alpha, one short of the cap.
		await runInDurableObject(issueGrouper(project.keyId), (_, state) => {
			state.storage.sql.exec(
				`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
				INSERT INTO groups (hash, title, level, count, first_seen, last_seen, flushed_version) SELECT printf('%032x', i), 'seeded', 'error', 1, 0, 0, 1 FROM n`,
				LOG_LIMITS.issuesPerProject - 2,
			);
		});
		const refused = await unmerge(project, alpha, [beta, crash]);
		expect(refused.status).toBe(403);
		expect(((await refused.json()) as Json).error).toContain(`more than ${LOG_LIMITS.issuesPerProject} issues`);
		expect((await mergedOf(project, alpha)).map((m) => m.group_hash)).toEqual([beta, crash].sort());
		expect((await unmergeOk(project, alpha, [beta])).unmerged.map((issue: Json) => issue.group_hash)).toEqual([beta]);
	});

	it("400 for a hash not merged into the issue (its own among them), not hex, none or over 100; 404 for an unknown issue or project; 401 signed out", async ({ expect }) => {
		const { project, alpha, beta, crash } = await threeIssues();
		await mergeOk(project, [alpha, beta]);
		const refusal = async (res: Response) => ({ status: res.status, error: ((await res.json()) as Json).error });
		expect(await refusal(await unmerge(project, alpha, [crash]))).toEqual({
			status: 400,
			error: `Invalid request: group_hashes: ${crash} was not merged into this issue`,
		});
		expect((await refusal(await unmerge(project, alpha, [alpha, beta]))).error).toBe(`Invalid request: group_hashes: ${alpha} was not merged into this issue`);
		expect((await unmerge(project, alpha, ["xyz"])).status).toBe(400);
		expect((await unmerge(project, alpha, [])).status).toBe(400);
		expect((await unmerge(project, alpha, [beta], { extra: 1 })).status).toBe(400);
		// The most a request names is 100: at 100 the hashes are looked at, one past is refused before.
		const hundred = Array.from({ length: OWNER_LIMITS.issueMutationHashes }, (_, i) => seededHash(i + 1));
		expect((await refusal(await unmerge(project, alpha, hundred))).error).toBe(
			`Invalid request: group_hashes: ${seededHash(1)}, ${seededHash(2)}, ${seededHash(3)} and 97 more were not merged into this issue`,
		);
		expect((await refusal(await unmerge(project, alpha, [crash, seededHash(1), seededHash(2)]))).error).toBe(
			`Invalid request: group_hashes: ${crash}, ${seededHash(1)}, ${seededHash(2)} were not merged into this issue`,
		);
		expect((await unmerge(project, alpha, [...hundred, seededHash(101)])).status).toBe(400);
		expect((await unmerge(project, beta, [alpha])).status).toBe(404);
		expect((await unmerge(project, alpha, [beta], { project_name: "no-such-project" })).status).toBe(404);
		const signedOut = await call(`/api/issues/${alpha}/unmerge`, { method: "POST", json: { project_name: project.projectName, group_hashes: [beta] } });
		expect(signedOut.status).toBe(401);
		// Nothing was changed by any of them.
		expect((await mergedOf(project, alpha)).map((m) => m.group_hash)).toEqual([beta]);
		expect(await issueOf(project, alpha)).toMatchObject({ count: 4 });
	});

	it("looks at the issue and the hashes before it reads the events D1 holds: a refusal reads none of them", async ({ expect }) => {
		const { project, alpha, beta, crash } = await threeIssues();
		await mergeOk(project, [alpha, beta]);
		// With the events' table out of reach, any read of it would fail the request with a 500.
		await env.DB.exec("ALTER TABLE log_events RENAME TO log_events_away");
		try {
			expect((await unmerge(project, alpha, [crash])).status).toBe(400);
			expect((await unmerge(project, seededHash(7), [beta])).status).toBe(404);
		} finally {
			await env.DB.exec("ALTER TABLE log_events_away RENAME TO log_events");
		}
		expect((await unmerge(project, alpha, [beta])).status).toBe(200);
	});
});
