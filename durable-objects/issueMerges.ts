/**
 * Sentry's merge, in a ProjectCollector: issues made one, and where the events of their
 * fingerprints go from then on (`merged_issues`). The merged issue is the one with the most events
 * (Sentry's choice), ties to the first seen; it keeps its title, status and releases' resolution,
 * and takes the others' counts, affected users, first and last seen, environments and releases.
 * The merge reaches D1 through `merge_outbox`, before any other row (domain/logs/issueMerge.ts).
 * And Sentry's unmerge: the fingerprints named get their own issues back, with their events.
 */
import { culpritOf, titleOf } from "../domain/logs/fingerprint";
import {
	type IssueMerge,
	type IssueUnmerge,
	mergeStatements,
	type UnmergeFigures,
	unmergeFigureQueries,
	unmergeStatements,
	WAITING_EVENTS_OF_ISSUE,
} from "../domain/logs/issueMerge";
import type { LogEvent } from "../domain/logs/logEvent";
import type { KeyOwner } from "../domain/logs/logStore";
import { LOG_LIMITS } from "../domain/limits";
import type { OutboxBatch } from "./outbox";
import { type GroupRow, type IssueGroups, withName } from "./projectStorage";

/** What an unmerge made of the issue and the fingerprints named (the issue left, the issues opened again), or why it made nothing. */
export type UnmergeOutcome<Issue = GroupRow> =
	| { status: "unmerged"; from: Issue; reopened: Issue[] }
	| { status: "no_issue" }
	| { status: "not_merged"; hashes: string[] }
	| { status: "over_issue_cap" };

/** One side of an unmerge, its events counted: the issue left, or a fingerprint's own. */
interface UnmergeSide {
	count: number;
	firstSeen: number;
	lastSeen: number;
	unhandled: boolean;
	/** Its latest event, as stored: where its title, culprit and level come from. */
	latest: string;
	/** Its environments and releases, each with when it was first seen. */
	names: Map<string, { kind: "environment" | "release"; name: string; firstSeen: number }>;
	users: Set<string>;
	/** Its users per environment, of the events D1 holds (those waiting here are counted as they move). */
	environmentUsers: Map<string, Set<string>>;
}

const WAITING_QUERIES = unmergeFigureQueries(WAITING_EVENTS_OF_ISSUE);

export class IssueMerges {
	readonly #sql: SqlStorage;
	readonly #groups: IssueGroups;
	/** Every merged issue's hash, to the hash of the issue it was merged into: few, and read on every event. */
	#into: Map<string, string>;

	constructor(sql: SqlStorage, groups: IssueGroups) {
		this.#sql = sql;
		this.#groups = groups;
		this.#into = this.#load();
	}

	#load(): Map<string, string> {
		return new Map(this.#sql.exec<{ hash: string; into_hash: string }>(`SELECT hash, into_hash FROM merged_issues`).toArray().map((r) => [r.hash, r.into_hash]));
	}

	/** The issue an event of this group hash belongs to: the one it was merged into, or its own. */
	resolve(hash: string): string {
		return this.#into.get(hash) ?? hash;
	}

	/**
	 * Merges the issues named that the object holds into the one of them with the most events; part
	 * of a transaction, and `forget` the groups and outbox after it. Null when fewer than two are held.
	 */
	merge(hashes: string[]): IssueMerge | null {
		const rows = hashes.map((hash) => this.#groups.row(hash)).filter((row): row is GroupRow => row !== null);
		if (rows.length < 2) return null;
		rows.sort((a, b) => b.count - a.count || a.first_seen - b.first_seen || (a.hash < b.hash ? -1 : 1));
		const [into, ...merged] = rows;
		const others = JSON.stringify(merged.map((row) => row.hash));
		const union = (lists: string[]) => lists.reduce((all, list) => (JSON.parse(list) as string[]).reduce(withName, all));
		for (const table of ["group_users", "group_environment_users"]) {
			const columns = table === "group_users" ? "user" : "environment, user";
			this.#sql.exec(`INSERT OR IGNORE INTO ${table} (hash, ${columns}) SELECT ?, ${columns} FROM ${table} WHERE hash IN (SELECT value FROM json_each(?))`, into.hash, others);
		}
		this.#sql.exec(
			`UPDATE groups SET count = ?1, users = (SELECT count(*) FROM group_users WHERE hash = ?7), first_seen = ?2, last_seen = ?3,
			 environments = ?4, releases = ?5, unhandled = ?6, version = version + 1 WHERE hash = ?7`,
			rows.reduce((sum, row) => sum + row.count, 0),
			Math.min(...rows.map((row) => row.first_seen)),
			Math.max(...rows.map((row) => row.last_seen)),
			union(rows.map((row) => row.environments)),
			union(rows.map((row) => row.releases)),
			Math.max(...rows.map((row) => row.unhandled)),
			into.hash,
		);
		// Gone with who they affected, as a deleted issue goes: the merged issue holds them now, and
		// the owner's notes on them, as Sentry's merge moves the comments.
		for (const row of merged) {
			this.#groups.activity.moveNotes(row.hash, into.hash);
			this.#groups.delete(row.hash);
		}
		this.#groups.activity.note(into.hash, Date.now(), { kind: "merged", issues: merged.length });
		// Their events not yet in D1 are the merged issue's; so are later ones, and those of issues merged into them before.
		this.#sql.exec(`UPDATE outbox SET fingerprint_hash = coalesce(fingerprint_hash, hash), hash = ? WHERE hash IN (SELECT value FROM json_each(?))`, into.hash, others);
		this.#sql.exec(`UPDATE merged_issues SET into_hash = ? WHERE into_hash IN (SELECT value FROM json_each(?))`, into.hash, others);
		this.#sql.exec(`INSERT OR REPLACE INTO merged_issues (hash, into_hash) SELECT value, ? FROM json_each(?)`, into.hash, others);
		const environmentUsers = this.#sql
			.exec<{ environment: string; users: number }>(`SELECT environment, count(*) AS users FROM group_environment_users WHERE hash = ? GROUP BY 1`, into.hash)
			.toArray()
			.map((row): [string, number] => [row.environment, row.users]);
		const merge: IssueMerge = { into: into.hash, hashes: merged.map((row) => row.hash), environmentUsers };
		this.#sql.exec(`INSERT INTO merge_outbox (into_hash, hashes, environment_users) VALUES (?, ?, ?)`, merge.into, others, JSON.stringify(environmentUsers));
		this.#into = this.#load();
		return merge;
	}

	/** The fingerprints merged into the issue (their own issues' hashes), in order. */
	mergedInto(hash: string): string[] {
		return [...this.#into].filter(([, into]) => into === hash).map(([merged]) => merged).sort();
	}

	/**
	 * Why an unmerge of `fingerprints` from `from` cannot be made (no such issue, or a fingerprint
	 * not merged into it), or null: asked before D1's figures are read, so a refusal costs no read.
	 */
	unmergeRefusal(from: string, fingerprints: string[]): UnmergeOutcome | null {
		if (!this.#groups.row(from)) return { status: "no_issue" };
		const strangers = fingerprints.filter((hash) => this.#into.get(hash) !== from);
		return strangers.length > 0 ? { status: "not_merged", hashes: strangers } : null;
	}

	/**
	 * Sentry's unmerge: the events of `fingerprints`, merged into `from`, go back to issues of their
	 * own (open, new), and later ones of them too; both sides' counters, names and affected users
	 * are counted again from their events, those D1 holds (`stored`, read while no batch moves) and
	 * those waiting here. A fingerprint with no event kept opens no issue until its next event. Part
	 * of a transaction, and `forget` the groups and outbox after it.
	 */
	unmerge(from: string, fingerprints: string[], stored: UnmergeFigures): UnmergeOutcome {
		const refusal = this.unmergeRefusal(from, fingerprints);
		if (refusal) return refusal;
		const fingerprintsJson = JSON.stringify(fingerprints);
		const waiting = Object.fromEntries(
			Object.entries(WAITING_QUERIES).map(([name, query]) => [name, this.#sql.exec(query, null, fingerprintsJson, from).toArray()]),
		) as unknown as UnmergeFigures;
		const sides = unmergeSides([stored, waiting], stored);
		const reopened = fingerprints.filter((hash) => sides.has(hash));
		const held = this.#sql.exec<{ n: number }>(`SELECT count(*) AS n FROM groups`).one().n;
		if (held + reopened.length > LOG_LIMITS.issuesPerProject) return { status: "over_issue_cap" };

		const now = Date.now();
		const environmentUsers: IssueUnmerge["environmentUsers"] = [];
		for (const [hash, side] of sides) {
			const event = JSON.parse(side.latest) as LogEvent;
			const names = [...side.names.values()].sort((a, b) => a.firstSeen - b.firstSeen || (a.name < b.name ? -1 : 1));
			const listOf = (kind: "environment" | "release") => names.filter((n) => n.kind === kind).reduce((list, n) => withName(list, n.name), "[]");
			const environments = listOf("environment");
			const figures = [titleOf(event), culpritOf(event), event.level, side.count, side.users.size, side.firstSeen, side.lastSeen, environments, listOf("release"), side.unhandled ? 1 : 0];
			if (hash === from) {
				for (const table of ["group_users", "group_environment_users"]) this.#sql.exec(`DELETE FROM ${table} WHERE hash = ?`, from);
				// "Until N more events / users" still waits for as many more as it did.
				this.#sql.exec(
					`UPDATE groups SET title = ?1, culprit = ?2, level = ?3, count = ?4, users = ?5, first_seen = ?6, last_seen = ?7, environments = ?8, releases = ?9,
					 unhandled = ?10, ignored_until_count = ignored_until_count - (count - ?4), ignored_until_users = ignored_until_users - (users - ?5),
					 version = version + 1 WHERE hash = ?11`,
					...figures,
					hash,
				);
			} else {
				this.#sql.exec(
					`INSERT INTO groups (title, culprit, level, count, users, first_seen, last_seen, environments, releases, unhandled, hash, short_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
					...figures,
					hash,
					// A new issue, as Sentry's unmerge opens one: a number of its own.
					this.#groups.nextShortId(),
				);
				this.#groups.activity.note(hash, now, { kind: "unmerged_from", group_hash: from });
			}
			for (const user of side.users) this.#sql.exec(`INSERT INTO group_users (hash, user) VALUES (?, ?)`, hash, user);
			for (const environment of JSON.parse(environments) as string[]) {
				const users = side.environmentUsers.get(environment) ?? new Set();
				for (const user of users) this.#sql.exec(`INSERT INTO group_environment_users (hash, environment, user) VALUES (?, ?, ?)`, hash, environment, user);
				environmentUsers.push([hash, environment, users.size]);
			}
		}
		// A side with no event kept: the issue left keeps its figures and users; a fingerprint opens no issue until its next event.
		this.#groups.activity.note(from, now, { kind: "unmerged", issues: fingerprints.length });
		this.#sql.exec(`DELETE FROM merged_issues WHERE hash IN (SELECT value FROM json_each(?))`, fingerprintsJson);
		this.#sql.exec(
			`UPDATE outbox SET hash = fingerprint_hash, fingerprint_hash = NULL WHERE hash = ? AND fingerprint_hash IN (SELECT value FROM json_each(?))`,
			from,
			fingerprintsJson,
		);
		this.#sql.exec(
			`INSERT INTO merge_outbox (kind, into_hash, hashes, environment_users) VALUES ('unmerge', ?, ?, ?)`,
			from,
			fingerprintsJson,
			JSON.stringify(environmentUsers),
		);
		this.#into = this.#load();
		return { status: "unmerged", from: this.#groups.row(from) as GroupRow, reopened: reopened.map((hash) => this.#groups.row(hash) as GroupRow) };
	}

	/** Forgets where the fingerprints of issues no longer held go: deleted, or gone with the retention; they open issues of their own again. */
	prune(): void {
		this.#sql.exec(`DELETE FROM merged_issues WHERE into_hash NOT IN (SELECT hash FROM groups)`);
		this.#into = this.#load();
	}

	/** The merges not yet in D1, as the first statements of the next batch. */
	nextBatch(db: D1Database, owner: KeyOwner): OutboxBatch {
		const rows = this.#sql
			.exec<{ seq: number; kind: "merge" | "unmerge"; into_hash: string; hashes: string; environment_users: string }>(`SELECT * FROM merge_outbox ORDER BY seq`)
			.toArray();
		const last = rows.at(-1);
		return {
			statements: rows.flatMap(({ kind, into_hash, hashes, environment_users }) =>
				kind === "unmerge"
					? unmergeStatements(db, owner, { from: into_hash, hashes: JSON.parse(hashes), environmentUsers: JSON.parse(environment_users) })
					: mergeStatements(db, owner, { into: into_hash, hashes: JSON.parse(hashes), environmentUsers: JSON.parse(environment_users) }),
			),
			more: false,
			written: () => {
				if (last) this.#sql.exec(`DELETE FROM merge_outbox WHERE seq <= ?`, last.seq);
			},
		};
	}

	/** Whether a merge waits for D1. */
	hasPending(): boolean {
		return this.#sql.exec(`SELECT 1 FROM merge_outbox LIMIT 1`).toArray().length > 0;
	}
}

/**
 * Each side of an unmerge with an event kept, from the figures of its events in each source (D1's
 * and the outbox's): counts summed, times and names at their extremes, users together; users per
 * environment from `stored` alone.
 */
function unmergeSides(sources: UnmergeFigures[], stored: UnmergeFigures): Map<string, UnmergeSide> {
	const sides = new Map<string, UnmergeSide>();
	const sideOf = (hash: string) => sides.get(hash) as UnmergeSide;
	for (const { counts, latest } of sources) {
		for (const row of counts) {
			const side = sides.get(row.hash);
			if (!side) {
				sides.set(row.hash, {
					count: row.count,
					firstSeen: row.first_seen,
					lastSeen: Number.NEGATIVE_INFINITY,
					unhandled: row.unhandled === 1,
					latest: "{}",
					names: new Map(),
					users: new Set(),
					environmentUsers: new Map(),
				});
				continue;
			}
			side.count += row.count;
			side.firstSeen = Math.min(side.firstSeen, row.first_seen);
			side.unhandled ||= row.unhandled === 1;
		}
		for (const row of latest) {
			const side = sideOf(row.hash);
			if (row.last_seen > side.lastSeen) [side.lastSeen, side.latest] = [row.last_seen, row.event];
		}
	}
	for (const { names, users } of sources) {
		for (const row of names) {
			const { names: held } = sideOf(row.hash);
			const key = `${row.kind}:${row.name}`;
			const known = held.get(key);
			if (!known || row.first_seen < known.firstSeen) held.set(key, { kind: row.kind, name: row.name, firstSeen: row.first_seen });
		}
		for (const row of users) sideOf(row.hash).users.add(row.user);
	}
	for (const row of stored.users) {
		if (row.environment === null) continue;
		const { environmentUsers } = sideOf(row.hash);
		const users = environmentUsers.get(row.environment) ?? new Set<string>();
		environmentUsers.set(row.environment, users.add(row.user));
	}
	return sides;
}
