/** A statistics request's time range and how its figures are bucketed and bound. */
import { seriesBucketStarts } from "../api/sites";

/** The rows of one site in the range: ?1 the site, ?2 from (inclusive), ?3 to (exclusive); served by the (tracking_id, ts) index. */
export const RANGE = `tracking_id = ?1 AND ts >= ?2 AND ts < ?3`;

/** The label of visits that came from no source at all (`source=Direct / None` filters them). */
export const DIRECT = "Direct / None";

/** A text column as the breakdowns show it: "" is "Unknown". */
export const label = (column: string) => `coalesce(nullif(${column}, ''), 'Unknown')`;

/**
 * The members of an event's `data` as json_each rows (key, value, type): none when it is not a JSON
 * object, rather than failing the statement (the nested CASE keeps json_type away from invalid
 * JSON). Properties are the rows that are one (IS_PROPERTY).
 */
export const propertiesOf = (data: string) =>
	`json_each(coalesce(CASE WHEN json_valid(${data}) THEN CASE WHEN json_type(${data}) = 'object' THEN ${data} END END, '{}'))`;

/**
 * Which of propertiesOf's rows, named `p`, are properties: the members with a value to show and to
 * filter on. Not an object or an array (no one value), nor a JSON null (no value at all; a
 * `{plan: null}` says the event has no plan, as Plausible drops a property set to null).
 */
export const IS_PROPERTY = "p.type NOT IN ('object', 'array', 'null')";

export interface StatsRange {
	from: number;
	to: number;
	/** Series bucket: an hour for ranges up to three days, else a (UTC) day. */
	bucketMs: number;
	/** Rows per breakdown list. */
	limit: number;
}

/**
 * Fills a series from rows keyed by bucket start: every bucket of the range, zeros where nothing
 * happened, but for those that start after `now`, which are left out:
 * hours still to come have counted nothing yet, and a zero there would chart as a drop.
 */
export function fillSeries<T extends object>(range: StatsRange, rows: Array<{ t: number } & T>, zero: T, now: number): Array<{ t: string } & T> {
	const byStart = new Map(rows.map((row) => [row.t, row]));
	return seriesBucketStarts(range.from, range.to, range.bucketMs).filter((t) => t <= now).map((t) => {
		const { t: _, ...values } = (byStart.get(t) ?? { t, ...zero }) as { t: number } & T;
		return { t: new Date(t).toISOString(), ...(values as T) };
	});
}

/** A statement and its values, in the order of its numbered parameters ?1, ?2... */
export interface BoundQuery {
	sql: string;
	params: unknown[];
}

/** The highest ?N a statement uses: SQLite refuses more bound values than that. */
const highestParam = (sql: string) => Math.max(0, ...[...sql.matchAll(/\?(\d+)/g)].map((m) => Number(m[1])));

/** Runs named queries in one D1 batch (one round trip) and answers their rows by name. */
export async function runQueries<Q extends Record<string, BoundQuery>>(env: Env, queries: Q) {
	const names = Object.keys(queries) as Array<keyof Q & string>;
	const results = await env.DB.batch(
		names.map((name) => {
			const { sql, params } = queries[name];
			return env.DB.prepare(sql).bind(...params.slice(0, highestParam(sql)));
		}),
	);
	// biome-ignore lint/suspicious/noExplicitAny: rows carry the columns each caller's own SQL selects
	return Object.fromEntries(names.map((name, i) => [name, results[i].results])) as Record<keyof Q, any[]>;
}

/** The site and range as ?1-?3 and the list limit as ?4, then `extra` from ?5 on. */
export const rangeParams = (trackingId: string, range: StatsRange, extra: unknown[] = []) => [trackingId, range.from, range.to, range.limit, ...extra];

/** Named statements that take the same values (?1, ?2... as far as each uses them), for runQueries. */
export const withParams = <Q extends Record<string, string>>(queries: Q, params: unknown[]) =>
	Object.fromEntries(Object.entries(queries).map(([name, sql]) => [name, { sql, params }])) as Record<keyof Q, BoundQuery>;
