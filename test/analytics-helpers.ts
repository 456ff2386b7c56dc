import { env } from "cloudflare:workers";
import type { SiteView } from "../domain/api/sites";
import { siteUpToDate } from "../workers/sites/siteBuffer";
import { call, signUp, uniqueIp } from "./helpers";

/** A desktop Chrome, as a real visitor sends it. */
export const CHROME =
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
export const IPHONE =
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
export const FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0";
export const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
export const HEADLESS =
	"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0.0.0 Safari/537.36";

export async function createSite(token: string, body: Record<string, unknown> = { domain: "example.com" }): Promise<SiteView> {
	const res = await call("/api/sites", { method: "POST", token, json: body });
	if (res.status !== 201) throw new Error(`site creation failed: ${res.status} ${await res.text()}`);
	return res.json<SiteView>();
}

export async function patchSite(token: string, trackingId: string, patch: Record<string, unknown>) {
	const res = await call(`/api/sites/${trackingId}`, { method: "PATCH", token, json: patch });
	if (res.status !== 200) throw new Error(`site update failed: ${res.status} ${await res.text()}`);
	return res.json<SiteView>();
}

/** An owner with a site on example.com, ready to collect. */
export async function ownerWithSite(site: Record<string, unknown> = { domain: "example.com" }) {
	const owner = await signUp();
	return { ...owner, site: await createSite(owner.token, site) };
}

export interface SendInit {
	ip?: string | null;
	ua?: string | null;
	headers?: Record<string, string>;
	/** Sent as the body instead of JSON.stringify(body). */
	raw?: string;
	country?: string;
	method?: string;
}

function send(path: string, contentType: string, body: unknown, init: SendInit = {}) {
	const headers: Record<string, string> = { "content-type": contentType, ...init.headers };
	if (init.ua !== null) headers["user-agent"] = init.ua ?? CHROME;
	const ip = init.ip === null ? undefined : (init.ip ?? uniqueIp());
	const method = init.method ?? "POST";
	return call(path, {
		method,
		headers,
		ip,
		body: method === "GET" || method === "HEAD" ? undefined : (init.raw ?? JSON.stringify(body)),
		...(init.country ? { cf: { country: init.country } } : {}),
	} as RequestInit & { ip?: string });
}

/** POST /api/collect as the tracker sends it: JSON as text/plain. */
export const collect = (body: unknown, init?: SendInit) => send("/api/collect", "text/plain;charset=UTF-8", body, init);

/** POST /api/bot-crawl-ingest as a site's middleware sends it. */
export const crawlIngest = (body: unknown, init?: SendInit) => send("/api/bot-crawl-ingest", "application/json", body, init);

/** A page view on example.com. */
export const pageview = (trackingId: string, extra: Record<string, unknown> = {}) => ({
	tracking_id: trackingId,
	v: "2",
	event_name: "",
	url_host: "example.com",
	url_path: "/",
	...extra,
});

export async function getJson<T = any>(path: string, token: string): Promise<{ status: number; body: T }> {
	const res = await call(path, { token });
	return { status: res.status, body: (await res.json()) as T };
}

/**
 * Moves what the site accepted to D1, as an owner read does: this isolate's buffer (the tests and
 * the Worker they call share one isolate), then the collector's outbox.
 */
export const flushSite = (trackingId: string) => siteUpToDate(env, trackingId);

/** Stored events of a site straight from D1, oldest first (flushes the site first). */
export async function storedEvents(trackingId: string) {
	await flushSite(trackingId);
	const { results } = await env.DB.prepare("SELECT * FROM analytics_events WHERE tracking_id = ? ORDER BY ts, seq, event_id")
		.bind(trackingId)
		.all<Record<string, any>>();
	return results;
}

export async function storedVisits(trackingId: string) {
	await flushSite(trackingId);
	const { results } = await env.DB.prepare("SELECT * FROM crawler_visits WHERE tracking_id = ? ORDER BY ts, id")
		.bind(trackingId)
		.all<Record<string, any>>();
	return results;
}

/** Sends one event with `fields` and answers the stored row. */
export async function storedWith(fields: Record<string, unknown>, init: Parameters<typeof collect>[1] = {}) {
	const { site } = await ownerWithSite();
	const res = await collect({ ...pageview(site.tracking_id), ...fields }, init);
	if (res.status !== 204) throw new Error(`expected 204, got ${res.status}: ${await res.text()}`);
	const events = await storedEvents(site.tracking_id);
	if (events.length !== 1) throw new Error(`expected one stored event, got ${events.length}`);
	return events[0];
}
