import type { BufferedEvent, BufferedVisit, SiteBatch } from "../../durable-objects/SiteCollector";
import type { RateWindow } from "../../domain/limits";
import { MemoryWindows } from "../../domain/memoryWindows";
import { collectWindows, crawlWindow, refusal, type SiteOutcome } from "../../domain/sites/siteRules";
import { noteRefusedHost, type SiteConfig } from "../../domain/sites/siteStore";
import { siteCollectorFor } from "../objects";

/**
 * Browser analytics and crawler telemetry are decided in the Worker isolate and answered before
 * they are stored (docs/architecture.md#buffering-in-the-isolate): the isolate keeps each site's
 * settings and rate windows, holds what it accepted in memory, and hands it to the site's
 * SiteCollector in batches, one call per site per batch.
 *
 * In workerd a request cannot wait on I/O another request started, so one request's waitUntil
 * sends a batch and the others only add plain data to it; an owner read sends what its isolate
 * holds for the site itself, including batches still on their way (the collector makes them once).
 */

/** How long an accepted event waits in the isolate: what a crash of the isolate can lose. */
const BUFFER_MS = 500;
/** A site's batch leaves at once when it holds this many events and visits. */
const BATCH_MAX = 500;
/** A failed hand-over is tried again this often, this long apart, then dropped (and logged). */
const SEND_ATTEMPTS = 3;
const SEND_RETRY_MS = 1_000;
/**
 * How long cached settings are used: an owner's change applies at once in the isolate that served
 * it, in others with their next batch's answer or within this long.
 */
const SETTINGS_TTL_MS = 5_000;
const SETTINGS_ENTRIES = 10_000;
/** A site's refused hosts are noted (one database write) at most this often per isolate. */
const REFUSAL_NOTE_MS = 60_000;
/** Expired window hits are dropped at most this often. */
const SWEEP_MS = 10_000;
/** A scheduled send that has not run by this long after it was due (its request was cut short) is scheduled again. */
const SEND_OVERDUE_MS = 5_000;

const settingsCache = new Map<string, { config: SiteConfig | null; loadedAt: number }>();
/** Bumped by every owner change served here, so settings fetched before it are not cached. */
let generation = 0;
/** Per-client and per-site windows of every site this isolate serves; the client IP is held here for the minute its hits count. */
const windows = new MemoryWindows();
let sweptAt = 0;
/** What the isolate accepted and has not sent yet, by site. */
const pending = new Map<string, SiteBatch>();
/** Batches sent and not yet confirmed. */
const inFlight = new Set<SiteBatch>();
/** When the scheduled send of the pending batches is due, or null when none is scheduled. */
let sendDueAt: number | null = null;
/** When this isolate last noted a refused host, by site. */
const refusalNotedAt = new Map<string, number>();

/** A browser event the handler has read: the site's decision, and when accepted and stored, the buffer. */
export async function admitEvent(
	env: Env,
	ctx: ExecutionContext,
	trackingId: string,
	input: BufferedEvent,
	{ store }: { store: boolean },
): Promise<SiteOutcome> {
	const now = Date.now();
	const site = await siteSettings(env, trackingId);
	const refused = refusal(site, input.claimedHost, input, now);
	if (refused) noteOutsideHost(env, ctx, trackingId, refused, now);
	if (refused || !site) return refused ?? { status: "unknown_site" };
	const decision = take(now, collectWindows(trackingId, site, input.ip));
	if (!decision.allowed) return { status: "rate_limited", retryAfterSeconds: decision.retryAfterSeconds };
	if (store) add(env, ctx, trackingId, (batch) => batch.events.push(input));
	return { status: "accepted" };
}

/** A crawler visit the handler has read; a User-Agent that is no known AI crawler is counted, not stored. */
export async function admitVisit(
	env: Env,
	ctx: ExecutionContext,
	trackingId: string,
	input: { claimedHost: string | null; visit: BufferedVisit["visit"] | null },
): Promise<SiteOutcome> {
	const now = Date.now();
	const refused = refusal(await siteSettings(env, trackingId), input.claimedHost, null, now);
	if (refused) {
		noteOutsideHost(env, ctx, trackingId, refused, now);
		return refused;
	}
	const decision = take(now, [crawlWindow(trackingId)]);
	if (!decision.allowed) return { status: "rate_limited", retryAfterSeconds: decision.retryAfterSeconds };
	const { claimedHost, visit } = input;
	if (visit) add(env, ctx, trackingId, (batch) => batch.visits.push({ claimedHost, visit }));
	return { status: "accepted" };
}

/**
 * A page view or visit refused as from outside the site's domain: the site keeps the host, so the
 * owner sees where a tag counts nothing (a staging host, a second domain). Once a minute per site
 * here at most, after the answer.
 */
function noteOutsideHost(env: Env, ctx: ExecutionContext, trackingId: string, outcome: SiteOutcome, now: number): void {
	if (outcome.status !== "forbidden" || outcome.outsideHost === undefined) return;
	const noted = refusalNotedAt.get(trackingId);
	if (noted !== undefined && now - noted < REFUSAL_NOTE_MS) return;
	refusalNotedAt.delete(trackingId);
	if (refusalNotedAt.size >= SETTINGS_ENTRIES) refusalNotedAt.delete(refusalNotedAt.keys().next().value as string);
	refusalNotedAt.set(trackingId, now);
	ctx.waitUntil(noteRefusedHost(env, trackingId, outcome.outsideHost, now).catch((err) => console.error("could not note a refused host:", err)));
}

/** Hands the site's collector everything this isolate accepted for it, and waits for that. */
async function sendBuffered(env: Env, trackingId: string): Promise<void> {
	const batch = takePending(trackingId) ?? { trackingId, events: [], visits: [] };
	// Sent by another request and not confirmed yet: that request's call cannot be waited on here.
	for (const sent of inFlight) {
		if (sent.trackingId !== trackingId) continue;
		batch.events.push(...sent.events);
		batch.visits.push(...sent.visits);
	}
	if (batch.events.length + batch.visits.length > 0) await send(env, batch);
}

/**
 * Owner reads: every event accepted for the site so far is in D1, from this isolate's buffer and
 * the collector's outbox alike (other isolates' buffers arrive within a second).
 */
export async function siteUpToDate(env: Env, trackingId: string): Promise<void> {
	await sendBuffered(env, trackingId);
	await siteCollectorFor(env, trackingId).flush();
}

/**
 * The owner changed the site in this isolate: its settings are fetched again on the next event;
 * when it was deleted, what was accepted for it and not yet sent is dropped.
 */
export function siteChangedHere(trackingId: string, { deleted }: { deleted: boolean }): void {
	generation++;
	settingsCache.delete(trackingId);
	// A new domain clears the refused host: the next refusal is noted at once.
	refusalNotedAt.delete(trackingId);
	if (deleted) pending.delete(trackingId);
}

// ---------------------------------------------------------------------------------------------

function take(now: number, rateWindows: RateWindow[]) {
	if (now - sweptAt >= SWEEP_MS) {
		sweptAt = now;
		windows.sweep(now);
	}
	return windows.take(now, rateWindows);
}

/** Cached settings, else the collector's (one call). Concurrent first requests each ask: none waits on another's call. */
async function siteSettings(env: Env, trackingId: string): Promise<SiteConfig | null> {
	const cached = settingsCache.get(trackingId);
	if (cached && Date.now() - cached.loadedAt < SETTINGS_TTL_MS) return cached.config;
	const asOf = generation;
	const askedAt = Date.now();
	const config = await siteCollectorFor(env, trackingId).settings(trackingId);
	remember(trackingId, config, askedAt, asOf);
	return config;
}

function remember(trackingId: string, config: SiteConfig | null, askedAt: number, asOf: number): void {
	if (asOf !== generation) return;
	settingsCache.delete(trackingId);
	if (settingsCache.size >= SETTINGS_ENTRIES) settingsCache.delete(settingsCache.keys().next().value as string);
	settingsCache.set(trackingId, { config, loadedAt: askedAt });
}

/** Adds to the site's pending batch; the first addition after a send schedules the next one in this request's waitUntil. */
function add(env: Env, ctx: ExecutionContext, trackingId: string, push: (batch: SiteBatch) => void): void {
	let batch = pending.get(trackingId);
	if (!batch) {
		batch = { trackingId, events: [], visits: [] };
		pending.set(trackingId, batch);
	}
	push(batch);
	if (batch.events.length + batch.visits.length >= BATCH_MAX) {
		pending.delete(trackingId);
		ctx.waitUntil(send(env, batch));
	} else if (sendDueAt === null || Date.now() > sendDueAt + SEND_OVERDUE_MS) {
		sendDueAt = Date.now() + BUFFER_MS;
		ctx.waitUntil(sendPendingAfter(env, BUFFER_MS));
	}
}

async function sendPendingAfter(env: Env, ms: number): Promise<void> {
	await new Promise((resolve) => setTimeout(resolve, ms));
	sendDueAt = null;
	const batches = [...pending.values()];
	pending.clear();
	await Promise.all(batches.map((batch) => send(env, batch)));
}

function takePending(trackingId: string): SiteBatch | undefined {
	const batch = pending.get(trackingId);
	pending.delete(trackingId);
	return batch;
}

/** One call to the site's collector, tried again on failure; its answer refreshes the cached settings. */
async function send(env: Env, batch: SiteBatch): Promise<void> {
	inFlight.add(batch);
	try {
		for (let attempt = 1; ; attempt++) {
			const asOf = generation;
			const askedAt = Date.now();
			try {
				const { settings } = await siteCollectorFor(env, batch.trackingId).receive(batch);
				remember(batch.trackingId, settings, askedAt, asOf);
				return;
			} catch (err) {
				if (attempt >= SEND_ATTEMPTS) {
					console.error(`dropped ${batch.events.length} analytics events and ${batch.visits.length} crawler visits: the site's collector refused them:`, err);
					return;
				}
				await new Promise((resolve) => setTimeout(resolve, SEND_RETRY_MS));
			}
		}
	} finally {
		inFlight.delete(batch);
	}
}
