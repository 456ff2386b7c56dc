import { drizzle } from "drizzle-orm/d1";
import * as schema from "../schema";

/** Drizzle over the D1 binding; create one per request. */
export const database = (env: Env) => drizzle(env.DB, { schema });

/**
 * A delete of at most `?2` rows whose `column` is below `?1`, oldest first: the clean-up's
 * bounded statement. The inner SELECT walks an index on `column`; the outer DELETE finds each
 * row by rowid.
 */
export const expiredRowsDelete = (table: string, column: string, scope = "") =>
	`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${scope}${column} < ?1 ORDER BY ${column} LIMIT ?2)`;

/**
 * The same for a rollup table (analytics_rollups, crawler_rollups): rows go with the hour or day
 * they start in; such a table has no rowid (it is clustered on its key), so rows are found by it.
 */
export const expiredRollupsDelete = (table: string) => {
	const key = "tracking_id, dim, span, start, value";
	return `DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE start < ?1 ORDER BY start LIMIT ?2)`;
};

/** Runs a delete and answers how many rows it removed. */
export async function deleteRows(db: D1Database, sql: string, ...binds: unknown[]): Promise<number> {
	const { meta } = await db.prepare(sql).bind(...binds).run();
	return meta.changes;
}
