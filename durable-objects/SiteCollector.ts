import { DurableObject } from "cloudflare:workers";
import { type EventFields, externalHost, type StoredEvent } from "../domain/analytics/event";
import { eventInsertStatements } from "../domain/analytics/eventStore";
import { sourceOf } from "../domain/analytics/sources";
import { COLLECT_RATE, CRAWL_RATE } from "../domain/limits";
import { type StoredVisit, visitInsertStatements } from "../domain/crawl/visitStore";
import { sha256Hex } from "../domain/crypto";
import { hostMatchesDomain } from "../domain/sites/hostnames";
import { loadSiteConfig, ownerHasAccess, type SiteConfig } from "../domain/sites/siteStore";
import { EarliestAlarm } from "./earliestAlarm";
import { Outbox } from "./outbox";
import { MemoryWindows } from "./memoryWindows";

/** What the collector decided about one event; the handler turns it into the HTTP answer. */
export type SiteOutcome =
	| { status: "accepted" }
	/** No such site, or it is switched off. */
	| { status: "unknown_site" }
	/** The owner has neither Pro nor a running trial. */
	| { status: "no_access" }
	| { status: "forbidden"; reason: string }
	| { status: "rate_limited"; retryAfterSeconds: number };

export interface CollectInput {
	trackingId: string;
	/** CF-Connecting-IP as the request carried it; null when it carried none. */
	ip: string | null;
	userAgent: string;
	/** `url_host` to authorize, or null when the event omitted it. */
	claimedHost: string | null;
	/** Why Attack Mode would refuse this client, or null. */
	suspicious: string | null;
	/** A bot or excluded traffic: it counts against the rate windows but is never stored. */
	ignored: boolean;
	event: EventFields & Pick<StoredEvent, "browser" | "os" | "device" | "country">;
}

export interface CrawlInput {
	trackingId: string;
	claimedHost: string | null;
	/** Null when the User-Agent is no known AI crawler: counted, answered 204, not stored. */
	visit: Omit<StoredVisit, "id" | "trackingId" | "ts"> | null;
}

/** Settings changes arrive at once through siteChanged(); this bounds how late a plan change is seen. */
const SITE_CACHE_MS = 30_000;
/** Accepted events reach D1 within about this long, or at once when the owner reads. */
const FLUSH_DELAY_MS = 1_000;
const RETRY_DELAY_MS = 5_000;
const FLUSH_ROWS = 500;

const randomHex = () => [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");
const utcDay = (now: number) => new Date(now).toISOString().slice(0, 10);

/**
 * One object per analytics site (`idFromName(tracking_id)`): the only Durable Object call an
 * ingestion request makes. It holds the site's settings (cached from D1), its rate windows (in
 * memory only: they start over when the object restarts), the salts that turn IPs into visitor
 * hashes, and an outbox: each accepted event is appended to the object's own SQLite before the
 * 204, and an alarm moves the outbox to D1 in batched statements (docs/architecture.md#moving-rows-to-d1). Owner reads call flush() first so they see every accepted event.
 *
 * No raw IP is stored anywhere: the per-address windows are in memory only (a minute at most),
 * visitors are a hash of the IP and User-Agent under a salt that changes every UTC day; old salts
 * are deleted.
 */
export class SiteCollector extends DurableObject<Env> {
	#sql: SqlStorage;
	#windows = new MemoryWindows();
	#alarm: EarliestAlarm;
	#site: { config: SiteConfig | null; loadedAt: number } | null = null;
	#siteLoad: Promise<SiteConfig | null> | null = null;
	/** Bumped by siteChanged(), so a D1 read that raced with a change is not cached. */
	#generation = 0;
	#outbox: Outbox;
	/** Salts already read from (or written to) the object's SQLite: they never change once written. */
	#salts = new Map<string, string>();

	constructor(ctx: DurableObjectState, env: Env) {
		super(ctx, env);
		this.#sql = ctx.storage.sql;
		this.#alarm = new EarliestAlarm(ctx.storage);
		this.#outbox = new Outbox(this.#alarm, () => this.#writeBatch(), { retryMs: RETRY_DELAY_MS });
		this.#sql.exec(`CREATE TABLE IF NOT EXISTS outbox (
			seq INTEGER PRIMARY KEY AUTOINCREMENT,
			kind TEXT NOT NULL,
			dedupe TEXT UNIQUE,
			row TEXT NOT NULL)`);
		this.#sql.exec(`CREATE TABLE IF NOT EXISTS salts (name TEXT PRIMARY KEY, value TEXT NOT NULL)`);
		// The windows' hits were once rows here; they live in memory now.
		this.#sql.exec(`DROP TABLE IF EXISTS hits`);
		ctx.blockConcurrencyWhile(() => this.#alarm.load());
	}

	// ---------------------------------------------------------------------------------------------
	// Ingestion

	/** A browser event the handler has read: the site, Attack Mode, the rate windows, then the outbox. */
	async collect(input: CollectInput): Promise<SiteOutcome> {
		const now = Date.now();
		// Hashing is asynchronous, so it happens before the decisions: from the site check on,
		// nothing awaits until the event is in the outbox, which keeps the windows exact.
		const visitorId =
			input.event.visitorId ?? (input.ignored ? "" : await this.#hash(`visitor:${utcDay(now)}`, `${input.ip ?? ""}\n${input.userAgent}`));
		const site = await this.#config(input.trackingId);

		if (!site?.active) return { status: "unknown_site" };
		const refused = refuseSite(site, input.claimedHost, now);
		if (refused) return refused;
		if (site.attackMode) {
			if (!input.ip) return { status: "forbidden", reason: "Attack Mode is on: requests without a client IP are refused" };
			if (input.suspicious) return { status: "forbidden", reason: `Attack Mode is on: ${input.suspicious} user agents are refused` };
		}
		const limits = site.attackMode ? COLLECT_RATE.attack : COLLECT_RATE.normal;
		const decision = this.#windows.take(now, [
			{ name: `ip:${input.ip ?? ""}`, limit: limits.perIp, windowSeconds: COLLECT_RATE.windowSeconds },
			{ name: "site", limit: limits.perSite, windowSeconds: COLLECT_RATE.windowSeconds },
		]);
		if (!decision.allowed) return { status: "rate_limited", retryAfterSeconds: decision.retryAfterSeconds };
		if (input.ignored) return await this.#accepted(now);

		const { namedSource, ...event } = input.event;
		// Here, where the site's domain is known: an event without url_host is on the site.
		const referrerHost = externalHost(event.referrer, event.urlHost ?? site.domain);
		const row: StoredEvent = {
			...event,
			trackingId: input.trackingId,
			ts: now,
			visitorId,
			referrerHost,
			source: sourceOf(namedSource, event.referrer, referrerHost),
		};
		// The call's only SQLite write.
		this.#sql.exec(`INSERT OR IGNORE INTO outbox (kind, dedupe, row) VALUES ('event', ?, ?)`, event.eventId, JSON.stringify(row));
		return await this.#accepted(now, true);
	}

	/** A crawler visit the handler has read: the site, the site's crawler window, then the outbox. */
	async crawl(input: CrawlInput): Promise<SiteOutcome> {
		const now = Date.now();
		const site = await this.#config(input.trackingId);
		if (!site?.active) return { status: "unknown_site" };
		const refused = refuseSite(site, input.claimedHost, now);
		if (refused) return refused;
		const decision = this.#windows.take(now, [{ name: "crawl", limit: CRAWL_RATE.perSite, windowSeconds: CRAWL_RATE.windowSeconds }]);
		if (!decision.allowed) return { status: "rate_limited", retryAfterSeconds: decision.retryAfterSeconds };
		if (!input.visit) return await this.#accepted(now);

		const row: StoredVisit = { ...input.visit, id: crypto.randomUUID(), trackingId: input.trackingId, ts: now };
		this.#sql.exec(`INSERT INTO outbox (kind, dedupe, row) VALUES ('visit', NULL, ?)`, JSON.stringify(row));
		return await this.#accepted(now, true);
	}

	/** Accepted: the window hits need clearing from memory eventually, a stored row within FLUSH_DELAY_MS. */
	async #accepted(now: number, stored = false): Promise<SiteOutcome> {
		await this.#alarm.noLaterThan(stored ? now + FLUSH_DELAY_MS : now + COLLECT_RATE.windowSeconds * 1000);
		return { status: "accepted" };
	}

	// ---------------------------------------------------------------------------------------------
	// Owner side

	/** Writes every accepted event to D1 now; owner reads call this so nothing accepted is missing. */
	flush(): Promise<void> {
		return this.#outbox.flush();
	}

	/**
	 * The owner changed the site: forget the cached settings. When it was deleted, also drop what
	 * was not yet written; after this returns nothing more is written for the site.
	 */
	async siteChanged({ deleted }: { deleted: boolean }): Promise<void> {
		this.#generation++;
		this.#site = null;
		this.#siteLoad = null;
		if (!deleted) return;
		// After any flush under way, so it cannot write rows of the deleted site afterwards.
		await this.#outbox.flush().catch(() => {});
		this.#sql.exec(`DELETE FROM outbox`);
	}

	async alarm(): Promise<void> {
		this.#alarm.fired();
		await this.#outbox.flushOrRetry();
		const latestHit = this.#windows.sweep(Date.now());
		if (latestHit !== null) await this.#alarm.noLaterThan(latestHit);
	}

	// ---------------------------------------------------------------------------------------------

	async #writeBatch(): Promise<boolean> {
		const rows = this.#sql
			.exec<{ seq: number; kind: string; row: string }>(`SELECT seq, kind, row FROM outbox ORDER BY seq LIMIT ?`, FLUSH_ROWS)
			.toArray();
		if (rows.length === 0) return false;
		const events: StoredEvent[] = [];
		const visits: StoredVisit[] = [];
		for (const { kind, row } of rows) (kind === "event" ? events : visits).push(JSON.parse(row));
		// Rows leave the outbox only once D1 has them. A crash in between writes them twice,
		// which the primary keys turn into once.
		await this.env.DB.batch([...eventInsertStatements(this.env.DB, events), ...visitInsertStatements(this.env.DB, visits)]);
		this.#sql.exec(`DELETE FROM outbox WHERE seq <= ?`, rows[rows.length - 1].seq);
		return rows.length === FLUSH_ROWS;
	}

	/** The site's settings, from memory or one D1 read; never a value read before a siteChanged(). */
	async #config(trackingId: string): Promise<SiteConfig | null> {
		for (;;) {
			if (this.#site && Date.now() - this.#site.loadedAt < SITE_CACHE_MS) return this.#site.config;
			const generation = this.#generation;
			this.#siteLoad ??= loadSiteConfig(this.env, trackingId).finally(() => {
				this.#siteLoad = null;
			});
			const config = await this.#siteLoad;
			if (generation === this.#generation) {
				this.#site = { config, loadedAt: Date.now() };
				return config;
			}
		}
	}

	/** SHA-256 of `value` under the named salt; a `visitor:<day>` salt replaces the previous days'. */
	async #hash(saltName: string, value: string): Promise<string> {
		return (await sha256Hex(`${this.#salt(saltName)}\n${value}`)).slice(0, 32);
	}

	/** The named salt, from memory or the object's SQLite, created on first use. */
	#salt(name: string): string {
		const known = this.#salts.get(name);
		if (known) return known;
		let salt = this.#sql.exec<{ value: string }>(`SELECT value FROM salts WHERE name = ?`, name).toArray()[0]?.value;
		if (!salt) {
			this.#sql.exec(`INSERT OR IGNORE INTO salts (name, value) VALUES (?, ?)`, name, randomHex());
			// Only older days' salts go (ISO dates sort as text): an event that read the clock just
			// before midnight and gets here after the new day's first one must not delete its salt.
			if (name.startsWith("visitor:")) this.#sql.exec(`DELETE FROM salts WHERE name LIKE 'visitor:%' AND name < ?`, name);
			salt = this.#sql.exec<{ value: string }>(`SELECT value FROM salts WHERE name = ?`, name).one().value;
		}
		if (name.startsWith("visitor:")) {
			for (const older of this.#salts.keys()) if (older.startsWith("visitor:") && older < name) this.#salts.delete(older);
		}
		this.#salts.set(name, salt);
		return salt;
	}
}

/** Unknown or inactive site, then the owner's access, then the domain; null when the site takes the event. */
function refuseSite(site: SiteConfig | null, claimedHost: string | null, now: number): SiteOutcome | null {
	if (!site?.active) return { status: "unknown_site" };
	if (!ownerHasAccess(site, now)) return { status: "no_access" };
	if (!site.domain) return { status: "forbidden", reason: "The site has no configured domain" };
	if (claimedHost !== null && !hostMatchesDomain(claimedHost, site.domain)) {
		return { status: "forbidden", reason: "url_host is not the site's domain or a subdomain of it" };
	}
	return null;
}
