/**
 * Sentry's merge, in a ProjectCollector: issues made one, and where the events of their
 * fingerprints go from then on (`merged_issues`). The merged issue is the one with the most events
 * (Sentry's choice), ties to the first seen; it keeps its title, status and releases' resolution,
 * and takes the others' counts, affected users, first and last seen, environments and releases.
 * The merge reaches D1 through `merge_outbox`, before any other row (domain/logs/issueMerge.ts).
 */
import { type IssueMerge, mergeStatements } from "../domain/logs/issueMerge";
import type { KeyOwner } from "../domain/logs/logStore";
import type { OutboxBatch } from "./outbox";
import { type GroupRow, type IssueGroups, withName } from "./projectStorage";

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
		// Gone with who they affected, as a deleted issue goes: the merged issue holds them now.
		for (const row of merged) this.#groups.delete(row.hash);
		this.#groups.activity.note(into.hash, Date.now(), { kind: "merged", issues: merged.length });
		// Their events not yet in D1 are the merged issue's; so are later ones, and those of issues merged into them before.
		this.#sql.exec(`UPDATE outbox SET hash = ? WHERE hash IN (SELECT value FROM json_each(?))`, into.hash, others);
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

	/** Forgets where the fingerprints of issues no longer held go: deleted, or gone with the retention; they open issues of their own again. */
	prune(): void {
		this.#sql.exec(`DELETE FROM merged_issues WHERE into_hash NOT IN (SELECT hash FROM groups)`);
		this.#into = this.#load();
	}

	/** The merges not yet in D1, as the first statements of the next batch. */
	nextBatch(db: D1Database, owner: KeyOwner): OutboxBatch {
		const rows = this.#sql.exec<{ seq: number; into_hash: string; hashes: string; environment_users: string }>(`SELECT * FROM merge_outbox ORDER BY seq`).toArray();
		const last = rows.at(-1);
		return {
			statements: rows.flatMap((row) =>
				mergeStatements(db, owner, { into: row.into_hash, hashes: JSON.parse(row.hashes), environmentUsers: JSON.parse(row.environment_users) }),
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
