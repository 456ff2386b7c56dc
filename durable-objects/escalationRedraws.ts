/**
 * Sentry draws the limit of an issue ignored until escalating again every week: which of a
 * ProjectCollector's issues are due, and their limits drawn anew (`groups.escalation_drawn_at`).
 */
import { ESCALATION_REDRAW_MS, escalatingLimitAt } from "../domain/logs/escalation";
import type { IssueGroups } from "./projectStorage";

export class EscalationRedraws {
	readonly #sql: SqlStorage;
	readonly #groups: IssueGroups;

	constructor(sql: SqlStorage, groups: IssueGroups) {
		this.#sql = sql;
		this.#groups = groups;
	}

	/** When the limit of an issue ignored until escalating is next due to be drawn again (ms); null when none is so ignored. */
	next(): number | null {
		const { drawn } = this.#sql
			.exec<{ drawn: number | null }>(`SELECT min(coalesce(escalation_drawn_at, 0)) AS drawn FROM groups WHERE ignored_until_escalating IS NOT NULL`)
			.one();
		return drawn === null ? null : drawn + ESCALATION_REDRAW_MS;
	}

	/** The issues ignored until escalating whose limit is due to be drawn again at `now`, the longest due first, at most `limit`. */
	due(now: number, limit: number): string[] {
		return this.#sql
			.exec<{ hash: string }>(
				`SELECT hash FROM groups WHERE ignored_until_escalating IS NOT NULL AND coalesce(escalation_drawn_at, 0) <= ?
				 ORDER BY coalesce(escalation_drawn_at, 0) LIMIT ?`,
				now - ESCALATION_REDRAW_MS,
				limit,
			)
			.toArray()
			.map((r) => r.hash);
	}

	/**
	 * Draws the limit of an issue still ignored until escalating again from `hourly` (as setStatus
	 * draws it), keeping the events its current hour has counted.
	 */
	redraw(hash: string, hourly: number[], now: number): void {
		const group = this.#groups.row(hash);
		if (group?.ignored_until_escalating == null) return;
		this.#sql.exec(
			`UPDATE groups SET ignored_until_escalating = ?, escalation_drawn_at = ?, version = version + 1 WHERE hash = ?`,
			escalatingLimitAt(group.first_seen, hourly, now),
			now,
			hash,
		);
		this.#groups.drop(hash);
	}
}
