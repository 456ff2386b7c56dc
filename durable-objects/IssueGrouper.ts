import { DurableObject } from "cloudflare:workers";
import type { IssueStatus } from "../domain/api/issues";
import { deleteExpiredIssues, type IssueSnapshot, type KeyOwner, type PendingEvent, writeStatements } from "../domain/logs/logStore";
import { compareVersions } from "../domain/logs/releases";
import { LOG_LIMITS, LOG_RATE } from "../domain/limits";
import { EarliestAlarm } from "./earliestAlarm";
import { Outbox } from "./outbox";
import { SlidingWindows } from "./slidingWindows";

/** One accepted-or-not log event, as the ingest endpoint hands it over. */
export interface IngestCommand {
	owner: KeyOwner;
	/** The key's `logs_rate_limit_per_minute`. */
	ratePerMinute: number;
	groupHash: string;
	title: string;
	culprit: string | null;
	level: string;
	environment: string | null;
	release: string | null;
	/** Who was affected (user id, else email, username or IP), for the distinct user count. */
	userKey: string | null;
	eventId: string;
	receivedAt: number;
	timestamp: number;
	eventJson: string;
}

export type IngestOutcome =
	| { status: "accepted"; groupHash: string; isNew: boolean }
	| { status: "rate_limited"; retryAfterSeconds: number }
	/** A new issue past the project's cap; events of its existing issues are still taken. */
	| { status: "too_many_issues"; limit: number }
	| { status: "revoked" };

/** Accepted events reach D1 this long after the first of them, or sooner when an owner reads. */
const FLUSH_DELAY_MS = 1_000;
const FLUSH_RETRY_MS = 10_000;
/** Rows moved to D1 per batch (one transaction); a flush runs batches until nothing is left. */
const FLUSH_EVENTS = 500;
const FLUSH_ISSUES = 500;
/** Distinct environments and releases remembered per issue. */
const MAX_NAMES_PER_ISSUE = 100;

interface GroupRow extends Record<string, SqlStorageValue> {
	hash: string;
	title: string;
	culprit: string | null;
	level: string;
	status: IssueStatus;
	count: number;
	users: number;
	first_seen: number;
	last_seen: number;
	environments: string;
	releases: string;
	resolved_in_release: string | null;
	version: number;
}

const SCHEMA = [
	`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS groups (
		hash TEXT PRIMARY KEY, title TEXT NOT NULL, culprit TEXT, level TEXT NOT NULL,
		status TEXT NOT NULL DEFAULT 'open', count INTEGER NOT NULL, users INTEGER NOT NULL DEFAULT 0,
		first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL,
		environments TEXT NOT NULL DEFAULT '[]', releases TEXT NOT NULL DEFAULT '[]', resolved_in_release TEXT,
		version INTEGER NOT NULL DEFAULT 1, flushed_version INTEGER NOT NULL DEFAULT 0)`,
	`CREATE INDEX IF NOT EXISTS groups_unflushed ON groups (hash) WHERE version > flushed_version`,
	`CREATE TABLE IF NOT EXISTS group_users (hash TEXT NOT NULL, user TEXT NOT NULL, PRIMARY KEY (hash, user)) WITHOUT ROWID`,
	// Every release the project has sent, in first-seen order: how non-version releases are ordered.
	`CREATE TABLE IF NOT EXISTS releases (seq INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE)`,
	// Accepted events not yet in D1.
	`CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, hash TEXT NOT NULL,
		received_at INTEGER NOT NULL, timestamp INTEGER NOT NULL, level TEXT NOT NULL, environment TEXT, release TEXT,
		event TEXT NOT NULL)`,
];

/**
 * Issue grouping for one project key (docs/architecture.md#logs): turns a group hash into an issue, knows
 * whether it is new, keeps the issue's counters and status, holds the key's log rate window,
 * and moves events and issues to D1.
 *
 * The object runs one request at a time and every SQL call is synchronous, so "is this group
 * new?" and "is the window full?" are answered exactly under any concurrency. An accepted event
 * is written to the object's own SQLite in the same transaction as its issue update (durable
 * before the answer leaves), then moved to D1 in multi-row statements by an alarm one second
 * later, or at once when an owner reads (`flush`). One RPC per ingest request.
 */
export class IssueGrouper extends DurableObject<Env> {
	#sql: SqlStorage;
	#windows!: SlidingWindows;
	#owner: KeyOwner | null = null;
	#revoked = false;
	#alarm: EarliestAlarm;
	#outbox: Outbox;

	constructor(ctx: DurableObjectState, env: Env) {
		super(ctx, env);
		this.#sql = ctx.storage.sql;
		this.#alarm = new EarliestAlarm(ctx.storage);
		this.#outbox = new Outbox(this.#alarm, () => this.#writeBatch(), { retryMs: FLUSH_RETRY_MS });
		ctx.blockConcurrencyWhile(async () => {
			this.#createSchema();
			const meta = new Map(this.#sql.exec<{ key: string; value: string }>(`SELECT key, value FROM meta`).toArray().map((r) => [r.key, r.value]));
			const owner = meta.get("owner");
			this.#owner = owner ? (JSON.parse(owner) as KeyOwner) : null;
			this.#revoked = meta.get("revoked") === "1";
			await this.#alarm.load();
		});
	}

	#createSchema() {
		for (const statement of SCHEMA) this.#sql.exec(statement);
		this.#windows = new SlidingWindows(this.#sql);
	}

	// -----------------------------------------------------------------------
	// Ingest

	async ingest(command: IngestCommand): Promise<IngestOutcome> {
		if (this.#revoked) return { status: "revoked" };
		const outcome = this.ctx.storage.transactionSync(() => this.#ingest(command));
		// Remembered only once the transaction that stored it has committed.
		this.#owner ??= command.owner;
		if (outcome.status === "accepted") await this.#alarm.noLaterThan(Date.now() + FLUSH_DELAY_MS);
		return outcome;
	}

	#ingest(c: IngestCommand): IngestOutcome {
		const now = Date.now();
		if (!this.#owner) this.#sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('owner', ?)`, JSON.stringify(c.owner));

		const group = this.#group(c.groupHash);
		if (!group && this.#sql.exec<{ n: number }>(`SELECT count(*) AS n FROM groups`).one().n >= LOG_LIMITS.issuesPerProject) {
			return { status: "too_many_issues", limit: LOG_LIMITS.issuesPerProject };
		}

		// The key's window: exact, counting only what was let through; inside the transaction, so
		// an event that fails to store gives its slot back.
		const window = this.#windows.take(now, [{ name: "logs", limit: c.ratePerMinute, windowSeconds: LOG_RATE.perKeyWindowSeconds }]);
		if (!window.allowed) return { status: "rate_limited", retryAfterSeconds: window.retryAfterSeconds };

		if (c.release) this.#sql.exec(`INSERT OR IGNORE INTO releases (name) VALUES (?)`, c.release);
		const isNewUser = c.userKey !== null && this.#sql.exec(`INSERT OR IGNORE INTO group_users (hash, user) VALUES (?, ?)`, c.groupHash, c.userKey).rowsWritten > 0;

		if (!group) {
			this.#sql.exec(
				`INSERT INTO groups (hash, title, culprit, level, count, users, first_seen, last_seen, environments, releases)
				 VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?)`,
				c.groupHash,
				c.title,
				c.culprit,
				c.level,
				isNewUser ? 1 : 0,
				c.receivedAt,
				c.receivedAt,
				JSON.stringify(c.environment ? [c.environment] : []),
				JSON.stringify(c.release ? [c.release] : []),
			);
		} else {
			let { status, resolved_in_release: resolvedIn } = group;
			// A regression: a resolved issue seen again reopens, unless the event comes from an
			// older release than the one it was resolved in (an old client still running). It keeps
			// the release it was resolved in, which is how an open issue shows it came back.
			if (status === "resolved" && !(c.release && resolvedIn && this.#isOlderRelease(c.release, resolvedIn))) {
				status = "open";
			}
			this.#sql.exec(
				`UPDATE groups SET title = ?, culprit = ?, level = ?, status = ?, resolved_in_release = ?,
				 count = count + 1, users = users + ?, last_seen = max(last_seen, ?), first_seen = min(first_seen, ?),
				 environments = ?, releases = ?, version = version + 1
				 WHERE hash = ?`,
				c.title,
				c.culprit,
				c.level,
				status,
				resolvedIn,
				isNewUser ? 1 : 0,
				c.receivedAt,
				c.receivedAt,
				withName(group.environments, c.environment),
				withName(group.releases, c.release),
				c.groupHash,
			);
		}

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
		return { status: "accepted", groupHash: c.groupHash, isNew: !group };
	}

	#group(hash: string): GroupRow | null {
		return this.#sql.exec<GroupRow>(`SELECT * FROM groups WHERE hash = ?`, hash).toArray()[0] ?? null;
	}

	// -----------------------------------------------------------------------
	// Releases

	#releaseSeq(name: string): number | null {
		return this.#sql.exec<{ seq: number }>(`SELECT seq FROM releases WHERE name = ?`, name).toArray()[0]?.seq ?? null;
	}

	/** Versions compare as versions (semver-aware); other releases by when the project first sent them. */
	#isOlderRelease(release: string, than: string): boolean {
		const byVersion = compareVersions(release, than);
		if (byVersion !== null) return byVersion < 0;
		const [a, b] = [this.#releaseSeq(release), this.#releaseSeq(than)];
		return a !== null && b !== null && a < b;
	}

	/** The project's newest release: the greatest version, or the latest first seen where versions do not compare. */
	#newestRelease(): string | null {
		let newest: string | null = null;
		for (const { name } of this.#sql.exec<{ name: string }>(`SELECT name FROM releases ORDER BY seq`)) {
			if (newest === null || (compareVersions(name, newest) ?? 1) > 0) newest = name;
		}
		return newest;
	}

	// -----------------------------------------------------------------------
	// Owner operations

	/** Sets an issue's status; resolving records the release it was resolved in. Null when there is no such issue. */
	async setStatus(groupHash: string, status: IssueStatus): Promise<IssueSnapshot | null> {
		if (this.#revoked || !this.#group(groupHash)) return null;
		const resolvedIn = status === "resolved" ? this.#newestRelease() : null;
		this.#sql.exec(`UPDATE groups SET status = ?, resolved_in_release = ?, version = version + 1 WHERE hash = ?`, status, resolvedIn, groupHash);
		const updated = this.#group(groupHash);
		if (!updated) return null;
		const snapshot = toSnapshot(updated);
		// The change is durable here; if D1 is unreachable now the alarm carries it over later.
		await this.flush().catch(async (err) => {
			console.error("issue status saved but not yet written to D1:", err);
			await this.#alarm.noLaterThan(Date.now() + FLUSH_RETRY_MS);
		});
		return snapshot;
	}

	/** Moves everything accepted so far to D1; owner reads call this first so they never miss an event. */
	flush(): Promise<void> {
		return this.#outbox.flush();
	}

	/** The key was revoked: forget everything, and refuse what still arrives with it. */
	async purge(): Promise<void> {
		this.#revoked = true;
		await this.ctx.storage.deleteAll();
		await this.#alarm.clear();
		this.#createSchema();
		this.#sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('revoked', '1')`);
	}

	/**
	 * The clean-up: forgets the issues last seen before `cutoff` (counters, affected users), then
	 * deletes up to `limit` of them from D1; answers how many D1 rows went. Both deletes go by
	 * last_seen, so an issue an event revives meanwhile is not touched, and D1 rows left over
	 * go in the next call.
	 */
	async forgetIssuesBefore(keyId: string, cutoff: number, limit: number): Promise<number> {
		this.ctx.storage.transactionSync(() => {
			this.#sql.exec(`DELETE FROM group_users WHERE hash IN (SELECT hash FROM groups WHERE last_seen < ?)`, cutoff);
			this.#sql.exec(`DELETE FROM groups WHERE last_seen < ?`, cutoff);
		});
		return deleteExpiredIssues(this.env.DB, keyId, cutoff, limit);
	}

	// -----------------------------------------------------------------------
	// Moving rows to D1

	/** One batch of events and changed issues; true when more may be waiting. */
	async #writeBatch(): Promise<boolean> {
		const owner = this.#owner;
		if (!owner || this.#revoked) return false;
		const events = this.#sql
			.exec<{ seq: number; id: string; hash: string; received_at: number; timestamp: number; level: string; environment: string | null; release: string | null; event: string }>(
				`SELECT * FROM outbox ORDER BY seq LIMIT ?`,
				FLUSH_EVENTS,
			)
			.toArray();
		const groups = this.#sql.exec<GroupRow>(`SELECT * FROM groups WHERE version > flushed_version LIMIT ?`, FLUSH_ISSUES).toArray();
		if (events.length === 0 && groups.length === 0) return false;

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
		// Issues and their events land in one D1 transaction: never an event without its issue.
		await this.env.DB.batch(writeStatements(this.env.DB, owner, pending, groups.map(toSnapshot)));

		// Only what was written is marked: rows and changes that arrived meanwhile go next time.
		const lastEvent = events.at(-1);
		if (lastEvent) this.#sql.exec(`DELETE FROM outbox WHERE seq <= ?`, lastEvent.seq);
		for (const g of groups) {
			this.#sql.exec(`UPDATE groups SET flushed_version = ? WHERE hash = ? AND flushed_version < ?`, g.version, g.hash, g.version);
		}
		return events.length === FLUSH_EVENTS || groups.length === FLUSH_ISSUES;
	}

	#hasPending(): boolean {
		const { pending } = this.#sql
			.exec<{ pending: number }>(`SELECT (EXISTS (SELECT 1 FROM outbox) OR EXISTS (SELECT 1 FROM groups WHERE version > flushed_version)) AS pending`)
			.one();
		return pending === 1;
	}

	async alarm(): Promise<void> {
		this.#alarm.fired();
		if (!(await this.#outbox.flushOrRetry())) return;
		if (!this.#revoked && this.#hasPending()) await this.#alarm.noLaterThan(Date.now() + FLUSH_DELAY_MS);
	}
}

/** Adds a name to a JSON list of at most MAX_NAMES_PER_ISSUE distinct names. */
function withName(listJson: string, name: string | null): string {
	if (!name) return listJson;
	const names = JSON.parse(listJson) as string[];
	if (names.includes(name) || names.length >= MAX_NAMES_PER_ISSUE) return listJson;
	names.push(name);
	return JSON.stringify(names);
}

function toSnapshot(g: GroupRow): IssueSnapshot {
	return {
		groupHash: g.hash,
		title: g.title,
		culprit: g.culprit,
		level: g.level,
		status: g.status,
		count: g.count,
		users: g.users,
		firstSeen: g.first_seen,
		lastSeen: g.last_seen,
		environments: JSON.parse(g.environments) as string[],
		releases: JSON.parse(g.releases) as string[],
		resolvedInRelease: g.resolved_in_release,
	};
}
