import { DAY_MS } from "../domain/analytics/rollups";
import { type LogOutcomeName, noOutcomes, type OutcomeCounts } from "../domain/api/logOutcomes";
import { OWNER_LIMITS } from "../domain/limits";
import type { LogOutcome } from "./projectCommands";

/**
 * What became of the log events a key received, counted per UTC day as Sentry's project stats
 * count them (docs/api.md#log-outcomes). Counted in memory as each call is answered and stored
 * by `write`, which the object calls once per batch of calls: one statement for the batch, not
 * one per event. Counts an object that restarts before its `write` forgets are those of calls
 * whose answers had not left. Days older than the API reads are deleted as the days go by, so
 * the table holds at most `OWNER_LIMITS.logOutcomeDays` rows per outcome.
 */
export class LogOutcomes {
	readonly #sql: SqlStorage;
	/** Counted and not yet stored, by `day outcome`. */
	#unwritten = new Map<string, number>();
	/** Days before this one are gone from the table. */
	#keptFrom = 0;

	constructor(sql: SqlStorage) {
		this.#sql = sql;
		sql.exec(`CREATE TABLE IF NOT EXISTS log_outcomes (day INTEGER NOT NULL, outcome TEXT NOT NULL, count INTEGER NOT NULL,
			PRIMARY KEY (day, outcome)) WITHOUT ROWID`);
	}

	count(outcome: LogOutcomeName, at: number, events = 1): void {
		const key = `${Math.floor(at / DAY_MS)} ${outcome}`;
		this.#unwritten.set(key, (this.#unwritten.get(key) ?? 0) + events);
	}

	/** Counts events of a call answered outside a batch, and stores them at once. */
	store(outcome: LogOutcomeName, events = 1): void {
		const now = Date.now();
		this.count(outcome, now, events);
		this.write(now);
	}

	write(now = Date.now()): void {
		if (this.#unwritten.size > 0) {
			const rows = [...this.#unwritten].map(([key, n]) => [...key.split(" "), n]);
			this.#unwritten = new Map();
			this.#sql.exec(
				`INSERT INTO log_outcomes (day, outcome, count) SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?) WHERE true
				ON CONFLICT (day, outcome) DO UPDATE SET count = count + excluded.count`,
				JSON.stringify(rows),
			);
		}
		const keepFrom = Math.floor(now / DAY_MS) - OWNER_LIMITS.logOutcomeDays + 1;
		if (keepFrom > this.#keptFrom) {
			this.#sql.exec(`DELETE FROM log_outcomes WHERE day < ?`, keepFrom);
			this.#keptFrom = keepFrom;
		}
	}

	/** The last `days` UTC days to today, oldest first, each with every outcome's count (0 when none). */
	recent(days: number, now = Date.now()): Array<{ day: number } & OutcomeCounts> {
		this.write(now);
		const today = Math.floor(now / DAY_MS);
		const rows = this.#sql.exec<{ day: number; outcome: string; count: number }>(`SELECT day, outcome, count FROM log_outcomes WHERE day > ?`, today - days).toArray();
		return Array.from({ length: days }, (_, i) => {
			const day = today - days + 1 + i;
			const counts = noOutcomes();
			for (const row of rows) if (row.day === day && row.outcome in counts) counts[row.outcome as LogOutcomeName] = row.count;
			return { day, ...counts };
		});
	}
}

/**
 * What the object's answer to a log event counts as; null for none: a repeat of a stored event, or
 * a step of the exchange with the Worker (source maps changed, the previous hash asked for). Once
 * the key is admitted, a 429 is a window's, a 403 the issue cap's, and any other refusal the
 * event's own (400, 413).
 */
export function countedAs(answer: LogOutcome): LogOutcomeName | null {
	if (answer.status === "accepted") return answer.repeat ? null : "accepted";
	if (answer.status !== "refused") return null;
	const { status } = answer.refusal;
	return status === 429 ? "rate_limited" : status === 403 ? "over_issue_cap" : "invalid";
}
