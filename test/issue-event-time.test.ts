// An issue is first and last seen, and its events ordered and counted by hour and day, by when
// they happened (their timestamp), as Sentry does: an SDK that held events offline sends them
// late, and they belong where they happened. Never after they came, nor more than 30 days before.
import { env } from "cloudflare:workers";
import { afterEach, describe, it, vi } from "vitest";
import { EVENT_TIME_BACKFILL } from "../domain/logs/logStore";
import { withoutComments } from "./helpers";
import { ingestOk, issueOf, issuesOf, listIssues, ownerWithLogKey, storedEvents } from "./logHelpers";
import { eventEnvelope, nodeEvent, sendEnvelope, sentryProject } from "./sentryHelpers";

type Json = Record<string, any>;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Holds the clock (the Worker's and the objects' too: they run in this isolate) half an hour into
 * the current hour, so that the hour each event falls in is known while the test runs.
 */
function holdClock(): number {
	const now = Math.floor(Date.now() / HOUR) * HOUR - HOUR / 2;
	vi.useFakeTimers({ toFake: ["Date"] });
	vi.setSystemTime(now);
	return now;
}

/** The hourly counts of the last 24 hours, as [hours ago, count] for the hours with events. */
const hoursWithEvents = (counts: number[]) => counts.flatMap((count, i) => (count > 0 ? [[counts.length - 1 - i, count]] : []));

afterEach(() => {
	vi.useRealTimers();
});

describe("an issue's times are its events' own", () => {
	it("an event sent late dates its issue where it happened; an older one sent later moves first seen back, never last seen", async ({ expect }) => {
		const now = holdClock();
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "sent late", timestamp: iso(now - 2 * HOUR) });
		expect(await issuesOf(owner)).toMatchObject([{ group_hash, first_seen: iso(now - 2 * HOUR), last_seen: iso(now - 2 * HOUR) }]);

		await ingestOk(owner.rawKey, { message: "sent late", timestamp: iso(now - 5 * HOUR) });
		await ingestOk(owner.rawKey, { message: "sent late", timestamp: iso(now - 3 * DAY) });
		const [issue] = await issuesOf(owner);
		expect(issue).toMatchObject({ count: 3, first_seen: iso(now - 3 * DAY), last_seen: iso(now - 2 * HOUR) });
		// Each counts in the hour it happened (the one of three days ago is older than the last 24 hours).
		expect(hoursWithEvents(issue.last_24h)).toEqual([
			[5, 1],
			[2, 1],
		]);

		const detail = await issueOf(owner, group_hash);
		expect(detail.events.map((e: Json) => e.timestamp)).toEqual([iso(now - 2 * HOUR), iso(now - 5 * HOUR), iso(now - 3 * DAY)]);
		expect(detail.events.every((e: Json) => e.received_at === iso(now))).toBe(true);
		expect(hoursWithEvents(detail.hourly_counts.map((h: Json) => h.count))).toEqual([
			[5, 1],
			[2, 1],
		]);
		const days = detail.daily_counts.map((d: Json) => d.count);
		expect(days.reduce((sum: number, n: number) => sum + n, 0)).toBe(3);
		expect(detail.daily_counts.find((d: Json) => d.day === iso(Math.floor((now - 3 * DAY) / DAY) * DAY))).toMatchObject({ count: 1 });
	});

	it("the list is ordered by when issues were last and first seen, not by when their events came", async ({ expect }) => {
		const now = holdClock();
		const owner = await ownerWithLogKey();
		const { group_hash: current } = await ingestOk(owner.rawKey, { message: "current" });
		const { group_hash: held } = await ingestOk(owner.rawKey, { message: "held while offline", timestamp: iso(now - HOUR) });
		expect((await issuesOf(owner)).map((i) => i.group_hash)).toEqual([current, held]);
		expect((await issuesOf(owner, { sort: "first_seen" })).map((i) => i.group_hash)).toEqual([current, held]);

		// An event of a minute ago brings the held issue's last seen past nothing: it stays second.
		await ingestOk(owner.rawKey, { message: "held while offline", timestamp: iso(now - MINUTE) });
		expect((await issuesOf(owner)).map((i) => [i.group_hash, i.last_seen])).toEqual([
			[current, iso(now)],
			[held, iso(now - MINUTE)],
		]);
	});

	it("in an environment, its figures are by when the events there happened", async ({ expect }) => {
		const now = holdClock();
		const owner = await ownerWithLogKey();
		const event = (environment: string, at: number) => ({ message: "by environment", environment, timestamp: iso(at) });
		await ingestOk(owner.rawKey, event("production", now - HOUR));
		await ingestOk(owner.rawKey, event("staging", now - 10 * HOUR));
		await ingestOk(owner.rawKey, event("production", now - 4 * HOUR));
		expect(await issuesOf(owner, { environment: "production" })).toMatchObject([{ count: 2, first_seen: iso(now - 4 * HOUR), last_seen: iso(now - HOUR) }]);
		expect(await issuesOf(owner, { environment: "staging" })).toMatchObject([{ count: 1, first_seen: iso(now - 10 * HOUR), last_seen: iso(now - 10 * HOUR) }]);
		expect(await issuesOf(owner)).toMatchObject([{ count: 3, first_seen: iso(now - 10 * HOUR), last_seen: iso(now - HOUR) }]);
	});

	it("a Sentry SDK's event held offline dates its issue where it happened", async ({ expect }) => {
		const now = holdClock();
		const project = await sentryProject();
		expect((await sendEnvelope(project, eventEnvelope(nodeEvent({ timestamp: (now - 6 * HOUR) / 1000 })))).status).toBe(200);
		expect(await issuesOf(project)).toMatchObject([{ first_seen: iso(now - 6 * HOUR), last_seen: iso(now - 6 * HOUR) }]);
	});

	it("30 days before it came counts then; a millisecond more, and it counts when it came; ahead of it, when it came", async ({ expect }) => {
		const now = holdClock();
		const owner = await ownerWithLogKey();
		const seen = async (message: string, at: number) => {
			const { group_hash } = await ingestOk(owner.rawKey, { message, timestamp: iso(at) });
			return (await issuesOf(owner)).find((i) => i.group_hash === group_hash);
		};
		expect(await seen("thirty days", now - 30 * DAY)).toMatchObject({ first_seen: iso(now - 30 * DAY) });
		expect(await seen("a clock far behind", now - 30 * DAY - 1)).toMatchObject({ first_seen: iso(now), last_seen: iso(now) });
		expect(await seen("a clock a little ahead", now + MINUTE)).toMatchObject({ first_seen: iso(now), last_seen: iso(now) });
		// The events keep the timestamps they were sent with.
		expect((await storedEvents(owner.keyId)).map((e) => e.event.timestamp).sort()).toEqual([now - 30 * DAY - 1, now - 30 * DAY, now + MINUTE].map(iso).sort());
	});
});

describe("the list within a period (period=), as Sentry's issue stream's time range", () => {
	it("keeps the issues last seen within it, by when their events happened, in an environment by their figures there", async ({ expect }) => {
		const now = holdClock();
		const owner = await ownerWithLogKey();
		const send = (message: string, at: number, environment = "production") => ingestOk(owner.rawKey, { message, environment, timestamp: iso(at) });
		const { group_hash: hour } = await send("half an hour ago", now - HOUR / 2);
		const { group_hash: edge } = await send("exactly a day ago", now - DAY);
		const { group_hash: older } = await send("a day and a millisecond ago", now - DAY - 1);
		const { group_hash: week } = await send("six days ago", now - 6 * DAY);
		// Seen in staging an hour ago (exactly the last hour's edge), in production six days ago.
		await send("six days ago", now - HOUR, "staging");
		const hashes = async (query: Record<string, string>) => (await issuesOf(owner, query)).map((i) => i.group_hash);

		expect(await hashes({ period: "1h" })).toEqual([hour, week]);
		expect(await hashes({ period: "24h" })).toEqual([hour, week, edge]);
		expect(await hashes({ period: "7d" })).toEqual([hour, week, edge, older]);
		expect(await hashes({ period: "24h", sort: "first_seen" })).toEqual([hour, edge, week]);
		expect(await hashes({ period: "24h", environment: "production" })).toEqual([hour, edge]);
		expect(await hashes({ period: "24h", environment: "staging" })).toEqual([week]);
		// Paged, it stays within the period.
		const first = await listIssues(owner.token, { project_name: owner.projectName, period: "24h", limit: "2" });
		const page = await first.json<Json>();
		expect(page.issues.map((i: Json) => i.group_hash)).toEqual([hour, week]);
		const next = await listIssues(owner.token, { project_name: owner.projectName, period: "24h", limit: "2", cursor: page.next_cursor });
		expect((await next.json<Json>()).issues.map((i: Json) => i.group_hash)).toEqual([edge]);
	});

	it("q takes Sentry's lastSeen:-24h, and firstSeen: or age: for the issues new in a period; another span stays text", async ({ expect }) => {
		const now = holdClock();
		const owner = await ownerWithLogKey();
		const send = (message: string, at: number) => ingestOk(owner.rawKey, { message, timestamp: iso(at) });
		const { group_hash: fresh } = await send("new today", now - HOUR);
		const { group_hash: back } = await send("back today", now - 5 * DAY);
		await send("back today", now - 2 * HOUR);
		const { group_hash: old } = await send("quiet since last week", now - 5 * DAY);
		const found = async (q: string, query: Record<string, string> = {}) => (await issuesOf(owner, { q, ...query })).map((i) => i.group_hash);

		expect(await found("lastSeen:-24h")).toEqual([fresh, back]);
		expect(await found("firstSeen:-24h")).toEqual([fresh]);
		expect(await found("age:-24H today")).toEqual([fresh]);
		expect(await found("firstSeen:-7d lastSeen:24h")).toEqual([fresh, back]);
		// The search wins over the parameter of the same name.
		expect(await found("lastSeen:-7d", { period: "1h" })).toEqual([fresh, back, old]);
		// A span the list has no period for bounds the search all the same; one the search cannot read is text, which no title holds.
		expect(await found("lastSeen:-3d")).toEqual([fresh, back]);
		expect(await found("lastSeen:-3x")).toEqual([]);
	});

	it("q takes Sentry's other times: a span before now (- within it, + longer ago), a date or time after an operator, a day, the minutes around a time", async ({ expect }) => {
		const now = holdClock();
		const owner = await ownerWithLogKey();
		const send = (message: string, at: number) => ingestOk(owner.rawKey, { message, timestamp: iso(at) });
		const { group_hash: recent } = await send("twenty minutes ago", now - 20 * MINUTE);
		const { group_hash: edge } = await send("exactly 90 minutes ago", now - 90 * MINUTE);
		const { group_hash: days } = await send("ten days ago", now - 10 * DAY);
		const found = async (q: string) => (await issuesOf(owner, { q })).map((i) => i.group_hash);
		const at = (ms: number) => iso(ms).replace(".000Z", "Z");
		const day = (ms: number) => iso(ms).slice(0, 10);

		// Bounds at the millisecond: the issue last seen exactly 90 minutes ago is within -90m and past +90m, not past +91m.
		expect(await found("lastSeen:-30m")).toEqual([recent]);
		expect(await found("lastSeen:-90m")).toEqual([recent, edge]);
		expect(await found("lastSeen:-89m")).toEqual([recent]);
		expect(await found("lastSeen:+90m")).toEqual([edge, days]);
		expect(await found("lastSeen:+91m")).toEqual([days]);
		expect(await found("age:+1w")).toEqual([days]);
		expect(await found("firstSeen:-2w lastSeen:+1d")).toEqual([days]);
		// A date or time after an operator, UTC unless it gives its offset.
		const edgeTime = now - 90 * MINUTE;
		expect(await found(`lastSeen:>=${at(edgeTime)}`)).toEqual([recent, edge]);
		expect(await found(`lastSeen:>${at(edgeTime)}`)).toEqual([recent]);
		expect(await found(`lastSeen:<=${at(edgeTime)}`)).toEqual([edge, days]);
		expect(await found(`lastSeen:<${at(edgeTime)}`)).toEqual([days]);
		expect(await found(`lastSeen:>=${at(edgeTime + HOUR).replace("Z", "+01:00")}`)).toEqual([recent, edge]);
		expect(await found(`lastSeen:>=${day(now - 10 * DAY)} lastSeen:<${day(now - 9 * DAY)}`)).toEqual([days]);
		// A date alone is that day; a time alone, the five minutes either side of it.
		expect(await found(`firstSeen:${day(now - 10 * DAY)}`)).toEqual([days]);
		// (from five minutes before it, to five minutes after it, not included).
		expect(await found(`lastSeen:${at(edgeTime + 5 * MINUTE)}`)).toEqual([edge]);
		expect(await found(`lastSeen:${at(edgeTime + 5 * MINUTE + 1_000)}`)).toEqual([]);
		expect(await found(`lastSeen:${at(edgeTime - 5 * MINUTE + 1_000)}`)).toEqual([edge]);
		expect(await found(`lastSeen:${at(edgeTime - 5 * MINUTE)}`)).toEqual([]);
		// What the search cannot read is text: a day of no month, an hour past 23, !, another unit.
		for (const q of ["lastSeen:2026-02-30", "lastSeen:>2026-11-01T25:00:00Z", "!lastSeen:-1d", "lastSeen:-1y", "lastSeen:>=-1d"]) expect(await found(q), q).toEqual([]);
		// A span of at most six digits, a time of at most three decimals of a second.
		expect(await found("lastSeen:-999999m")).toEqual([recent, edge, days]);
		expect(await found("lastSeen:-1000000m")).toEqual([]);
		expect(await found(`lastSeen:>=${at(edgeTime).replace("Z", ".000Z")}`)).toEqual([recent, edge]);
		expect(await found(`lastSeen:>=${at(edgeTime).replace("Z", ".0000Z")}`)).toEqual([]);
	});

	it.for(["", "2h", "24H", "90", "365d"])("period %j is a 400 naming the periods", async (period, { expect }) => {
		const owner = await ownerWithLogKey();
		const res = await listIssues(owner.token, { project_name: owner.projectName, period });
		expect(res.status).toBe(400);
		expect((await res.json<Json>()).error).toContain("period");
	});
});

describe("migration 0020", () => {
	it("events stored before count when they came if their timestamp was more than 30 days before it or after it", async ({ expect }) => {
		const migration = env.TEST_MIGRATIONS.find((m) => m.name.endsWith("_log_event_time.sql"));
		expect(withoutComments(migration?.queries[0] ?? "")).toBe(EVENT_TIME_BACKFILL);

		const owner = await ownerWithLogKey();
		const received = Date.now();
		const rows: Record<string, number> = { ahead: received + 1, now: received, month: received - 30 * DAY, behind: received - 30 * DAY - 1 };
		await env.DB.batch(
			Object.entries(rows).map(([id, timestamp]) =>
				env.DB.prepare(
					"INSERT INTO log_events (id, key_id, group_hash, received_at, timestamp, level, event) VALUES (?, ?, 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', ?, ?, 'error', '{}')",
				).bind(`${owner.keyId}-${id}`, owner.keyId, received, timestamp),
			),
		);
		await env.DB.prepare(EVENT_TIME_BACKFILL).run();
		const counted = await env.DB.prepare("SELECT id, timestamp FROM log_events WHERE key_id = ?").bind(owner.keyId).all<{ id: string; timestamp: number }>();
		expect(Object.fromEntries(counted.results.map((r) => [r.id.slice(owner.keyId.length + 1), r.timestamp]))).toEqual({
			ahead: received,
			now: received,
			month: received - 30 * DAY,
			behind: received,
		});
	});
});
