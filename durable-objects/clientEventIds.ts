/** How long an event's own id (Sentry's event_id) is remembered: an SDK's retries of one event come within it. */
const CLIENT_EVENT_ID_MS = 24 * 60 * 60 * 1000;

/** The ids senders gave the events of the last day (`client_event_ids`), so that a repeat counts once. */
export class ClientEventIds {
	readonly #sql: SqlStorage;

	constructor(sql: SqlStorage) {
		this.#sql = sql;
	}

	/** Notes the id of an event being stored; true when it was noted already (the event is a repeat). */
	isRepeat(id: string, receivedAt: number): boolean {
		return this.#sql.exec(`INSERT OR IGNORE INTO client_event_ids (id, received_at) VALUES (?, ?)`, id, receivedAt).rowsWritten === 0;
	}

	/** Forgets the ids noted more than a day before `now`. */
	sweep(now: number): void {
		this.#sql.exec(`DELETE FROM client_event_ids WHERE received_at < ?`, now - CLIENT_EVENT_ID_MS);
	}
}
