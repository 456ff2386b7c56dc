/**
 * Each issue's activity, as Sentry's issue page lists it: what the owner did to it (resolved,
 * ignored and until what, reopened, merged others into it) and what its events did to its status
 * (a regression, an ignore that ended, an escalation). The key's object is the only writer of an
 * issue's status, so its SQLite keeps the activity beside the issue, deleted with it. The owner's
 * notes are kept apart from the rest: the newest OWNER_LIMITS.issueActivity of each, so a busy
 * issue's status changes never push a note out.
 */
import type { IssueActivity, IssueActivityView } from "../domain/api/issues";
import { OWNER_LIMITS } from "../domain/limits";

export const ACTIVITY_SCHEMA = [
	`CREATE TABLE IF NOT EXISTS group_activity (seq INTEGER PRIMARY KEY AUTOINCREMENT, hash TEXT NOT NULL, at INTEGER NOT NULL,
		kind TEXT NOT NULL, detail TEXT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS group_activity_hash ON group_activity (hash, seq)`,
];

export class IssueActivityLog {
	readonly #sql: SqlStorage;

	constructor(sql: SqlStorage) {
		this.#sql = sql;
	}

	/** Notes what happened to the issue at `at` (ms); its entries of that class past the newest kept go. Part of the change's transaction. */
	note(hash: string, at: number, { kind, ...detail }: IssueActivity): void {
		this.#sql.exec(`INSERT INTO group_activity (hash, at, kind, detail) VALUES (?, ?, ?, ?)`, hash, at, kind, JSON.stringify(detail));
		this.#trim(hash, kind === "note");
	}

	/** Deletes the issue's notes, or its other entries, past the newest OWNER_LIMITS.issueActivity. */
	#trim(hash: string, notes: boolean): void {
		const ofClass = notes ? "kind = 'note'" : "kind != 'note'";
		this.#sql.exec(
			`DELETE FROM group_activity WHERE hash = ?1 AND ${ofClass}
			 AND seq <= (SELECT seq FROM group_activity WHERE hash = ?1 AND ${ofClass} ORDER BY seq DESC LIMIT 1 OFFSET ?2)`,
			hash,
			OWNER_LIMITS.issueActivity,
		);
	}

	/** The issue's activity, newest first: at most OWNER_LIMITS.issueActivity notes and as many other entries. */
	of(hash: string): IssueActivityView[] {
		return this.#sql
			.exec<{ at: number; kind: IssueActivity["kind"]; detail: string }>(`SELECT at, kind, detail FROM group_activity WHERE hash = ? ORDER BY seq DESC`, hash)
			.toArray()
			.map(({ at, kind, detail }) => ({ kind, ...JSON.parse(detail), at: new Date(at).toISOString() }) as IssueActivityView);
	}

	/** The owner's notes on `from` become `into`'s, in their places by when they were left (a merge). */
	moveNotes(from: string, into: string): void {
		this.#sql.exec(`UPDATE group_activity SET hash = ? WHERE hash = ? AND kind = 'note'`, into, from);
		this.#trim(into, true);
	}

	/** Deletes the issue's activity (before the issue itself). */
	delete(hash: string): void {
		this.#sql.exec(`DELETE FROM group_activity WHERE hash = ?`, hash);
	}

	/** Deletes the activity of every issue last seen before `cutoff` (the clean-up; before the issues themselves). */
	deleteOfIssuesBefore(cutoff: number): void {
		this.#sql.exec(`DELETE FROM group_activity WHERE hash IN (SELECT hash FROM groups WHERE last_seen < ?)`, cutoff);
	}
}
