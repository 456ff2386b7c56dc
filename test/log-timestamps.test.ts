// An event's `timestamp`, through every endpoint that takes log events: kept as sent, the time
// received when absent or invalid, and the time received when more than 60 s ahead of it.
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
		expect(stored.timestamp).toBe(now + 60_000);
		expect(stored.event.original_timestamp).toBeUndefined();
	});

	it.for(ENDPOINTS)("60.001 s ahead is replaced by the time received, the one sent kept apart (%s)", async (endpoint, { expect }) => {
		const now = holdClock();
		const stored = await storedVia(endpoint, now + 60_001);
		expect(stored.received_at).toBe(now);
		expect(stored.event.timestamp).toBe(new Date(now).toISOString());
		expect(stored.timestamp).toBe(now);
		expect(stored.event.original_timestamp).toBe(new Date(now + 60_001).toISOString());
	});

	it.for(ENDPOINTS)("one a year in the past is kept as sent (%s)", async (endpoint, { expect }) => {
		const at = Date.now() - 365 * 86_400_000;
		const stored = await storedVia(endpoint, at);
		expect(stored.event.timestamp).toBe(new Date(at).toISOString());
		expect(stored.timestamp).toBe(at);
		expect(stored.event.original_timestamp).toBeUndefined();
	});
});
