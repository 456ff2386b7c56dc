// An event's `timestamp`, through every endpoint that takes log events: kept as sent, the time
// received when absent or invalid, and the time received when more than 60 s ahead of it. The time
// the event counts at (the stored row's `timestamp`) is never after it was received, and is the
// time received when the one sent is more than 30 days before it.
import { afterEach, describe, it, vi } from "vitest";
import { ingest, issuesOf, ownerWithLogKey, storedEvents } from "./logHelpers";
import { eventEnvelope, nodeEvent, post, sendEnvelope, sentryProject } from "./sentryHelpers";

type Json = Record<string, any>;
type Endpoint = "app-logs-ingest" | "envelope" | "store";
const ENDPOINTS: Endpoint[] = ["app-logs-ingest", "envelope", "store"];

/**
 * Sends one event through `endpoint` with `at` as its timestamp (ISO 8601 for the svc JSON, seconds
 * for Sentry's, as its SDKs send it) and returns its D1 row (an owner read moves it there first).
 */
async function storedVia(endpoint: Endpoint, at: number): Promise<Json> {
	if (endpoint === "app-logs-ingest") {
		const owner = await ownerWithLogKey();
		const res = await ingest(owner.rawKey, { message: "m", timestamp: new Date(at).toISOString() });
		if (res.status !== 200) throw new Error(`ingest failed: ${res.status} ${await res.text()}`);
		await issuesOf(owner);
		return (await storedEvents(owner.keyId))[0];
	}
	const project = await sentryProject();
	const event = nodeEvent({ timestamp: at / 1000 });
	const res =
		endpoint === "envelope"
			? await sendEnvelope(project, eventEnvelope(event))
			: await post(`/api/${project.dsnId}/store/`, JSON.stringify(event), { headers: { "x-sentry-auth": `Sentry sentry_key=${project.rawKey}` } });
	if (res.status !== 200) throw new Error(`${endpoint} failed: ${res.status} ${await res.text()}`);
	await issuesOf(project);
	return (await storedEvents(project.keyId))[0];
}

/** Holds the clock (the Worker's too: it runs in this isolate) at a whole second, so that "ahead of the time received" is exact. */
function holdClock(): number {
	const now = Math.floor(Date.now() / 1_000) * 1_000;
	vi.useFakeTimers({ toFake: ["Date"] });
	vi.setSystemTime(now);
	return now;
}

describe("timestamp", () => {
	afterEach(() => {
		vi.useRealTimers();
	});

	it.for(ENDPOINTS)("60 s ahead of the time received is kept as sent (%s)", async (endpoint, { expect }) => {
		const now = holdClock();
		const stored = await storedVia(endpoint, now + 60_000);
		expect(stored.received_at).toBe(now);
		expect(stored.event.timestamp).toBe(new Date(now + 60_000).toISOString());
		expect(stored.event.original_timestamp).toBeUndefined();
		// It counts when it came, in the current hour, not in the minute to come.
		expect(stored.timestamp).toBe(now);
	});

	it.for(ENDPOINTS)("60.001 s ahead is replaced by the time received, the one sent kept apart (%s)", async (endpoint, { expect }) => {
		const now = holdClock();
		const stored = await storedVia(endpoint, now + 60_001);
		expect(stored.received_at).toBe(now);
		expect(stored.event.timestamp).toBe(new Date(now).toISOString());
		expect(stored.timestamp).toBe(now);
		expect(stored.event.original_timestamp).toBe(new Date(now + 60_001).toISOString());
	});

	it.for(ENDPOINTS)("30 days before the time received is kept as sent, and the event counts then (%s)", async (endpoint, { expect }) => {
		const now = holdClock();
		const at = now - 30 * 86_400_000;
		const stored = await storedVia(endpoint, at);
		expect(stored.event.timestamp).toBe(new Date(at).toISOString());
		expect(stored.timestamp).toBe(at);
		expect(stored.event.original_timestamp).toBeUndefined();
	});

	it.for(ENDPOINTS)("30 days and 1 ms before is kept as sent, and the event counts at the time received (%s)", async (endpoint, { expect }) => {
		const now = holdClock();
		const at = now - 30 * 86_400_000 - 1;
		const stored = await storedVia(endpoint, at);
		expect(stored.event.timestamp).toBe(new Date(at).toISOString());
		expect(stored.received_at).toBe(now);
		expect(stored.timestamp).toBe(now);
		expect(stored.event.original_timestamp).toBeUndefined();
	});
});

describe("a Sentry SDK's clock set wrong (the envelope's sent_at)", () => {
	afterEach(() => {
		vi.useRealTimers();
	});

	/** Sends an event dated `at` in an envelope that says it was sent at `sentAt`; its stored row. */
	async function storedWithSentAt(at: number, sentAt: unknown, event: Json = {}): Promise<Json> {
		const project = await sentryProject();
		const res = await sendEnvelope(project, eventEnvelope(nodeEvent({ timestamp: at / 1000, ...event }), { sent_at: sentAt }));
		if (res.status !== 200) throw new Error(`envelope failed: ${res.status} ${await res.text()}`);
		await issuesOf(project);
		return (await storedEvents(project.keyId))[0];
	}
	const MINUTE = 60_000;

	it("55 minutes behind: the event's time is moved by as much, the one sent kept apart", async ({ expect }) => {
		const now = holdClock();
		const stored = await storedWithSentAt(now - 55 * MINUTE - 5_000, new Date(now - 55 * MINUTE).toISOString());
		expect(stored.event.timestamp).toBe(new Date(now - 5_000).toISOString());
		expect(stored.event.original_timestamp).toBe(new Date(now - 55 * MINUTE - 5_000).toISOString());
		expect(stored.timestamp).toBe(now - 5_000);
	});

	it("its breadcrumbs' times are moved by as much, in the form they came in; one that is no time stays", async ({ expect }) => {
		const now = holdClock();
		const drift = 3 * 60 * MINUTE;
		const crumbAt = now - drift - 20_000;
		const breadcrumbs = [
			{ timestamp: crumbAt / 1000, message: "seconds" },
			{ timestamp: new Date(crumbAt).toISOString(), message: "ISO" },
			{ timestamp: "a while ago", message: "no time" },
		];
		const stored = await storedWithSentAt(now - drift - 5_000, new Date(now - drift).toISOString(), { breadcrumbs });
		expect(stored.event.breadcrumbs.map((b: Json) => b.timestamp)).toEqual([(now - 20_000) / 1000, new Date(now - 20_000).toISOString(), "a while ago"]);
		// Without a clock to correct, they stay as sent.
		const kept = await storedWithSentAt(crumbAt + 15_000, new Date(now).toISOString(), { breadcrumbs });
		expect(kept.event.breadcrumbs.map((b: Json) => b.timestamp)).toEqual([crumbAt / 1000, new Date(crumbAt).toISOString(), "a while ago"]);
	});

	it("a millisecond less than 55 minutes is the envelope's way here: kept as sent", async ({ expect }) => {
		const now = holdClock();
		const at = now - 55 * MINUTE + 1 - 5_000;
		const stored = await storedWithSentAt(at, new Date(now - 55 * MINUTE + 1).toISOString());
		expect(stored.event.timestamp).toBe(new Date(at).toISOString());
		expect(stored.event.original_timestamp).toBeUndefined();
	});

	it("two hours ahead: moved back by as much, rather than replaced by the time received", async ({ expect }) => {
		const now = holdClock();
		const stored = await storedWithSentAt(now + 2 * 60 * MINUTE - 30 * MINUTE, new Date(now + 2 * 60 * MINUTE).toISOString());
		expect(stored.event.timestamp).toBe(new Date(now - 30 * MINUTE).toISOString());
		expect(stored.event.original_timestamp).toBe(new Date(now + 90 * MINUTE).toISOString());
		expect(stored.timestamp).toBe(now - 30 * MINUTE);
	});

	it.for([["not a time"], [12345], [null], [{}]])("a sent_at of %j corrects nothing", async ([sentAt], { expect }) => {
		const now = holdClock();
		const at = now - 3 * 60 * MINUTE;
		const stored = await storedWithSentAt(at, sentAt);
		expect(stored.event.timestamp).toBe(new Date(at).toISOString());
		expect(stored.event.original_timestamp).toBeUndefined();
	});
});
