// The issue list filtered by environment shows each issue's figures there, as Sentry does: its
// events, users, first and last seen and 24 hours in that environment (log_issue_environments),
// and sorts by them; unfiltered, the issue's totals. Events without an environment count in none.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { ENVIRONMENT_BACKFILL, ENVIRONMENT_USERS_BACKFILL } from "../domain/logs/issueEnvironments";
import { deleteExpiredIssues, type PendingEvent, writeStatements } from "../domain/logs/logStore";
import { call, withoutComments } from "./helpers";
import { ingestOk, issueGrouper, issuesOf, ownerWithLogKey, raiseLogsLimit, seededHash, seedIssues, storedEvents } from "./logHelpers";

type Json = Record<string, any>;
type Project = Awaited<ReturnType<typeof ownerWithLogKey>>;

const sum = (counts: number[]) => counts.reduce((a, b) => a + b, 0);
const hashes = (issues: Json[]) => issues.map((i) => i.group_hash);
const environmentRows = async (keyId: string) =>
	(
		await env.DB.prepare("SELECT group_hash, environment, count, users, first_seen, last_seen FROM log_issue_environments WHERE key_id = ? ORDER BY 1, 2")
			.bind(keyId)
			.all()
	).results;

/** Two issues in production and staging, and one event without an environment, in this order. */
async function twoEnvironments(owner: Project) {
	const checkout = { message: "Checkout failed" };
	const login = { message: "Login failed" };
	const sent: Array<[Json, string | undefined, string]> = [
		[checkout, "production", "alice"],
		[login, "staging", "alice"],
		[login, "staging", "erin"],
		[checkout, "production", "bob"],
		[checkout, "staging", "carol"],
		[checkout, "production", "alice"],
		[checkout, undefined, "dave"],
		[login, "production", "frank"],
	];
	const groups: string[] = [];
	for (const [event, environment, user] of sent) groups.push((await ingestOk(owner.rawKey, { ...event, environment, user: { id: user } })).group_hash);
	return { checkout: groups[0], login: groups[1] };
}

describe("GET /api/issues?environment=", () => {
	it("each issue's count, users, first and last seen and last 24 hours are its figures in the environment; unfiltered, its totals", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { checkout, login } = await twoEnvironments(owner);
		await issuesOf(owner); // moves the events to D1
		const events = await storedEvents(owner.keyId);
		/** What the events of one issue (in one environment, or all) add up to. */
		const figures = (group: string, environment?: string) => {
			const of = events.filter((e) => e.group_hash === group && (environment === undefined || e.environment === environment));
			return {
				count: of.length,
				users: new Set(of.map((e) => e.event.user.id)).size,
				first_seen: new Date(Math.min(...of.map((e) => e.received_at))).toISOString(),
				last_seen: new Date(Math.max(...of.map((e) => e.received_at))).toISOString(),
			};
		};

		for (const environment of [undefined, "production", "staging"]) {
			const listed = await issuesOf(owner, environment ? { environment } : {});
			expect(hashes(listed).sort()).toEqual([checkout, login].sort());
			for (const issue of listed) {
				expect(issue, `${issue.group_hash} in ${environment}`).toMatchObject(figures(issue.group_hash, environment));
				expect(sum(issue.last_24h)).toBe(issue.count);
				// Which environments and releases the issue was seen in are the issue's, whatever the filter.
				expect(issue.environments).toEqual(issue.group_hash === checkout ? ["production", "staging"] : ["staging", "production"]);
			}
		}
		// dave's event, sent without an environment, is in the issue's totals only.
		expect((await issuesOf(owner)).find((i) => i.group_hash === checkout)).toMatchObject({ count: 5, users: 4 });
		expect((await issuesOf(owner, { environment: "production" })).find((i) => i.group_hash === checkout)).toMatchObject({ count: 3, users: 2 });
		expect((await issuesOf(owner, { environment: "staging" })).find((i) => i.group_hash === checkout)).toMatchObject({ count: 1, users: 1 });
		expect(await issuesOf(owner, { environment: "qa" })).toEqual([]);
	});

	it("an issue read with its environment has its figures, its events and its counts there, as the list filtered by it shows it", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { checkout } = await twoEnvironments(owner);
		const read = async (environment?: string) => {
			const query = new URLSearchParams({ project_name: owner.projectName, ...(environment === undefined ? {} : { environment }) });
			return call(`/api/issues/${checkout}?${query}`, { token: owner.token });
		};
		for (const environment of ["production", "staging"]) {
			const [listed] = (await issuesOf(owner, { environment })).filter((i) => i.group_hash === checkout);
			const res = await read(environment);
			expect(res.status).toBe(200);
			const issue = await res.json<Json>();
			expect(issue).toMatchObject({ environment, count: listed.count, users: listed.users, first_seen: listed.first_seen, last_seen: listed.last_seen });
			expect(issue.events.map((e: Json) => e.environment)).toEqual(new Array(listed.count).fill(environment));
			expect(sum(issue.hourly_counts.map((h: Json) => h.count))).toBe(listed.count);
			expect(sum(issue.daily_counts.map((d: Json) => d.count))).toBe(listed.count);
		}
		// Unscoped: the issue's totals, dave's event without an environment among them, and no `environment`.
		const all = await (await read()).json<Json>();
		expect(all).toMatchObject({ count: 5, users: 4 });
		expect(all.environment).toBeUndefined();
		expect(all.events).toHaveLength(5);
		// An environment the issue was never seen in, and names the list takes no more than.
		const none = await read("qa");
		expect(none.status).toBe(404);
		expect((await none.json<Json>()).error).toBe("No such issue in this project with events in qa");
		expect((await read("e".repeat(500))).status).toBe(404);
		expect((await read("e".repeat(501))).status).toBe(400);
		expect((await read("")).status).toBe(400);
	});

	it("sorts by the environment's figures: count, users, last seen and first seen, page by page", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { checkout, login } = await twoEnvironments(owner);
		const order = async (query: Record<string, string>) => hashes(await issuesOf(owner, query));

		// All environments: checkout has more events (5 to 3), login the last and the first event.
		expect(await order({ sort: "count" })).toEqual([checkout, login]);
		expect(await order({})).toEqual([login, checkout]);
		expect(await order({ sort: "first_seen" })).toEqual([login, checkout]);
		// Staging: login has more events (2 to 1); checkout the last one there, and the first after login's.
		expect(await order({ environment: "staging", sort: "count" })).toEqual([login, checkout]);
		expect(await order({ environment: "staging" })).toEqual([checkout, login]);
		expect(await order({ environment: "staging", sort: "first_seen" })).toEqual([checkout, login]);
		expect(await order({ environment: "production", sort: "count" })).toEqual([checkout, login]);

		// By people affected: checkout 4 to 3 in all, login 2 to 1 in staging.
		expect(await order({ sort: "users" })).toEqual([checkout, login]);
		expect(await order({ environment: "staging", sort: "users" })).toEqual([login, checkout]);
		// One person three times ranks after two people once each, as Sentry's Users sort does.
		for (const user of ["zed", "zed", "zed"]) await ingestOk(owner.rawKey, { message: "Often, one person", environment: "qa", user: { id: user } });
		const often = (await ingestOk(owner.rawKey, { message: "Often, one person", environment: "qa" })).group_hash;
		const twoPeople = (await ingestOk(owner.rawKey, { message: "Two people", environment: "qa", user: { id: "yan" } })).group_hash;
		await ingestOk(owner.rawKey, { message: "Two people", environment: "qa", user: { id: "xia" } });
		expect(await order({ environment: "qa", sort: "count" })).toEqual([often, twoPeople]);
		expect(await order({ environment: "qa", sort: "users" })).toEqual([twoPeople, often]);

		// A page at a time, the cursor at the environment's figures of the page's last issue.
		const query = { project_name: owner.projectName, environment: "staging", sort: "count", limit: "1" };
		const first = await call(`/api/issues?${new URLSearchParams(query)}`, { token: owner.token }).then((r) => r.json<Json>());
		expect(hashes(first.issues)).toEqual([login]);
		expect(first.next_cursor).toEqual(expect.any(String));
		const second = await call(`/api/issues?${new URLSearchParams({ ...query, cursor: first.next_cursor })}`, { token: owner.token }).then((r) => r.json<Json>());
		expect(second).toMatchObject({ issues: [expect.objectContaining({ group_hash: checkout, count: 1 })], next_cursor: null });
	});

	it("an issue counts its first 100 environments, as it lists them and the filters offer them: the 100th is counted, the 101st is not", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await raiseLogsLimit(owner);
		let group = "";
		for (let i = 0; i < 101; i++) group = (await ingestOk(owner.rawKey, { message: "Everywhere at once", environment: `env-${i}` })).group_hash;

		const [issue] = await issuesOf(owner);
		expect(issue).toMatchObject({ count: 101, environments: Array.from({ length: 100 }, (_, i) => `env-${i}`) });
		const values = await call(`/api/issues/filter-values?project_name=${owner.projectName}`, { token: owner.token }).then((r) => r.json<Json>());
		expect(values.environments).toContain("env-99");
		expect(values.environments).not.toContain("env-100");
		expect(await issuesOf(owner, { environment: "env-99" })).toMatchObject([{ group_hash: group, count: 1, users: 0 }]);
		expect(await issuesOf(owner, { environment: "env-100" })).toEqual([]);
		expect(await environmentRows(owner.keyId)).toHaveLength(100);
	});
});

describe("keeping the rows", () => {
	it("a batch written twice (D1 committed, the collector did not hear) counts its events once", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const group = seededHash(7);
		await seedIssues(owner, [{ groupHash: group, lastSeen: 1_000, environments: ["production"] }]);
		const event = (receivedAt: number, environmentUsers: number | null, environment: string | null = "production"): PendingEvent => ({
			id: crypto.randomUUID(),
			groupHash: group,
			fingerprintHash: null,
			receivedAt,
			timestamp: receivedAt,
			level: "error",
			environment,
			release: null,
			eventJson: "{}",
			environmentUsers,
		});
		const batch = [event(2_000, 1), event(1_000, 0), event(3_000, null, null)];
		const write = () => env.DB.batch(writeStatements(env.DB, { keyId: owner.keyId, userId: owner.user.id }, batch, []));
		await write();
		await write();
		expect(await environmentRows(owner.keyId)).toEqual([{ group_hash: group, environment: "production", count: 2, users: 1, first_seen: 1_000, last_seen: 2_000 }]);
		// The next batch adds to the row.
		await env.DB.batch(writeStatements(env.DB, { keyId: owner.keyId, userId: owner.user.id }, [event(500, 1), event(4_000, 0)], []));
		expect(await environmentRows(owner.keyId)).toMatchObject([{ count: 4, users: 2, first_seen: 500, last_seen: 4_000 }]);
	});

	it("migration 0017 fills the rows from the stored events, and a collector takes over who they counted: a user seen again is not counted twice", async ({
		expect,
	}) => {
		const owner = await ownerWithLogKey();
		const first = await ingestOk(owner.rawKey, { message: "Payment failed", environment: "production", user: { id: "alice" } });
		await ingestOk(owner.rawKey, { message: "Payment failed", environment: "production", user: { email: "Bob@Example.com" } });
		await ingestOk(owner.rawKey, { message: "Payment failed", environment: "staging", user: { id: "alice" } });
		await ingestOk(owner.rawKey, { message: "Payment failed" });
		await issuesOf(owner);
		const flushed = await environmentRows(owner.keyId);
		expect(flushed).toMatchObject([
			{ environment: "production", count: 2, users: 2 },
			{ environment: "staging", count: 1, users: 1 },
		]);

		// The migration's last statements are the backfills, as written in issueEnvironments.ts.
		const migration = env.TEST_MIGRATIONS.find((m) => m.name.endsWith("_issue_environments.sql"));
		expect(migration?.queries.slice(-2).map(withoutComments)).toEqual([ENVIRONMENT_BACKFILL, ENVIRONMENT_USERS_BACKFILL]);
		// The key as it was before: no rows, no users per environment in its collector, an outbox
		// without user_key holding an event accepted but not yet moved.
		await env.DB.batch([env.DB.prepare("DELETE FROM log_issue_environments"), env.DB.prepare("DELETE FROM log_issue_environment_users_seed")]);
		await runInDurableObject(issueGrouper(owner.keyId), (_, state) => {
			const sql = state.storage.sql;
			sql.exec("DELETE FROM group_environment_users");
			sql.exec("DELETE FROM meta WHERE key = 'environment_users'");
			sql.exec("ALTER TABLE outbox DROP COLUMN user_key");
			sql.exec(
				"INSERT INTO outbox (id, hash, received_at, timestamp, level, environment, release, event) VALUES (?, ?, ?, ?, 'error', 'production', NULL, '{}')",
				crypto.randomUUID(),
				first.group_hash,
				Date.now(),
				Date.now(),
			);
		});
		await env.DB.batch([env.DB.prepare(ENVIRONMENT_BACKFILL), env.DB.prepare(ENVIRONMENT_USERS_BACKFILL)]);
		expect(await environmentRows(owner.keyId)).toEqual(flushed);
		await runInDurableObject(issueGrouper(owner.keyId), (_, state) => state.abort("restart as the new version")).catch(() => {});

		// alice and bob again (bob's email in another case), and carol for the first time.
		for (const user of [{ id: "alice" }, { email: "bob@example.com" }, { id: "carol" }]) {
			await ingestOk(owner.rawKey, { message: "Payment failed", environment: "production", user });
		}
		const [production] = await issuesOf(owner, { environment: "production" });
		// Two counted before, carol new; the event that waited in the old outbox counts, with no user.
		expect(production).toMatchObject({ count: 6, users: 3 });
		expect(await env.DB.prepare("SELECT count(*) AS n FROM log_issue_environment_users_seed WHERE key_id = ?").bind(owner.keyId).first("n")).toBe(0);
		expect((await issuesOf(owner, { environment: "staging" }))[0]).toMatchObject({ count: 1, users: 1 });
	});

	it("the clean-up deletes an expired issue's rows first, at most `limit` at a time, and the issue once it has none left", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const [expired, kept] = [seededHash(1), seededHash(2)];
		await seedIssues(owner, [
			{ groupHash: expired, lastSeen: 1_000, environments: ["production", "staging"] },
			{ groupHash: kept, lastSeen: 5_000, environments: ["production"] },
		]);
		const pending = [
			[expired, "production"],
			[expired, "staging"],
			[kept, "production"],
		].map(([group, environment], i) => ({
			id: crypto.randomUUID(),
			groupHash: group,
			fingerprintHash: null,
			receivedAt: group === kept ? 5_000 : 1_000 + i,
			timestamp: 0,
			level: "error",
			environment,
			release: null,
			eventJson: "{}",
			environmentUsers: 0,
		}));
		await env.DB.batch(writeStatements(env.DB, { keyId: owner.keyId, userId: owner.user.id }, pending, []));
		const issues = async () => hashes(await issuesOf(owner, { status: "open" }));

		expect(await deleteExpiredIssues(env.DB, owner.keyId, 2_000, 1)).toBe(1);
		expect(await issues()).toEqual([kept, expired]);
		expect(await deleteExpiredIssues(env.DB, owner.keyId, 2_000, 1)).toBe(2);
		expect(await issues()).toEqual([kept]);
		expect(await deleteExpiredIssues(env.DB, owner.keyId, 2_000, 1)).toBe(0);
		expect(await environmentRows(owner.keyId)).toMatchObject([{ group_hash: kept, environment: "production", count: 1 }]);
	});

	it("revoking the key deletes its rows", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await ingestOk(owner.rawKey, { message: "Soon gone", environment: "production" });
		await issuesOf(owner);
		expect(await environmentRows(owner.keyId)).toHaveLength(1);
		expect((await call(`/api/feedback-key?project_name=${owner.projectName}`, { method: "DELETE", token: owner.token })).status).toBe(200);
		expect(await environmentRows(owner.keyId)).toEqual([]);
	});
});
