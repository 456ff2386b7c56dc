/**
 * Keeping the rollups (rollups.ts) in step with the events a flush stores, without reading them
 * back: the writer holds the recent visitor days' events in memory (loading from D1 only the days
 * it does not hold), computes what each touched day contributed before and after the new events
 * (visitorDayFacts.ts), and writes the difference as signed additions to the rollup rows, in the
 * same D1 transaction as the events.
 *
 * Exactly once: the events insert ignores ids already stored, and a day's difference counts only
 * events its day did not hold. A flush repeated after D1 committed but before the outbox forgot
 * its rows (a crash) starts from memory that has forgotten too, so it reloads those days from D1,
 * finds the events there, and adds nothing. When a write fails, whether or not D1 committed it,
 * the days it touched are forgotten for the same reason.
 *
 * The only writer of a site's events is its collector object, so what memory holds is what D1 holds
 * (the clean-up deletes only days long past, and a deleted site's collector forgets everything).
 */
import { STORED_COLUMNS, type StoredEvent } from "./event";
import { addingToRollupRows, COUNTERS, DAY_MS, HOUR_MS } from "./rollups";
import { type Contributions, type Counters, contributionKey, DAY_EVENT_KEYS, type DayEvent, SEP, splitContributionKey, visitorDayFacts } from "./visitorDayFacts";

/** At most this many events are held by default, the least recently touched days going first. */
const HELD_EVENTS = 50_000;

const DAY_EVENT_COLUMNS = STORED_COLUMNS.filter(([, key]) => (DAY_EVENT_KEYS as readonly string[]).includes(key));

/**
 * The stored events of the given visitor days (?1: a JSON array of [tracking_id, visitor_id,
 * day start]), each day one range of analytics_events_visitor_idx.
 */
export const LOAD_VISITOR_DAYS = `SELECT a.tracking_id AS trackingId, a.visitor_id AS visitorId,
		${DAY_EVENT_COLUMNS.map(([column, key]) => `a.${column} AS ${key}`).join(", ")}
	FROM json_each(?1) AS d CROSS JOIN analytics_events AS a
		ON a.tracking_id = d.value ->> 0 AND a.visitor_id = d.value ->> 1 AND a.ts >= d.value ->> 2 AND a.ts < (d.value ->> 2) + ${DAY_MS}`;

/** Signed additions to rollup rows (?1: a JSON array of [tracking_id, dim, span, start, value, ...COUNTERS]). */
export const ROLLUP_ADDITIONS = `INSERT INTO analytics_rollups (tracking_id, dim, span, start, value, ${COUNTERS.join(", ")})
	SELECT ${["tracking_id", "dim", "span", "start", "value", ...COUNTERS].map((_, i) => `value ->> ${i}`).join(", ")} FROM json_each(?1) WHERE true
	${addingToRollupRows(COUNTERS)}`;

/** Only what the facts read: a held day keeps no titles, queries or data. */
const dayEventOf = (event: StoredEvent) => Object.fromEntries(DAY_EVENT_KEYS.map((key) => [key, event[key]])) as unknown as DayEvent;

type Day = { trackingId: string; visitorId: string; start: number };
const dayKey = ({ trackingId, visitorId, start }: Day) => `${trackingId}\n${visitorId}\n${start}`;
const dayOf = (e: Pick<StoredEvent, "trackingId" | "visitorId" | "ts">): Day => ({ trackingId: e.trackingId, visitorId: e.visitorId, start: Math.floor(e.ts / DAY_MS) * DAY_MS });

/** Rows for ROLLUP_ADDITIONS, and what to do once the write's outcome is known. */
export interface RollupChanges {
	rows: unknown[][];
	settle(written: boolean): void;
}

/** The visitor days a collector holds in memory, and the rollup changes of a batch of events. */
export class VisitorDays {
	/** Day key → its stored events; Map order is recency (a touched day moves to the end). */
	#days = new Map<string, DayEvent[]>();
	#held = 0;
	readonly #maxHeld: number;

	constructor({ maxHeldEvents = HELD_EVENTS } = {}) {
		this.#maxHeld = maxHeldEvents;
	}

	/** The rollup changes `events` make once stored (each event at most once, whatever D1 already has). */
	async changes(db: D1Database, events: readonly StoredEvent[]): Promise<RollupChanges> {
		const touched = new Map<string, { day: Day; added: DayEvent[] }>();
		for (const event of events) {
			const day = dayOf(event);
			const key = dayKey(day);
			const entry = touched.get(key) ?? { day, added: [] };
			entry.added.push(dayEventOf(event));
			touched.set(key, entry);
		}
		const stored = await this.#storedEvents(db, [...touched.values()].map(({ day }) => day));

		const hourTotals = new Map<string, Counters>();
		const after = new Map<string, DayEvent[]>();
		for (const [key, { day, added }] of touched) {
			const before = stored.get(key) ?? [];
			const ids = new Set(before.map((e) => e.eventId));
			// The first of two events with one id is the one the insert keeps.
			const fresh = added.filter((e) => !ids.has(e.eventId) && ids.add(e.eventId));
			if (fresh.length === 0) {
				after.set(key, before);
				continue;
			}
			const events = [...before, ...fresh];
			after.set(key, events);
			// The facts before and after are computed here and dropped with the flush, not held:
			// held beside 48,000 events they took 29 MB of the object's 128 MB.
			addInto(hourTotals, day.trackingId, visitorDayFacts(events), 1);
			if (before.length > 0) addInto(hourTotals, day.trackingId, visitorDayFacts(before), -1);
		}
		return {
			rows: rollupRows(hourTotals),
			settle: (written) => {
				for (const [key, day] of after) {
					this.#forget(key);
					if (written) this.#hold(key, day);
				}
			},
		};
	}

	/** Forgets everything (the site was deleted). */
	clear(): void {
		this.#days.clear();
		this.#held = 0;
	}

	/** Each day's stored events: from memory, the others read from D1 in one statement. */
	async #storedEvents(db: D1Database, days: Day[]): Promise<Map<string, DayEvent[]>> {
		const found = new Map<string, DayEvent[]>();
		const missing: Day[] = [];
		for (const day of days) {
			const held = this.#days.get(dayKey(day));
			if (held) found.set(dayKey(day), held);
			else missing.push(day);
		}
		if (missing.length === 0) return found;
		const read = new Map(missing.map((day) => [dayKey(day), [] as DayEvent[]]));
		const { results } = await db
			.prepare(LOAD_VISITOR_DAYS)
			.bind(JSON.stringify(missing.map(({ trackingId, visitorId, start }) => [trackingId, visitorId, start])))
			.all<DayEvent & { trackingId: string; visitorId: string }>();
		for (const { trackingId, visitorId, ...event } of results) {
			read.get(dayKey(dayOf({ trackingId, visitorId, ts: event.ts })))?.push(event);
		}
		for (const [key, events] of read) found.set(key, events);
		return found;
	}

	#hold(key: string, events: DayEvent[]) {
		// A day too large to keep beside the others is read back each time it is touched.
		if (events.length > this.#maxHeld / 10) return;
		this.#days.set(key, events);
		this.#held += events.length;
		for (const [oldest, oldestEvents] of this.#days) {
			if (this.#held <= this.#maxHeld) break;
			this.#days.delete(oldest);
			this.#held -= oldestEvents.length;
		}
	}

	#forget(key: string) {
		const day = this.#days.get(key);
		if (!day) return;
		this.#days.delete(key);
		this.#held -= day.length;
	}
}

/**
 * Adds `sign` × a day's contributions to the hour rows' totals, keyed by the site and the
 * contribution's own key; the day rows are summed from these once, in `rollupRows`. (A JSON key
 * per contribution and span, before, made a flush's own work take twice as long: docs/benchmarks.md.)
 */
function addInto(hourTotals: Map<string, Counters>, trackingId: string, facts: Contributions, sign: 1 | -1) {
	for (const [key, counters] of facts) {
		const row = `${trackingId}${SEP}${key}`;
		let total = hourTotals.get(row);
		if (!total) {
			total = new Array(COUNTERS.length).fill(0);
			hourTotals.set(row, total);
		}
		for (let i = 0; i < counters.length; i++) total[i] += sign * counters[i];
	}
}

/**
 * ROLLUP_ADDITIONS' rows, [tracking_id, dim, span, start, value, ...COUNTERS], for the hours and
 * for the days they fall in; rows that add nothing are left out.
 */
function rollupRows(hourTotals: Map<string, Counters>): unknown[][] {
	const rows: unknown[][] = [];
	const days = new Map<string, { key: unknown[]; counters: Counters }>();
	for (const [row, counters] of hourTotals) {
		if (!addsSomething(counters)) continue;
		// A tracking id never holds the separator.
		const cut = row.indexOf(SEP);
		const trackingId = row.slice(0, cut);
		const [dim, hourStart, label] = splitContributionKey(row.slice(cut + 1));
		rows.push([trackingId, dim, HOUR_MS, hourStart, label, ...counters]);
		const dayStart = Math.floor(hourStart / DAY_MS) * DAY_MS;
		const dayKey = `${trackingId}${SEP}${contributionKey(dim, dayStart, label)}`;
		let day = days.get(dayKey);
		if (!day) {
			day = { key: [trackingId, dim, DAY_MS, dayStart, label], counters: new Array(COUNTERS.length).fill(0) };
			days.set(dayKey, day);
		}
		for (let i = 0; i < counters.length; i++) day.counters[i] += counters[i];
	}
	for (const { key, counters } of days.values()) if (addsSomething(counters)) rows.push([...key, ...counters]);
	return rows;
}

const addsSomething = (counters: Counters) => counters.some((n) => n !== 0);
