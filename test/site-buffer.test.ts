import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it, vi } from "vitest";
import { readEventFields } from "../domain/analytics/event";
import { COLLECT_RATE, CRAWL_RATE } from "../domain/limits";
import type { BufferedEvent, BufferedVisit, SiteBatch, SiteCollector } from "../durable-objects/SiteCollector";
import { siteCollectorFor } from "../workers/objects";
import { admitEvent } from "../workers/sites/siteBuffer";
import { CHROME, collect, crawlIngest, flushSite, HEADLESS, ownerWithSite, pageview, patchSite, storedEvents, storedVisits } from "./analytics-helpers";
import { call, setPlan, uniqueIp } from "./helpers";

/**
 * Analytics and crawler telemetry are decided in the Worker isolate, held there for under a
 * second, and handed to the site's collector in batches; the tests share the Worker's isolate, so
 * they see its buffer as an owner read of the local runtime does.
 */

const GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";

/** A browser event as another isolate would send it. */
function bufferedEvent(extra: Partial<BufferedEvent> = {}): BufferedEvent {
	return {
		ts: Date.now(),
		ip: uniqueIp(),
		userAgent: CHROME,
		claimedHost: "example.com",
		suspicious: null,
		event: { ...readEventFields(pageview("unused")), browser: "Chrome", os: "Windows", device: "desktop", country: "" },
		...extra,
	};
}

function bufferedVisit(): BufferedVisit {
	return {
		claimedHost: "example.com",
		visit: { id: crypto.randomUUID(), ts: Date.now(), crawler: "GPTBot", urlHost: "example.com", urlPath: "/", country: "", status: 200, ua: GPTBOT, verified: false },
	};
}

/** Another isolate's batch for the site, straight to its collector. */
function receive(trackingId: string, batch: Partial<SiteBatch>) {
	return siteCollectorFor(env, trackingId).receive({ trackingId, events: [], visits: [], ...batch });
}

const countRows = (trackingId: string) =>
	env.DB.prepare(
		`SELECT (SELECT count(*) FROM analytics_events WHERE tracking_id = ?1) AS events,
			(SELECT count(*) FROM crawler_visits WHERE tracking_id = ?1) AS visits`,
	)
		.bind(trackingId)
		.first<{ events: number; visits: number }>();

describe("the isolate's buffer reaches D1", () => {
	it("an accepted event and crawler visit arrive by themselves, without an owner read", async ({ expect }) => {
		const { site } = await ownerWithSite();
		expect((await collect(pageview(site.tracking_id))).status).toBe(204);
		expect((await crawlIngest({ tracking_id: site.tracking_id, url_host: "example.com", ua: GPTBOT })).status).toBe(204);
		// Within a second to the collector, a second later to D1; the poll allows for a busy machine.
		await expect.poll(() => countRows(site.tracking_id), { timeout: 10_000, interval: 100 }).toEqual({ events: 1, visits: 1 });
	});

	it("an owner read right after the 204 includes the event", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		expect((await collect(pageview(site.tracking_id, { url_path: "/just-now" }))).status).toBe(204);
		const res = await call(`/api/sites/${site.tracking_id}/events`, { token });
		const body = (await res.json()) as { events: { url_path: string }[] };
		expect(body.events.map((e) => e.url_path)).toEqual(["/just-now"]);
	});
});

describe("an owner's change applies at once in the isolate that served it", () => {
	it("Attack Mode switched on refuses the very next suspicious request; switched off, the next is taken", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		// The isolate has the site's settings cached from this first event.
		expect((await collect(pageview(site.tracking_id), { ua: HEADLESS })).status).toBe(204);
		await patchSite(token, site.tracking_id, { attack_mode: true });
		expect((await collect(pageview(site.tracking_id), { ua: HEADLESS })).status).toBe(403);
		await patchSite(token, site.tracking_id, { attack_mode: false });
		expect((await collect(pageview(site.tracking_id), { ua: HEADLESS })).status).toBe(204);
	});

	it("a site switched off answers 404 at once, a domain change 403, a plan change 402", async ({ expect }) => {
		const { token, site, email } = await ownerWithSite();
		expect((await collect(pageview(site.tracking_id))).status).toBe(204);
		await patchSite(token, site.tracking_id, { domain: "example.org" });
		expect((await collect(pageview(site.tracking_id))).status).toBe(403);
		await patchSite(token, site.tracking_id, { domain: "example.com", active: false });
		expect((await collect(pageview(site.tracking_id))).status).toBe(404);
		await patchSite(token, site.tracking_id, { active: true });
		expect((await crawlIngest({ tracking_id: site.tracking_id, ua: GPTBOT })).status).toBe(204);
		await setPlan(email, "free", new Date(Date.now() - 1000).toISOString());
		expect((await collect(pageview(site.tracking_id))).status).toBe(402);
		expect((await crawlIngest({ tracking_id: site.tracking_id, ua: GPTBOT })).status).toBe(402);
	});

	it("a deleted site's buffered events and visits are not written, nor another isolate's batch arriving later", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		for (let i = 0; i < 3; i++) expect((await collect(pageview(site.tracking_id, { url_path: `/p${i}` }))).status).toBe(204);
		expect((await crawlIngest({ tracking_id: site.tracking_id, ua: GPTBOT })).status).toBe(204);
		expect((await call(`/api/sites/${site.tracking_id}`, { method: "DELETE", token })).status).toBe(204);
		await receive(site.tracking_id, { events: [bufferedEvent()], visits: [bufferedVisit()] });
		// Past the buffer's send and the collector's move to D1.
		await new Promise((resolve) => setTimeout(resolve, 2_500));
		expect(await countRows(site.tracking_id)).toEqual({ events: 0, visits: 0 });
		const outbox = await runInDurableObject(siteCollectorFor(env, site.tracking_id), (_: SiteCollector, state) =>
			state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM outbox").one().n,
		);
		expect(outbox).toBe(0);
	});
});

// Batches of 6,000 take a second or two alone and many times that on a loaded machine.
describe("the collector decides again when a batch arrives", { timeout: 60_000 }, () => {
	it("a batch past the site's window stores the window and drops the excess: 6,000 of 6,001 events, 6,000 of 6,001 visits", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const events = Array.from({ length: COLLECT_RATE.normal.perSite + 1 }, () => bufferedEvent());
		const visits = Array.from({ length: CRAWL_RATE.perSite + 1 }, bufferedVisit);
		await receive(site.tracking_id, { events, visits });
		expect(await storedEvents(site.tracking_id)).toHaveLength(COLLECT_RATE.normal.perSite);
		expect(await storedVisits(site.tracking_id)).toHaveLength(CRAWL_RATE.perSite);
	});

	it("counts what this isolate already sent: 10 through the isolate, then a batch of 5,991 from another stores 5,990", async ({ expect }) => {
		const { site } = await ownerWithSite();
		for (let i = 0; i < 10; i++) expect((await collect(pageview(site.tracking_id))).status).toBe(204);
		await flushSite(site.tracking_id);
		await receive(site.tracking_id, { events: Array.from({ length: COLLECT_RATE.normal.perSite - 9 }, () => bufferedEvent()) });
		expect(await storedEvents(site.tracking_id)).toHaveLength(COLLECT_RATE.normal.perSite);
	});

	it("drops what another isolate took under stale settings: Attack Mode's suspicious clients and addresses, a foreign host", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		await patchSite(token, site.tracking_id, { attack_mode: true });
		await receive(site.tracking_id, {
			events: [
				bufferedEvent({ suspicious: "headless" }),
				bufferedEvent({ ip: null }),
				bufferedEvent({ claimedHost: "evil.example" }),
				bufferedEvent({ event: { ...bufferedEvent().event, urlPath: "/kept" } }),
			],
		});
		expect((await storedEvents(site.tracking_id)).map((e) => e.url_path)).toEqual(["/kept"]);
	});

	it("an event sent twice (an owner read sends what is still on its way) is stored once", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const event = bufferedEvent();
		const visit = bufferedVisit();
		await receive(site.tracking_id, { events: [event], visits: [visit] });
		await receive(site.tracking_id, { events: [event], visits: [visit] });
		expect(await storedEvents(site.tracking_id)).toHaveLength(1);
		expect(await storedVisits(site.tracking_id)).toHaveLength(1);
	});
});

/**
 * The site's real collector behind a stub that records each batch handed to it, and fails the
 * first `failures` hand-overs.
 */
function recordingEnv(failures = 0) {
	const batches: number[] = [];
	let failed = 0;
	const recording = {
		...env,
		SITE_COLLECTOR: {
			idFromName: (name: string) => env.SITE_COLLECTOR.idFromName(name),
			get: (id: DurableObjectId) => {
				const stub = env.SITE_COLLECTOR.get(id);
				return {
					settings: (trackingId: string) => stub.settings(trackingId),
					receive: (batch: SiteBatch) => {
						batches.push(batch.events.length);
						if (failed < failures) {
							failed++;
							return Promise.reject(new Error("the collector is unreachable"));
						}
						return stub.receive(batch);
					},
				};
			},
		},
	} as unknown as Env;
	return { recording, batches };
}

/**
 * Waits out a send earlier tests scheduled: the isolate sends every site's pending batch in the
 * waitUntil of the request that scheduled it, with that request's bindings, so a test's own
 * first event must be the one that schedules the next.
 */
const afterScheduledSend = () => new Promise((resolve) => setTimeout(resolve, 600));

async function admitAll(recording: Env, ctx: ExecutionContext, trackingId: string, count: number, prefix: string) {
	for (let i = 0; i < count; i++) {
		const input = bufferedEvent();
		input.event.urlPath = `/${prefix}-${i}`;
		const outcome = await admitEvent(recording, ctx, trackingId, input, { store: true });
		if (outcome.status !== "accepted") throw new Error(`event ${i}: ${outcome.status}`);
	}
}

/*
 * A site's batch leaves at once when it reaches 500 events, else half a second after its first; a
 * hand-over that fails is tried three times, a second apart, then dropped and logged.
 */
describe("how the isolate hands batches over", () => {
	it("499 events wait for the half second; the 500th sends the batch at once", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const { recording, batches } = recordingEnv();
		await afterScheduledSend();
		const ctx = createExecutionContext();
		await admitAll(recording, ctx, site.tracking_id, 499, "a");
		expect(batches).toEqual([]);
		await waitOnExecutionContext(ctx);
		expect(batches).toEqual([499]);

		const next = createExecutionContext();
		await admitAll(recording, next, site.tracking_id, 500, "b");
		expect(batches).toEqual([499, 500]);
		await waitOnExecutionContext(next);
		expect(batches).toEqual([499, 500]);
		expect(await storedEvents(site.tracking_id)).toHaveLength(999);
	});

	it("a hand-over that fails twice is stored on the third try", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const { recording, batches } = recordingEnv(2);
		await afterScheduledSend();
		const ctx = createExecutionContext();
		await admitAll(recording, ctx, site.tracking_id, 3, "retried");
		await waitOnExecutionContext(ctx);
		expect(batches).toEqual([3, 3, 3]);
		expect((await storedEvents(site.tracking_id)).map((e) => e.url_path).sort()).toEqual(["/retried-0", "/retried-1", "/retried-2"]);
	});

	it("a hand-over that fails three times is dropped, and says so in the log", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const { recording, batches } = recordingEnv(3);
		const logged = vi.spyOn(console, "error").mockImplementation(() => {});
		await afterScheduledSend();
		try {
			const ctx = createExecutionContext();
			await admitAll(recording, ctx, site.tracking_id, 2, "dropped");
			await waitOnExecutionContext(ctx);
			expect(batches).toEqual([2, 2, 2]);
			expect(logged).toHaveBeenCalledWith(expect.stringContaining("dropped 2 analytics events and 0 crawler visits"), expect.any(Error));
		} finally {
			logged.mockRestore();
		}
		expect(await storedEvents(site.tracking_id)).toEqual([]);
	});
});
