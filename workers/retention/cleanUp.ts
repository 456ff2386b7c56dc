/**
 * The scheduled clean-up (the cron trigger in wrangler.toml): deletes analytics events, identity
 * links, analytics rollups, crawler visits and their rollups, log events, their issues and tag
 * values older than their retention, source-map artifacts no event has used within the log
 * retention (with their R2 objects), chunks of sentry-cli bundles never assembled, and expired
 * sessions. Feedback is the owner's and never
 * expires.
 *
 * Every step is one bounded statement (or one Durable Object call), and the kinds take turns, so
 * a backlog of one kind never starves the others. A run stops after a fixed number of steps;
 * the next run carries on. docs/data-model.md#growth-and-retention says what each table keeps.
 */
import { deleteExpiredSessions } from "../../domain/accounts/userStore";
import { deleteExpiredEvents, deleteExpiredIdentities, deleteExpiredRollups } from "../../domain/analytics/eventStore";
import { deleteExpiredCrawlerRollups, deleteExpiredVisits } from "../../domain/crawl/visitStore";
import { CHUNK_UPLOAD, RETENTION_LIMITS } from "../../domain/limits";
import { deleteExpiredIssueTags } from "../../domain/logs/issueTags";
import { deleteExpiredLogEvents, keyWithExpiredIssues } from "../../domain/logs/logStore";
import { deleteArtifactRows, deleteChunkRows, chunkObjectKey, staleChunks, unusedArtifacts } from "../../domain/sourcemaps/artifactStore";
import { keysChanged, projectCollectorFor } from "../objects";
import { retentionDays } from "./retentionSettings";

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

interface Sweep {
	table: string;
	/** D1 statements and Durable Object calls one step makes at most. */
	cost: number;
	/** Deletes one bounded batch; `more` when another step may find more. */
	step: () => Promise<{ deleted: number; more: boolean }>;
}

/**
 * One run of the clean-up, as of `now` (the run's scheduled time, ms). Logs the rows deleted per
 * table, and `complete: false` when it stopped at its bound with expired rows possibly left.
 */
export async function cleanUp(env: Env, now: number): Promise<void> {
	const days = retentionDays(env);
	const cutoff = { analytics: now - days.analytics * DAY_MS, crawler: now - days.crawler * DAY_MS, logs: now - days.logs * DAY_MS };
	const limit = RETENTION_LIMITS.rowsPerStatement;
	const chunkCutoff = now - CHUNK_UPLOAD.pendingHours * HOUR_MS;

	const bounded = (table: string, remove: () => Promise<number>): Sweep => ({
		table,
		cost: 1,
		step: async () => {
			const deleted = await remove();
			return { deleted, more: deleted === limit };
		},
	});
	const sweeps: Sweep[] = [
		bounded("sessions", () => deleteExpiredSessions(env, now, limit)),
		bounded("analytics_events", () => deleteExpiredEvents(env, cutoff.analytics, limit)),
		bounded("analytics_identities", () => deleteExpiredIdentities(env, cutoff.analytics, limit)),
		bounded("analytics_rollups", () => deleteExpiredRollups(env, cutoff.analytics, limit)),
		bounded("crawler_visits", () => deleteExpiredVisits(env, cutoff.crawler, limit)),
		bounded("crawler_rollups", () => deleteExpiredCrawlerRollups(env, cutoff.crawler, limit)),
		bounded("log_events", () => deleteExpiredLogEvents(env, cutoff.logs, limit)),
		bounded("log_issue_tags", () => deleteExpiredIssueTags(env, cutoff.logs, limit)),
		{
			// One key at a time, oldest expired issue first: its ProjectCollector forgets the issues and
			// deletes their D1 rows, so the object's state and D1 agree.
			table: "log_issues",
			cost: 2,
			step: async () => {
				const keyId = await keyWithExpiredIssues(env, cutoff.logs);
				if (keyId === null) return { deleted: 0, more: false };
				const deleted = await projectCollectorFor(env, keyId).forgetIssuesBefore(keyId, cutoff.logs, limit);
				return { deleted, more: deleted > 0 };
			},
		},
		{
			// A release's artifacts live while its events use them: the R2 objects go, then the rows.
			table: "artifacts",
			cost: 4,
			step: async () => {
				const rows = await unusedArtifacts(env, cutoff.logs, limit);
				if (rows.length === 0) return { deleted: 0, more: false };
				await env.ARTIFACTS.delete(rows.map((row) => row.objectKey));
				const deleted = await deleteArtifactRows(env, rows);
				await keysChanged(env, [...new Set(rows.map((row) => row.keyId))]);
				return { deleted, more: rows.length === limit };
			},
		},
		{
			table: "upload_chunks",
			cost: 3,
			step: async () => {
				const rows = await staleChunks(env, chunkCutoff, limit);
				if (rows.length === 0) return { deleted: 0, more: false };
				await env.ARTIFACTS.delete(rows.map((row) => chunkObjectKey(row.keyId, row.checksum)));
				return { deleted: await deleteChunkRows(env, rows), more: rows.length === limit };
			},
		},
	];

	const deleted: Record<string, number> = Object.fromEntries(sweeps.map((s) => [s.table, 0]));
	const failed: string[] = [];
	let budget = RETENTION_LIMITS.operationsPerRun;
	// Round robin: a table with more to delete goes to the back of the queue.
	const queue = [...sweeps];
	for (let sweep = queue.shift(); sweep; sweep = queue.shift()) {
		if (sweep.cost > budget) {
			queue.unshift(sweep);
			break;
		}
		budget -= sweep.cost;
		try {
			const result = await sweep.step();
			deleted[sweep.table] += result.deleted;
			if (result.more) queue.push(sweep);
		} catch (err) {
			// The other tables still get their turns; this one is tried again next run.
			console.error(`clean-up of ${sweep.table} failed:`, err);
			failed.push(sweep.table);
		}
	}

	const complete = queue.length === 0 && failed.length === 0;
	console.log(`clean-up: ${JSON.stringify({ retentionDays: days, deleted, complete })}`);
	if (failed.length > 0) throw new Error(`clean-up failed for ${failed.join(", ")}; the next run tries again`);
}
