/**
 * The releases a project has sent, in a ProjectCollector's SQLite (`releases`): the order of
 * release names that are not versions is the order the project first sent them, which is how the
 * object tells a regression from an old client still running, and which release resolving records.
 */
import { compareVersions, releaseKind } from "../domain/logs/releases";

export class ProjectReleases {
	readonly #sql: SqlStorage;
	/** Releases known to be in `releases`. */
	readonly #known = new Set<string>();

	constructor(sql: SqlStorage) {
		this.#sql = sql;
	}

	/** Records the release in first-seen order. */
	note(release: string): void {
		if (this.#known.has(release)) return;
		this.#sql.exec(`INSERT OR IGNORE INTO releases (name) VALUES (?)`, release);
		this.#known.add(release);
	}

	/** The table changed other than through `note`, or a transaction rolled back. */
	forget(): void {
		this.#known.clear();
	}

	/** Whether the project has sent this release. */
	has(release: string): boolean {
		return this.#known.has(release) || this.#releaseSeq(release) !== null;
	}

	/** Versions compare as versions (semver-aware); other releases by when the project first sent them. */
	isOlder(release: string, than: string): boolean {
		const byVersion = compareVersions(release, than);
		if (byVersion !== null) return byVersion < 0;
		const [a, b] = [this.#releaseSeq(release), this.#releaseSeq(than)];
		return a !== null && b !== null && a < b;
	}

	/**
	 * The release resolving an issue records (docs/api.md#log-issues-owner): the newest final release the
	 * project has sent of the issue's own package (`web@` of `web@1.4.2`), or the issue's own newest
	 * release (`own`) when none is newer. So a fix shipped before the issue is resolved counts, while another
	 * app's releases in the same project, and a prerelease trying a fix on staging, do not: an event
	 * from those would otherwise leave a recurring bug resolved. Releases that are not versions are
	 * ordered by when the project first sent them. An issue seen in no release records none: any
	 * event reopens it.
	 */
	resolutionRelease(own: string[]): string | null {
		if (own.length === 0) return null;
		let newest = own.reduce((a, b) => (this.isOlder(a, b) ? b : a));
		const isVersion = releaseKind(newest) !== null;
		// In first-seen order: a release that is no version is newer once `newest` has gone by.
		let passed = false;
		for (const { name } of this.#sql.exec<{ name: string }>(`SELECT name FROM releases ORDER BY seq`)) {
			const newer = isVersion ? releaseKind(name) === "final" && (compareVersions(name, newest) ?? 0) > 0 : passed && releaseKind(name) === null;
			if (newer) newest = name;
			passed ||= name === newest;
		}
		return newest;
	}

	/**
	 * The project's newest release, as Sentry's `release:latest` takes it (docs/api.md#list-issues):
	 * with final versions sent (`1.10.0`, `web@1.4.2`), the newest of them by version, of the package
	 * of the one first sent last (another app's releases in the same project do not compare with
	 * it); with only prereleases, the newest of those likewise; with no version, the release first
	 * sent last. So a prerelease on staging does not take the place of the version users run, as
	 * it does not in resolutionRelease. Of versions equal but for build metadata, the one first
	 * sent last. Null when the project has sent no release.
	 */
	newest(): string | null {
		const names = this.#sql.exec<{ name: string }>(`SELECT name FROM releases ORDER BY seq`).toArray().map((row) => row.name);
		for (const kind of ["final", "prerelease"] as const) {
			const versions = names.filter((name) => releaseKind(name) === kind);
			const last = versions.at(-1);
			// Versions of another package compare as null: they never take the place of `last`'s.
			if (last !== undefined) return versions.reduce((newest, name) => ((compareVersions(name, newest) ?? -1) >= 0 ? name : newest), last);
		}
		return names.at(-1) ?? null;
	}

	#releaseSeq(name: string): number | null {
		return this.#sql.exec<{ seq: number }>(`SELECT seq FROM releases WHERE name = ?`, name).toArray()[0]?.seq ?? null;
	}
}
