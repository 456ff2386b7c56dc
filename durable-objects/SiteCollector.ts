import { DurableObject } from "cloudflare:workers";
import { type EventFields, externalHost, type StoredEvent } from "../domain/analytics/event";
import { eventWrites } from "../domain/analytics/eventStore";
import { VisitorDays } from "../domain/analytics/rollupWriter";
import { sourceOf } from "../domain/analytics/sources";
import { type StoredVisit, visitInsertStatements } from "../domain/crawl/visitStore";
import { randomSecret, sha256Hex } from "../domain/crypto";
import { jsonArraysOf } from "../domain/jsonRows";
import type { RateWindow } from "../domain/limits";
import { MemoryWindows } from "../domain/memoryWindows";
import { type ClientFacts, collectSiteWindow, crawlWindow, refusal } from "../domain/sites/siteRules";
import { loadSiteConfig, type SiteConfig } from "../domain/sites/siteStore";
import { EarliestAlarm } from "./earliestAlarm";
import { Outbox } from "./outbox";

/** A browser event a Worker isolate accepted, as it travels to the site's collector. */
export interface BufferedEvent extends ClientFacts {
	/** When the isolate accepted it: the event's stored time. */
	ts: number;
	/** Hashed with the IP into the visitor id, then forgotten. */
	userAgent: string;
	/** `url_host` to authorize, or null when the event omitted it. */
	claimedHost: string | null;
	event: EventFields & Pick<StoredEvent, "browser" | "os" | "device" | "country">;
}

/** A known AI crawler's visit a Worker isolate accepted. */
export interface BufferedVisit {
	claimedHost: string | null;
	visit: Omit<StoredVisit, "trackingId">;
}

/** What one isolate accepted for one site since its last batch: one call carries it. */
export interface SiteBatch {
	trackingId: string;
	events: BufferedEvent[];
	visits: BufferedVisit[];
}

/** Settings changes arrive at once through siteChanged(); this bounds how late a plan change is seen. */
const SITE_CACHE_MS = 30_000;
/** Accepted events reach D1 within about this long, or at once when the owner reads. */
const FLUSH_DELAY_MS = 1_000;
const RETRY_DELAY_MS = 5_000;
const FLUSH_ROWS = 500;

const utcDay = (now: number) => new Date(now).toISOString().slice(0, 10);

/**
 * One object per analytics site (`idFromName(tracking_id)`). Worker isolates decide each event
 * themselves and hand this object what they accepted in batches, one call per site per batch
 * (workers/sites/siteBuffer.ts). It holds the site's settings (cached from D1, told at once of
 * every change, and lent to the isolates), the site's own windows (in memory only: they start
 * over when the object restarts), the salts that turn IPs into visitor hashes, and an outbox:
 * each batch is appended to the object's own SQLite, and an alarm moves the outbox to D1 in
 * batched statements (docs/architecture.md#moving-rows-to-d1). Owner reads call flush() first so
 * they see every event that arrived.
 *
 * No raw IP is stored anywhere: an event's IP reaches this object only to be hashed with its
 * User-Agent under a salt that changes every UTC day (old salts are deleted).
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
	/** Recent visitors' days of events, so a flush computes its rollup changes without reading them back. */
	#visitorDays = new VisitorDays();

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

	/** The site's settings, for an isolate that decides on its own until they change. */
	settings(trackingId: string): Promise<SiteConfig | null> {
		return this.#config(trackingId);
	}

	/**
	 * A batch an isolate accepted: each event or visit is checked again against the settings held
	 * here and the site's own window (so a stale isolate or a flood spread over isolates stores no
	 * more than the site takes), and what passes goes to the outbox. Answers the current settings,
	 * which the isolate caches.
	 */
	async receive(batch: SiteBatch): Promise<{ settings: SiteConfig | null }> {
		const { trackingId } = batch;
		// Hashing is asynchronous, so it happens first: from the settings on nothing awaits until
		// the rows are in the outbox, so the window stays exact and a siteChanged() comes before
		// or after the whole batch. Every stored visitor id is a hash: a daily one of the address
		// and browser, or a lasting one of the id the client sent (an id it chose, maybe an email,
		// is never stored as sent). So every id is 32 hex digits, spread evenly, which the
		// statistics' sample relies on.
		const day = utcDay(Date.now());
		const visitorIds = await Promise.all(
			batch.events.map(({ event, ip, userAgent }) =>
				event.visitorId === null ? this.#hash(`visitor:${day}`, `${ip ?? ""}\n${userAgent}`) : this.#hash("client-visitor", event.visitorId),
			),
		);
		const site = await this.#config(trackingId);
		if (!site?.active) return { settings: site };
		const now = Date.now();
		const take = (window: RateWindow) => this.#windows.take(now, [window]).allowed;
		/** [kind, dedupe, row] of each event and visit that passes, appended to the outbox together below. */
		const passed: Array<[kind: "event" | "visit", dedupe: string, row: StoredEvent | StoredVisit]> = [];
		batch.events.forEach((input, i) => {
			if (refusal(site, input.claimedHost, input, now) || !take(collectSiteWindow(trackingId, site))) return;
			const { namedSource, ...event } = input.event;
			// Here, where the site's domain is known: an event without url_host is on the site.
			const referrerHost = externalHost(event.referrer, event.urlHost ?? site.domain);
			const row: StoredEvent = {
				...event,
				trackingId,
				ts: input.ts,
				visitorId: visitorIds[i],
				referrerHost,
				source: sourceOf(namedSource, event.referrer, referrerHost),
			};
			passed.push(["event", event.eventId, row]);
		});
		for (const { claimedHost, visit } of batch.visits) {
			if (refusal(site, claimedHost, null, now) || !take(crawlWindow(trackingId))) continue;
			passed.push(["visit", `visit:${visit.id}`, { ...visit, trackingId }]);
		}
		if (passed.length === 0) return { settings: site };
		// An owner read may send a batch again while it is on its way: the ids make each row once.
		// A statement per ~1 MB of rows, not per row: each statement is a call into SQLite.
		for (const rows of jsonArraysOf(passed)) {
			this.#sql.exec(`INSERT OR IGNORE INTO outbox (kind, dedupe, row) SELECT value ->> 0, value ->> 1, value -> 2 FROM json_each(?)`, rows);
		}
		// The alarm moves the rows to D1, and clears the window hits from memory afterwards.
		await this.#alarm.noLaterThan(now + FLUSH_DELAY_MS);
		return { settings: site };
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
		this.#visitorDays.clear();
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
		const eventWrite = await eventWrites(this.env.DB, events, this.#visitorDays);
		try {
			await this.env.DB.batch([...eventWrite.statements, ...visitInsertStatements(this.env.DB, visits)]);
		} catch (err) {
			eventWrite.settle(false);
			throw err;
		}
		eventWrite.settle(true);
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
			this.#sql.exec(`INSERT OR IGNORE INTO salts (name, value) VALUES (?, ?)`, name, randomSecret());
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
