/**
 * A ProjectCollector's accepted log events on their way to D1 (`outbox`), with the issues they
 * changed: one batch of each per D1 transaction (docs/architecture.md#moving-rows-to-d1). Each
 * event also counts into its issue's figures in its environment (log_issue_environments), with
 * the affected user it adds there, which the object decides from `group_environment_users`.
 */
import { HOUR_MS } from "../domain/analytics/rollups";
import { ESCALATION_HOURS } from "../domain/logs/escalation";
import { type SeededUser, takeSeededUsers } from "../domain/logs/issueEnvironments";
import { type KeyOwner, type PendingEvent, writeStatements } from "../domain/logs/logStore";
import type { OutboxBatch } from "./outbox";
import type { LogEventCommand } from "./projectCommands";
import { KnownMembers } from "./knownMembers";
import { type GroupRow, type IssueGroups, toSnapshot } from "./projectStorage";

/** Rows moved to D1 per batch (one transaction); a flush runs batches until nothing is left. */
const FLUSH_EVENTS = 500;
const FLUSH_ISSUES = 500;

interface OutboxRow extends Record<string, SqlStorageValue> {
	seq: number;
	id: string;
	hash: string;
	fingerprint_hash: string | null;
	received_at: number;
	timestamp: number;
	level: string;
	environment: string | null;
	release: string | null;
	event: string;
	user_key: string | null;
}

/** Marks that the users of environments counted before migration 0017 have been taken over (or that there were none). */
const SEEDED = `INSERT OR REPLACE INTO meta (key, value) VALUES ('environment_users', 'seeded')`;

export class LogOutbox {
	readonly #sql: SqlStorage;
	readonly #groups: IssueGroups;
	/** JSON `[hash, environment, user]` triples known to be in `group_environment_users`. */
	readonly #knownPairs = new KnownMembers();
	#seeded: boolean;

	constructor(sql: SqlStorage, groups: IssueGroups) {
		this.#sql = sql;
		this.#groups = groups;
		this.#seeded = sql.exec(`SELECT 1 FROM meta WHERE key = 'environment_users'`).toArray().length > 0;
		// An object that holds no issue yet has no users to take over.
		if (!this.#seeded && sql.exec<{ any: number }>(`SELECT EXISTS (SELECT 1 FROM groups) AS any`).one().any === 0) {
			sql.exec(SEEDED);
			this.#seeded = true;
		}
	}

	/** Queues an accepted event; part of the ingestion's transaction. */
	add(c: LogEventCommand, fingerprintHash: string | null): void {
		this.#sql.exec(
			`INSERT INTO outbox (id, hash, fingerprint_hash, received_at, timestamp, level, environment, release, event, user_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			c.eventId,
			c.groupHash,
			fingerprintHash,
			c.receivedAt,
			c.timestamp,
			c.level,
			c.environment,
			c.release,
			c.eventJson,
			c.userKey,
		);
	}

	/** Drops the issue's events not yet in D1 (the issue is being deleted); part of that transaction. */
	dropPending(hash: string): void {
		this.#sql.exec(`DELETE FROM outbox WHERE hash = ?`, hash);
	}

	/**
	 * Once, before the first batch this object counts environments' users in: the users migration
	 * 0017 found in the key's stored events, so that one of them seen again is not counted twice.
	 */
	async takeSeededUsers(db: D1Database, keyId: string): Promise<void> {
		if (this.#seeded) return;
		await takeSeededUsers(db, keyId, (users) => this.#note(users));
		this.#sql.exec(SEEDED);
		this.#seeded = true;
	}

	/**
	 * The oldest waiting events and up to 500 changed issues, as statements for the flush's D1 batch;
	 * call `written` once D1 has them. `more`: a full batch, so more may be waiting.
	 */
	nextBatch(db: D1Database, owner: KeyOwner): OutboxBatch {
		const events = this.#sql.exec<OutboxRow>(`SELECT * FROM outbox ORDER BY seq LIMIT ?`, FLUSH_EVENTS).toArray();
		const groups = this.#sql.exec<GroupRow>(`SELECT * FROM groups WHERE version > flushed_version LIMIT ?`, FLUSH_ISSUES).toArray();
		const { added, newUsers } = this.#environmentUsers(events);
		const pending: PendingEvent[] = events.map((e, i) => ({
			id: e.id,
			groupHash: e.hash,
			fingerprintHash: e.fingerprint_hash,
			receivedAt: e.received_at,
			timestamp: e.timestamp,
			level: e.level,
			environment: e.environment,
			release: e.release,
			eventJson: e.event,
			environmentUsers: added[i],
		}));
		const last = events.at(-1);
		return {
			statements: writeStatements(db, owner, pending, groups.map(toSnapshot)),
			more: events.length === FLUSH_EVENTS || groups.length === FLUSH_ISSUES,
			// Only what was written is marked: rows and changes that arrived meanwhile go next time.
			written: () => {
				if (last) this.#sql.exec(`DELETE FROM outbox WHERE seq <= ?`, last.seq);
				for (const g of groups) {
					this.#sql.exec(`UPDATE groups SET flushed_version = ? WHERE hash = ? AND flushed_version < ?`, g.version, g.hash, g.version);
				}
				// Noted whether or not D1 counted them now (a batch written again after a crash counts
				// nothing the second time, but its users must still be noted).
				this.#note(newUsers);
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

	/**
	 * Adds the events waiting here to `hourly`, each issue's events per hour of the ESCALATION_HOURS
	 * up to `now` (D1's, read while no batch moves): so the two together count every event once.
	 */
	addWaiting(hourly: Map<string, number[]>, now: number): void {
		const currentHour = Math.floor(now / HOUR_MS);
		const rows = this.#sql.exec<{ hash: string; hour: number; n: number }>(
			`SELECT hash, cast(timestamp / ${HOUR_MS} AS integer) AS hour, count(*) AS n FROM outbox
			 WHERE hash IN (SELECT value FROM json_each(?)) AND timestamp >= ? GROUP BY 1, 2`,
			JSON.stringify([...hourly.keys()]),
			(currentHour - ESCALATION_HOURS + 1) * HOUR_MS,
		);
		for (const { hash, hour, n } of rows) {
			const counts = hourly.get(hash);
			const at = counts ? counts.length - 1 - (currentHour - hour) : -1;
			if (counts && at >= 0 && at < counts.length) counts[at] += n;
		}
	}

	/** The tables changed other than through a batch (the clean-up). */
	forget(): void {
		this.#knownPairs.clear();
	}

	/**
	 * For each event, what it adds to its issue's figures in its environment: null when it counts in
	 * none (no environment, or one the issue does not hold: past its first 100), else 1 when its
	 * user is new there (not yet in `group_environment_users`, nor earlier in the batch), else 0.
	 */
	#environmentUsers(events: OutboxRow[]): { added: Array<number | null>; newUsers: SeededUser[] } {
		const held = new Map<string, string[]>();
		const inBatch = new Set<string>();
		const newUsers: SeededUser[] = [];
		const added = events.map(({ hash, environment, user_key: user }) => {
			if (environment === null) return null;
			const environments = held.get(hash) ?? this.#groups.environmentsOf(hash);
			held.set(hash, environments);
			if (!environments.includes(environment)) return null;
			if (user === null) return 0;
			const pair = JSON.stringify([hash, environment, user]);
			if (inBatch.has(pair) || this.#isKnown(pair, hash, environment, user)) return 0;
			inBatch.add(pair);
			newUsers.push({ groupHash: hash, environment, user });
			return 1;
		});
		return { added, newUsers };
	}

	#isKnown(pair: string, hash: string, environment: string, user: string): boolean {
		if (this.#knownPairs.has(pair)) return true;
		const known =
			this.#sql.exec(`SELECT 1 FROM group_environment_users WHERE hash = ? AND environment = ? AND user = ?`, hash, environment, user).toArray().length > 0;
		if (known) this.#knownPairs.add(pair);
		return known;
	}

	/** Notes users affected in environments, of issues the object still holds (one the clean-up forgot meanwhile stays forgotten). */
	#note(users: SeededUser[]): void {
		for (const { groupHash, environment, user } of users) {
			const { rowsWritten } = this.#sql.exec(
				`INSERT OR IGNORE INTO group_environment_users (hash, environment, user) SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM groups WHERE hash = ?)`,
				groupHash,
				environment,
				user,
				groupHash,
			);
			if (rowsWritten > 0) this.#knownPairs.add(JSON.stringify([groupHash, environment, user]));
		}
	}
}
