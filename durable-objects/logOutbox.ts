import { type KeyOwner, type PendingEvent, writeStatements } from "../domain/logs/logStore";
import type { LogEventCommand } from "./projectCommands";
import type { OutboxBatch } from "./outbox";
import { type GroupRow, toSnapshot } from "./projectStorage";

/** Rows moved to D1 per batch (one transaction); a flush runs batches until nothing is left. */
const FLUSH_EVENTS = 500;
const FLUSH_ISSUES = 500;

type OutboxRow = {
	seq: number;
	id: string;
	hash: string;
	received_at: number;
	timestamp: number;
	level: string;
	environment: string | null;
	release: string | null;
	event: string;
};

/**
 * A project key's accepted log events (the `outbox` table of its ProjectCollector) and the issues
 * they changed (`groups` rows past their flushed version) until D1 has them. Issues and their
 * events go in the same batch, so D1 never holds an event without its issue.
 */
export class LogOutbox {
	readonly #sql: SqlStorage;

	constructor(sql: SqlStorage) {
		this.#sql = sql;
	}

	/** Stores an accepted event; counting it into its issue is IssueGroups' part. */
	add(c: LogEventCommand): void {
		this.#sql.exec(
			`INSERT INTO outbox (id, hash, received_at, timestamp, level, environment, release, event) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			c.eventId,
			c.groupHash,
			c.receivedAt,
			c.timestamp,
			c.level,
			c.environment,
			c.release,
			c.eventJson,
		);
	}

	/** The oldest waiting events and the changed issues, as the flush's next batch. */
	nextBatch(db: D1Database, owner: KeyOwner): OutboxBatch {
		const events = this.#sql.exec<OutboxRow>(`SELECT * FROM outbox ORDER BY seq LIMIT ?`, FLUSH_EVENTS).toArray();
		const groups = this.#sql.exec<GroupRow>(`SELECT * FROM groups WHERE version > flushed_version LIMIT ?`, FLUSH_ISSUES).toArray();
		const pending: PendingEvent[] = events.map((e) => ({
			id: e.id,
			groupHash: e.hash,
			receivedAt: e.received_at,
			timestamp: e.timestamp,
			level: e.level,
			environment: e.environment,
			release: e.release,
			eventJson: e.event,
		}));
		const lastEvent = events.at(-1);
		return {
			statements: writeStatements(db, owner, pending, groups.map(toSnapshot)),
			more: events.length === FLUSH_EVENTS || groups.length === FLUSH_ISSUES,
			// Only what was written is marked: rows and changes that arrived meanwhile go next time.
			written: () => {
				if (lastEvent) this.#sql.exec(`DELETE FROM outbox WHERE seq <= ?`, lastEvent.seq);
				for (const g of groups) {
					this.#sql.exec(`UPDATE groups SET flushed_version = ? WHERE hash = ? AND flushed_version < ?`, g.version, g.hash, g.version);
				}
			},
		};
	}

	/** Whether an event or an issue's change waits for D1. */
	hasPending(): boolean {
		const { pending } = this.#sql
			.exec<{ pending: number }>(`SELECT (EXISTS (SELECT 1 FROM outbox) OR EXISTS (SELECT 1 FROM groups WHERE version > flushed_version)) AS pending`)
			.one();
		return pending === 1;
	}
}
