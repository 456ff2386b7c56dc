import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { OWNER_LIMITS } from "../domain/limits";
import { call } from "./helpers";
import { ingestOk, issueOf, ownerWithLogKey } from "./logHelpers";

type Json = Record<string, any>;

const chrome = { browser: { name: "Chrome", version: "131.0.0" }, os: { name: "Windows", version: "11" } };
const safari = { browser: { name: "Safari", version: "18.1" }, os: { name: "iOS", version: "18.1" } };
/** The same frames every time: the events below are one issue whatever their messages. */
const stacktrace = { frames: [{ filename: "src/checkout.ts", function: "submitOrder", lineno: 42, in_app: true }] };
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

/** One issue of five events, oldest first, with different tags, users, environments and values. */
async function issueWithEvents() {
	const project = await ownerWithLogKey();
	const send = (minutes: number, event: Json) =>
		ingestOk(project.rawKey, { exception: { type: "TypeError", value: "order 1 has no id", stacktrace }, timestamp: minutesAgo(minutes), ...event });
	const first = await send(50, { environment: "production", contexts: chrome, user: { email: "Ana@example.com" }, tags: { route: "/cart", age: "3" } });
	await send(40, { environment: "production", contexts: safari, user: { id: "u2" }, request: { url: "https://shop.example/checkout/pay?coupon=X" }, release: "2.0.0" });
	await send(30, {
		environment: "staging",
		contexts: chrome,
		exception: { type: "TypeError", value: "order 7 has no id", stacktrace, mechanism: { type: "onerror", handled: false } },
		tags: { route: "/pay[1]" },
	});
	await send(20, { environment: "production", level: "warning", contexts: chrome, request: { url: "https://shop.example/account" } });
	await send(10, { environment: "production", event_id: "a".repeat(32), tags: { route: "/cart" } });
	return { project, groupHash: first.group_hash };
}

function readEvents(project: { token: string; projectName: string }, groupHash: string, query: Record<string, string>) {
	return call(`/api/issues/${groupHash}?${new URLSearchParams({ project_name: project.projectName, ...query })}`, { token: project.token });
}

/** The search's answer: which events it found, by minutes ago as sent (latest first), and its counts. */
async function searched(project: { token: string; projectName: string }, groupHash: string, q: string, query: Record<string, string> = {}) {
	const res = await readEvents(project, groupHash, { q, ...query });
	if (res.status !== 200) throw new Error(`${q}: ${res.status} ${await res.text()}`);
	const body = await res.json<Json>();
	const minutes = body.events.map((e: Json) => Math.round((Date.now() - Date.parse(e.timestamp)) / 60_000));
	return { minutes, ...body.event_search, count: body.count };
}

describe("searching an issue's events (q on GET /api/issues/:hash)", () => {
	it("finds the events that carry each tag's value, latest first, and counts them among those read", async ({ expect }) => {
		const { project, groupHash } = await issueWithEvents();
		const search = (q: string, query?: Record<string, string>) => searched(project, groupHash, q, query);

		expect(await search("browser.name:Chrome")).toMatchObject({ minutes: [20, 30, 50], searched: 5, matched: 3, count: 5 });
		expect((await search('browser:"Safari 18.1"')).minutes).toEqual([40]);
		expect((await search("os.name:Windows route:/cart")).minutes).toEqual([50]);
		// The event's own tags, one named as the list's key in Sentry's tags[…] form, and a value with GLOB's own characters.
		expect((await search("route:/cart")).minutes).toEqual([10, 50]);
		expect((await search("tags[age]:3")).minutes).toEqual([50]);
		expect((await search("route:/pay[1]")).minutes).toEqual([30]);
		// Patterns, has:, the drawn url without its query.
		expect((await search("url:*checkout*")).minutes).toEqual([40]);
		expect((await search("url:https://shop.example/checkout/pay")).minutes).toEqual([40]);
		expect((await search("has:url")).minutes).toEqual([20, 40]);
		expect((await search("has:nothing")).minutes).toEqual([]);
		// Case as the event carried it, as in Sentry.
		expect((await search("browser.name:chrome")).minutes).toEqual([]);
	});

	it("takes the list's keys that are about events, refuses those about the issue", async ({ expect }) => {
		const { project, groupHash } = await issueWithEvents();
		const search = (q: string) => searched(project, groupHash, q);

		expect((await search("level:warning")).minutes).toEqual([20]);
		expect((await search("environment:staging")).minutes).toEqual([30]);
		expect((await search("release:2.0.0")).minutes).toEqual([40]);
		expect((await search("is:unhandled")).minutes).toEqual([30]);
		expect((await search("handled:no mechanism:onerror")).minutes).toEqual([30]);
		// A user's id, or email in any letter case; user.id: and user.email: one of them only.
		expect((await search("user:ana@EXAMPLE.com")).minutes).toEqual([50]);
		expect((await search("user:u2")).minutes).toEqual([40]);
		expect((await search("user.id:u2")).minutes).toEqual([40]);
		expect((await search("user.email:u2")).minutes).toEqual([]);

		for (const q of ["is:unresolved", "is:resolved route:/cart", "lastSeen:-24h", "firstSeen:-1h", "age:-7d", "lastSeen:-3d", "age:>=2026-11-01", "firstRelease:2.0.0", "timesSeen:>1"]) {
			const res = await readEvents(project, groupHash, { q });
			expect(res.status, q).toBe(400);
			expect((await res.json<Json>()).error, q).toBe("Invalid request: q: is:unresolved, is:resolved, is:ignored, is:archived, is:regressed, is:escalating, firstRelease:, lastSeen:, firstSeen:, age: and timesSeen: search the issue list, not an issue's events");
		}
	});

	it("! excludes: the events without the value, those without the tag among them", async ({ expect }) => {
		const { project, groupHash } = await issueWithEvents();
		const search = (q: string, query?: Record<string, string>) => searched(project, groupHash, q, query);

		expect((await search("!browser.name:Chrome")).minutes).toEqual([10, 40]);
		expect((await search("!route:/cart")).minutes).toEqual([20, 30, 40]);
		expect((await search("!has:user")).minutes).toEqual([10, 20, 30]);
		expect((await search("!has:level")).minutes).toEqual([]);
		expect((await search("!browser.name:Safari !has:url environment:production")).minutes).toEqual([10, 50]);
	});

	it("error.type: the type of any exception of the event's chain, as the list's search takes it", async ({ expect }) => {
		const project = await ownerWithLogKey();
		// One fingerprint for all three: events of different chains in one issue.
		const send = (minutes: number, exception: Json) => ingestOk(project.rawKey, { fingerprint: ["checkout"], exception, timestamp: minutesAgo(minutes) });
		const { group_hash } = await send(30, { values: [{ type: "RangeError", value: "the cause" }, { type: "TypeError", value: "reported" }] });
		await send(20, { type: "TypeError", value: "alone" });
		await send(10, { type: "SyntaxError", value: "another" });
		const search = (q: string) => searched(project, group_hash, q);

		expect((await search("error.type:RangeError")).minutes).toEqual([30]);
		expect((await search("error.type:TypeError")).minutes).toEqual([20, 30]);
		expect((await search("error.type:[RangeError, SyntaxError]")).minutes).toEqual([10, 30]);
		expect((await search("error.type:Range*")).minutes).toEqual([30]);
		expect((await search("!error.type:RangeError")).minutes).toEqual([10, 20]);
		expect((await search("!error.type:TypeError")).minutes).toEqual([10]);
		expect((await search("has:error.type")).minutes).toEqual([10, 20, 30]);
		// The list finds the issue by its events' types, and by one of them without the type.
		const list = async (q: string) => (await (await call(`/api/issues?${new URLSearchParams({ project_name: project.projectName, q })}`, { token: project.token })).json<Json>()).issues.length;
		expect(await list("error.type:RangeError")).toBe(1);
		expect(await list("!error.type:TypeError")).toBe(1);
		expect(await list("!error.type:*Error")).toBe(0);
	});

	it("finds text in the message or an exception, or the event's own id", async ({ expect }) => {
		const { project, groupHash } = await issueWithEvents();
		const search = (q: string) => searched(project, groupHash, q);

		expect((await search("ORDER 7")).minutes).toEqual([30]);
		expect((await search("typeerror")).minutes).toEqual([10, 20, 30, 40, 50]);
		expect((await search('message:"has no id" browser.name:Safari')).minutes).toEqual([40]);
		expect((await search("a".repeat(32))).minutes).toEqual([10]);
		expect((await search("nowhere")).minutes).toEqual([]);
	});

	it("with environment: the events of that environment only, and the figures there", async ({ expect }) => {
		const { project, groupHash } = await issueWithEvents();
		expect(await searched(project, groupHash, "browser.name:Chrome", { environment: "production" })).toMatchObject({ minutes: [20, 50], searched: 4, matched: 2, count: 4 });
		expect(await searched(project, groupHash, "browser.name:Chrome", { environment: "staging" })).toMatchObject({ minutes: [30], searched: 1, matched: 1 });
	});

	it("an empty search is none; a search's length and tags are bounded as the list's", async ({ expect }) => {
		const { project, groupHash } = await issueWithEvents();
		for (const q of ["", "   "]) {
			const body = await (await readEvents(project, groupHash, { q })).json<Json>();
			expect(body.events).toHaveLength(5);
			expect(body).not.toHaveProperty("event_search");
		}
		const tags = (n: number) => Array.from({ length: n }, (_, i) => `t${i}:v`).join(" ");
		expect((await readEvents(project, groupHash, { q: tags(OWNER_LIMITS.issueSearchTags) })).status).toBe(200);
		const tooMany = await readEvents(project, groupHash, { q: tags(OWNER_LIMITS.issueSearchTags + 1) });
		expect(tooMany.status).toBe(400);
		expect((await tooMany.json<Json>()).error).toBe(`Invalid request: q: names more than ${OWNER_LIMITS.issueSearchTags} tags`);
		expect((await readEvents(project, groupHash, { q: "x".repeat(200) })).status).toBe(200);
		expect((await readEvents(project, groupHash, { q: "x".repeat(201) })).status).toBe(400);
	});

	it("answers the latest 100 matches, and still counts them all", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const event = { message: "Many", tags: { odd: "yes" } };
		const first = await ingestOk(project.rawKey, event);
		await issueOf(project, first.group_hash);
		await storeCopies(project.keyId, first.group_hash, 249);
		const { minutes, searched: read, matched } = await searched(project, first.group_hash, "odd:yes");
		expect({ events: minutes.length, read, matched }).toEqual({ events: OWNER_LIMITS.issueEvents, read: 250, matched: 250 });
	});

	it.for([
		[OWNER_LIMITS.issueEventSearch, 1],
		[OWNER_LIMITS.issueEventSearch + 1, 0],
	])("reads the latest 10,000 events at most: of %i stored, the oldest is found %i times", async ([stored, found], { expect }) => {
		const project = await ownerWithLogKey();
		// The oldest event carries the tag; the copies stored after it do not.
		const oldest = await ingestOk(project.rawKey, { message: "Often", tags: { first: "yes" } });
		await issueOf(project, oldest.group_hash);
		await storeCopies(project.keyId, oldest.group_hash, stored - 1, { removeTag: "first" });
		const result = await searched(project, oldest.group_hash, "first:yes");
		expect({ read: result.searched, matched: result.matched, events: result.minutes.length }).toEqual({ read: OWNER_LIMITS.issueEventSearch, matched: found, events: found });
	});
});

/**
 * `copies` more events of the issue, copies of its stored one each a second later, written
 * straight to D1 (thousands in a test): the search reads what D1 holds, however it came there.
 */
async function storeCopies(keyId: string, groupHash: string, copies: number, { removeTag }: { removeTag?: string } = {}) {
	await env.DB.prepare(
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?3),
			original AS (SELECT * FROM log_events WHERE key_id = ?1 AND group_hash = ?2 LIMIT 1)
		INSERT INTO log_events (id, key_id, group_hash, received_at, timestamp, level, environment, release, event)
		SELECT ?1 || '-copy-' || i, key_id, group_hash, received_at + i * 1000, timestamp + i * 1000, level, environment, release,
			CASE WHEN ?4 IS NULL THEN event ELSE json_remove(event, '$.tags.' || ?4) END
		FROM original, n`,
	)
		.bind(keyId, groupHash, copies, removeTag ?? null)
		.run();
}
