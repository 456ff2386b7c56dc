// The statistics SQLite's planner reads (sqlite_stat1), as ANALYZE would write them for a
// database of a given size, for the tests that check the plans of the app's statements.
import { env } from "cloudflare:workers";

/** [table, index, rows, then rows per distinct value of the index's leading columns] */
export type IndexStatistics = string[][];

/** Replaces the statistics of the tables `stats` names with them, and makes SQLite read them again. */
export async function describeTables(stats: IndexStatistics): Promise<void> {
	await env.DB.prepare("ANALYZE").run();
	const tables = [...new Set(stats.map(([table]) => table))];
	await env.DB.batch([
		env.DB.prepare(`DELETE FROM sqlite_stat1 WHERE tbl IN (${tables.map(() => "?").join(", ")})`).bind(...tables),
		...stats.map(([table, index, stat]) => env.DB.prepare("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?, ?, ?)").bind(table, index, stat)),
	]);
	await env.DB.prepare("ANALYZE sqlite_schema").run();
}

/** No statistics at all: a database never analyzed, the planner guessing from the indexes alone. */
export async function forgetStatistics(): Promise<void> {
	await env.DB.prepare("DELETE FROM sqlite_stat1").run();
	await env.DB.prepare("ANALYZE sqlite_schema").run();
}
