import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { writeStatements } from "../domain/logs/logStore";
import { shortIdOf } from "../domain/logs/shortId";
import { call, setPlan } from "./helpers";
import { ingestOk, issueOf, issuesOf, listIssues, ownerWithLogKey, raiseLogsLimit, readIssue, setIssueStatus, storedEvents } from "./logHelpers";

type Json = Record<string, any>;

describe("grouping under concurrency", () => {
	it("50 concurrent first events of one new fingerprint: exactly one is_new, count 50", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await raiseLogsLimit(owner);
		const results = await Promise.all(
			Array.from({ length: 50 }, (_, i) => ingestOk(owner.rawKey, { message: `cache stampede on shard ${i}`, user: { id: `u${i % 7}` } })),
		);
		expect(results.filter((r) => r.is_new)).toHaveLength(1);
		expect(new Set(results.map((r) => r.group_hash)).size).toBe(1);
		const [only] = await issuesOf(owner);
		expect(only).toMatchObject({ group_hash: results[0].group_hash, count: 50, users: 7 });
		expect(await storedEvents(owner.keyId)).toHaveLength(50);
	});
});

describe("what an issue keeps", () => {
	it("count, first and last seen, distinct users, environments, releases, last level, title and culprit", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const frames = (fn: string) => [
			{ filename: "src/app.ts", function: "main", in_app: true, lineno: 1 },
			{ filename: "src/pay.ts", function: fn, in_app: true, lineno: 9 },
			{ filename: "node_modules/stripe/lib.js", function: "request", in_app: false, lineno: 3 },
		];
		const event = (extra: Json) => ({ exception: { type: "PaymentError", value: "card declined\nretry later", stacktrace: { frames: frames("charge") } }, ...extra });
		const first = await ingestOk(owner.rawKey, event({ level: "warning", environment: "staging", release: "1.0.0", user: { id: "alice" } }));
		await ingestOk(owner.rawKey, event({ level: "error", environment: "production", release: "1.0.0", user: { email: "bob@example.com" } }));
		await ingestOk(owner.rawKey, event({ level: "fatal", environment: "production", release: "1.1.0", user: { id: "alice" } }));
		await ingestOk(owner.rawKey, event({ level: "error", user: { ip_address: "10.0.0.1" } }));

		const [listed] = await issuesOf(owner);
		expect(listed).toEqual({
			group_hash: first.group_hash,
			short_id: shortIdOf(owner.projectName, 1),
			title: "PaymentError: card declined",
			culprit: "charge (src/pay.ts)",
			level: "error",
			status: "open",
			count: 4,
			users: 3,
			first_seen: expect.any(String),
			last_seen: expect.any(String),
			environments: ["staging", "production"],
			releases: ["1.0.0", "1.1.0"],
			resolved_in_release: null,
			unhandled: false,
			last_24h: expect.any(Array),
		});
		expect(Date.parse(listed.first_seen)).toBeLessThanOrEqual(Date.parse(listed.last_seen));
		const events = await storedEvents(owner.keyId);
		expect(Date.parse(listed.first_seen)).toBe(events[0].received_at);
		expect(Date.parse(listed.last_seen)).toBe(events.at(-1)!.received_at);
	});
});

describe("GET /api/issues", () => {
	it("finds a pasted title of any length up to the search's 200 characters, ASCII letters in either case", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const title = `Cannot read properties of undefined (reading 'id') in Écran ${"x".repeat(150)}`;
		const long = await ingestOk(owner.rawKey, { message: title });
		await ingestOk(owner.rawKey, { message: "Checkout failed" });
		expect((await issuesOf(owner, { q: title.slice(0, 200) })).map((i) => i.group_hash)).toEqual([long.group_hash]);
		expect((await issuesOf(owner, { q: "CANNOT READ properties of undefined (reading 'id') in Écran" })).map((i) => i.group_hash)).toEqual([long.group_hash]);
		expect(await issuesOf(owner, { q: "écran" })).toEqual([]);
		expect((await listIssues(owner.token, { project_name: owner.projectName, q: title.slice(0, 201) })).status).toBe(400);
	});

	it("lists the project's issues, most recently seen first, with filters", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const checkout = await ingestOk(owner.rawKey, { message: "Checkout failed for cart 12", environment: "production", release: "2.0.0" });
		const login = await ingestOk(owner.rawKey, { message: "Login throttled for user 9", environment: "staging", release: "2.1.0" });
		const search = await ingestOk(owner.rawKey, { exception: { type: "SearchError", value: "index 100% busy_now" }, environment: "production" });
		await ingestOk(owner.rawKey, { message: "Checkout failed for cart 99", environment: "production", release: "2.0.0" });

		const all = await issuesOf(owner);
		expect(all.map((i) => i.group_hash)).toEqual([checkout.group_hash, search.group_hash, login.group_hash]);

		expect((await issuesOf(owner, { environment: "staging" })).map((i) => i.group_hash)).toEqual([login.group_hash]);
		expect((await issuesOf(owner, { release: "2.0.0" })).map((i) => i.group_hash)).toEqual([checkout.group_hash]);
		expect((await issuesOf(owner, { q: "checkout" })).map((i) => i.group_hash)).toEqual([checkout.group_hash]);
		// LIKE wildcards in q are taken literally.
		expect((await issuesOf(owner, { q: "100%" })).map((i) => i.group_hash)).toEqual([search.group_hash]);
		expect(await issuesOf(owner, { q: "busy_now" })).toHaveLength(1);
		expect(await issuesOf(owner, { q: "busy%now" })).toHaveLength(0);
		expect(await issuesOf(owner, { q: "%" })).toHaveLength(1);
		expect((await issuesOf(owner, { q: login.group_hash })).map((i) => i.group_hash)).toEqual([login.group_hash]);

		await setIssueStatus(owner.token, owner.projectName, login.group_hash, "ignored");
		expect((await issuesOf(owner, { status: "ignored" })).map((i) => i.group_hash)).toEqual([login.group_hash]);
		expect((await issuesOf(owner, { status: "open" })).map((i) => i.group_hash)).toEqual([checkout.group_hash, search.group_hash]);
		expect(await issuesOf(owner, { status: "resolved" })).toEqual([]);
	});

	it("q takes a search as a Sentry user types it: is:, level:, environment:, release:, user: and text", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const checkout = await ingestOk(owner.rawKey, { message: "Checkout failed", level: "warning", environment: "production", release: "shop@2.0.0", user: { email: "ana@example.com" } });
		const crash = await ingestOk(owner.rawKey, {
			exception: { type: "TypeError", value: "Checkout crashed", mechanism: { type: "onerror", handled: false } },
			environment: "my env",
			user: { id: "u_7" },
		});
		const login = await ingestOk(owner.rawKey, { message: "Login throttled: see http://auth.example/x", environment: "production" });
		await setIssueStatus(owner.token, owner.projectName, login.group_hash, "resolved");

		const found = async (q: string, query: Record<string, string> = {}) => (await issuesOf(owner, { ...query, q })).map((i) => i.group_hash);
		expect(await found("is:unresolved checkout")).toEqual([crash.group_hash, checkout.group_hash]);
		expect(await found("checkout level:Warning")).toEqual([checkout.group_hash]);
		expect(await found("is:unhandled")).toEqual([crash.group_hash]);
		expect(await found('environment:"my env"')).toEqual([crash.group_hash]);
		expect(await found("release:shop@2.0.0 is:unresolved")).toEqual([checkout.group_hash]);
		expect(await found("user.email:ANA@example.com")).toEqual([checkout.group_hash]);
		expect(await found("user.id:u_7 checkout")).toEqual([crash.group_hash]);
		// Each field key matches its own field only; `user:` matches either.
		expect(await found("user.id:ana@example.com")).toEqual([]);
		expect(await found("user.email:u_7")).toEqual([]);
		expect(await found("user:ana@example.com")).toEqual([checkout.group_hash]);
		expect(await found("user.id:ana@example.com user:ana@example.com")).toEqual([checkout.group_hash]);
		expect(await found("is:resolved")).toEqual([login.group_hash]);
		expect(await found("is:archived")).toEqual([]);
		// The search's keys win over the parameters of the same names (the console's status is open unless changed).
		expect(await found("is:resolved", { status: "open" })).toEqual([login.group_hash]);
		expect(await found("environment:production", { environment: "my env" })).toEqual([login.group_hash, checkout.group_hash]);
		// Any other key:value, and a title's "Type: value", stay text.
		expect(await found("TypeError: Checkout")).toEqual([crash.group_hash]);
		expect(await found("http://auth.example/x")).toEqual([login.group_hash]);
		expect(await found("is:nothing")).toEqual([]);
	});

	it("sorts by last seen, first seen or count, each issue with its last 24 hours per hour", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const alpha = await ingestOk(owner.rawKey, { message: "alpha broke" });
		const beta = await ingestOk(owner.rawKey, { message: "beta broke" });
		await ingestOk(owner.rawKey, { message: "beta broke" });
		await ingestOk(owner.rawKey, { message: "beta broke" });
		const gamma = await ingestOk(owner.rawKey, { message: "gamma broke" });
		await ingestOk(owner.rawKey, { message: "alpha broke" });

		const order = async (sort?: string) => (await issuesOf(owner, sort ? { sort } : {})).map((i) => i.group_hash);
		expect(await order()).toEqual([alpha.group_hash, gamma.group_hash, beta.group_hash]);
		expect(await order("last_seen")).toEqual([alpha.group_hash, gamma.group_hash, beta.group_hash]);
		expect(await order("first_seen")).toEqual([gamma.group_hash, beta.group_hash, alpha.group_hash]);
		expect(await order("count")).toEqual([beta.group_hash, alpha.group_hash, gamma.group_hash]);

		for (const issue of await issuesOf(owner)) {
			expect(issue.last_24h).toHaveLength(24);
			expect(issue.last_24h.reduce((sum: number, n: number) => sum + n, 0)).toBe(issue.count);
		}
	});

	it("?user= lists the issues of one person, by user id or by email in any letter case", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const checkout = await ingestOk(owner.rawKey, { message: "Checkout failed", user: { id: "u_42", email: "Ana@Example.com" } });
		const login = await ingestOk(owner.rawKey, { message: "Login failed", user: { email: "ana@example.com" } });
		await ingestOk(owner.rawKey, { message: "Search failed", user: { id: "u_7", email: "bo@example.com" } });
		await ingestOk(owner.rawKey, { message: "Export failed", user: { username: "ana@example.com" } });

		const of = async (user: string) => (await issuesOf(owner, { user })).map((i) => i.group_hash).sort();
		expect(await of("ana@example.com")).toEqual([checkout.group_hash, login.group_hash].sort());
		expect(await of("ANA@EXAMPLE.COM")).toEqual([checkout.group_hash, login.group_hash].sort());
		expect(await of("u_42")).toEqual([checkout.group_hash]);
		expect(await of("nobody@example.com")).toEqual([]);
		// Combined with the other filters.
		expect((await issuesOf(owner, { user: "ana@example.com", q: "login" })).map((i) => i.group_hash)).toEqual([login.group_hash]);
		// Another owner's events never match.
		const other = await ownerWithLogKey();
		await ingestOk(other.rawKey, { message: "Elsewhere", user: { email: "ana@example.com" } });
		expect(await of("ana@example.com")).toHaveLength(2);
	});

	it.for([
		["no project_name", {}],
		["an empty user", { project_name: "p", user: " " }],
		["a user over 500 characters", { project_name: "p", user: "u".repeat(501) }],
		["an unknown sort", { project_name: "p", sort: "title" }],
		["an unknown status", { project_name: "p", status: "closed" }],
		["an empty environment", { project_name: "p", environment: "" }],
	] as const)("400 with %s", async ([, query], { expect }) => {
		const owner = await ownerWithLogKey();
		const res = await listIssues(owner.token, query as Record<string, string>);
		expect(res.status).toBe(400);
		expect(Object.keys(await res.json<Json>())).toEqual(["error"]);
	});

	it("404 for a project without a key", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const res = await listIssues(owner.token, { project_name: "no-such-project" });
		expect(res.status).toBe(404);
	});

	it("401 without a session, 401 with a project key, 402 without access", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		expect((await call(`/api/issues?project_name=${owner.projectName}`)).status).toBe(401);
		expect((await listIssues(owner.rawKey, { project_name: owner.projectName })).status).toBe(401);
		await setPlan(owner.email, "free", new Date(Date.now() - 1000).toISOString());
		expect((await listIssues(owner.token, { project_name: owner.projectName })).status).toBe(402);
	});
});

describe("GET /api/issues/:group_hash", () => {
	it("the issue, its events newest first with id and received time, and 24 hourly counts", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const sent = [];
		for (let i = 0; i < 3; i++) sent.push(await ingestOk(owner.rawKey, { message: `disk 9${i}% full`, tags: { n: String(i) } }));
		const detail = await issueOf(owner, sent[0].group_hash);

		// The title follows the latest event.
		expect(detail).toMatchObject({ group_hash: sent[0].group_hash, count: 3, title: "disk 92% full", status: "open" });
		expect(detail.events.map((e: Json) => e.tags.n)).toEqual(["2", "1", "0"]);
		for (const event of detail.events) {
			expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
			expect(new Date(event.received_at).toISOString()).toBe(event.received_at);
			expect(event).toMatchObject({ level: "error", message: expect.stringMatching(/^disk/) });
		}
		expect(detail.hourly_counts).toHaveLength(24);
		expect(detail.hourly_counts.reduce((sum: number, h: Json) => sum + h.count, 0)).toBe(3);
		// Consecutive hours, oldest first, and the newest bucket holds the newest event.
		const hours = detail.hourly_counts.map((h: Json) => Date.parse(h.hour));
		expect(hours.slice(1).map((h: number, i: number) => h - hours[i])).toEqual(Array(23).fill(3_600_000));
		expect(Date.parse(detail.events[0].received_at) - hours[23]).toBeLessThan(3_600_000);
		expect(Date.parse(detail.events[0].received_at) - hours[23]).toBeGreaterThanOrEqual(0);
		expect(detail.hourly_counts[23].count).toBeGreaterThanOrEqual(1);
	});

	it("30 daily counts, oldest UTC day first, the last today: events older than the first day not counted", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "nightly export failed" });
		const DAY = 86_400_000;
		const now = Date.now();
		// Events received days ago, written as the ProjectCollector writes them.
		const past = [3 * DAY, 3 * DAY + 1, 29 * DAY, 31 * DAY].map((ago) => now - ago);
		const pending = past.map((at) => ({ id: crypto.randomUUID(), groupHash: group_hash, fingerprintHash: null, receivedAt: at, timestamp: at, level: "error", environment: null, release: null, eventJson: "{}", environmentUsers: null }));
		await env.DB.batch(writeStatements(env.DB, { keyId: owner.keyId, userId: owner.user.id }, pending, []));

		const { daily_counts: daily, hourly_counts: hourly } = await issueOf(owner, group_hash);
		const days = daily.map((d: Json) => Date.parse(d.day));
		expect(days).toHaveLength(30);
		expect(days.slice(1).map((d: number, i: number) => d - days[i])).toEqual(Array(29).fill(DAY));
		expect(days[29] % DAY).toBe(0);
		expect(now - days[29]).toBeLessThan(DAY);
		const countOn = (at: number) => daily.find((d: Json) => Date.parse(d.day) <= at && at < Date.parse(d.day) + DAY)?.count;
		expect(countOn(now)).toBe(1);
		expect(countOn(past[0])).toBe(2);
		expect(countOn(past[2])).toBe(1);
		expect(countOn(past[3])).toBeUndefined();
		expect(daily.reduce((sum: number, d: Json) => sum + d.count, 0)).toBe(4);
		expect(hourly.reduce((sum: number, h: Json) => sum + h.count, 0)).toBe(1);
	});

	it("400 for a malformed hash, 404 for an unknown one", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const malformed = await readIssue(owner.token, owner.projectName, "not-a-hash");
		expect(malformed.status).toBe(400);
		expect((await malformed.json<Json>()).error).toMatch(/group_hash/);
		expect((await readIssue(owner.token, owner.projectName, "0".repeat(32))).status).toBe(404);
	});
});

describe("owners see only their own issues", () => {
	it("another owner, even with the same project name, cannot list, read or change them", async ({ expect }) => {
		const alice = await ownerWithLogKey();
		const mallory = await ownerWithLogKey();
		const { group_hash } = await ingestOk(alice.rawKey, { message: "alice's secret bug" });
		// Mallory names Alice's project: she has no key for it.
		expect((await listIssues(mallory.token, { project_name: alice.projectName })).status).toBe(404);
		expect((await readIssue(mallory.token, alice.projectName, group_hash)).status).toBe(404);
		expect((await setIssueStatus(mallory.token, alice.projectName, group_hash, "ignored")).status).toBe(404);

		// Mallory's own project has the same group hash for the same message, but not Alice's issue.
		expect(await issuesOf(mallory)).toEqual([]);
		expect((await readIssue(mallory.token, mallory.projectName, group_hash)).status).toBe(404);
		expect((await setIssueStatus(mallory.token, mallory.projectName, group_hash, "ignored")).status).toBe(404);
		expect((await issueOf(alice, group_hash)).status).toBe("open");
	});

	it("the same project name under two owners holds separate issues", async ({ expect }) => {
		const alice = await ownerWithLogKey();
		const bob = await ownerWithLogKey();
		await ingestOk(alice.rawKey, { message: "shared text" });
		const b = await ingestOk(bob.rawKey, { message: "shared text" });
		expect(b.is_new).toBe(true);
		expect((await issuesOf(alice))[0].count).toBe(1);
		expect((await issuesOf(bob))[0].count).toBe(1);
	});
});
