/** A statistics request's time range and how its figures are bucketed and bound. */

export interface StatsRange {
	from: number;
	to: number;
	/** Series bucket: an hour for ranges up to three days, else a (UTC) day. */
	bucketMs: number;
	/** Rows per breakdown list. */
	limit: number;
}

/**
 * Breakdown values the dashboard narrows to: only events matching every one given count. An
 * empty column matches "Unknown", as the breakdowns label it.
 */
export interface StatsFilters {
	page?: string;
	referrer?: string;
	country?: string;
	browser?: string;
	os?: string;
	device?: string;
}

export const STATS_FILTERS = ["page", "referrer", "country", "browser", "os", "device"] as const satisfies ReadonlyArray<keyof StatsFilters>;

/** Every bucket start of the range, so a chart gets zeros where nothing happened. */
function bucketStarts({ from, to, bucketMs }: StatsRange): number[] {
	const starts: number[] = [];
	for (let t = Math.floor(from / bucketMs) * bucketMs; t < to; t += bucketMs) starts.push(t);
	return starts;
}

/** Fills a series from rows keyed by bucket start. */
export function fillSeries<T extends object>(range: StatsRange, rows: Array<{ t: number } & T>, zero: T): Array<{ t: string } & T> {
	const byStart = new Map(rows.map((row) => [row.t, row]));
	return bucketStarts(range).map((t) => {
		const { t: _, ...values } = (byStart.get(t) ?? { t, ...zero }) as { t: number } & T;
		return { t: new Date(t).toISOString(), ...(values as T) };
	});
}

/**
 * Binds ?1-?3 (site and range), ?4 (list limit) and ?5 on (`more`) up to the highest number the
 * statement uses: SQLite refuses extra bindings.
 */
function bindRange(statement: D1PreparedStatement, sql: string, values: unknown[]) {
	const highest = Math.max(3, ...Array.from(sql.matchAll(/\?(\d+)/g), (match) => Number(match[1])));
	return statement.bind(...values.slice(0, highest));
}

/** Runs named statistics queries in one D1 batch (one round trip) and answers their rows by name. */
export async function runRangeQueries<Q extends Record<string, string>>(env: Env, queries: Q, trackingId: string, range: StatsRange, more: unknown[] = []) {
	const names = Object.keys(queries) as Array<keyof Q & string>;
	const values = [trackingId, range.from, range.to, range.limit, ...more];
	const results = await env.DB.batch(names.map((name) => bindRange(env.DB.prepare(queries[name]), queries[name], values)));
	// biome-ignore lint/suspicious/noExplicitAny: rows carry the columns each caller's own SQL selects
	return Object.fromEntries(names.map((name, i) => [name, results[i].results])) as Record<keyof Q, any[]>;
}
