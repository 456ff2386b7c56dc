/**
 * Release ordering for regressions: "a new event on a resolved issue reopens it unless it comes
 * from an older release" (docs/api.md#update-issue-status). Releases are free strings; most are versions, often
 * with a package prefix (`web@1.4.2`, `v2.0.0-rc.1`, `1.4.2+build.7`).
 */

interface Version {
	/** `web` in `web@1.4.2`; releases of different packages are not comparable. */
	package: string;
	numbers: number[];
	/** Dot-separated prerelease identifiers; empty for a final release. */
	prerelease: string[];
}

const VERSION = /^v?(\d+(?:\.\d+){0,3})(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

function parseVersion(release: string): Version | null {
	const at = release.lastIndexOf("@");
	const pkg = at > 0 ? release.slice(0, at) : "";
	const match = VERSION.exec(release.slice(at + 1).trim());
	if (!match) return null;
	const numbers = match[1].split(".").map(Number);
	if (numbers.some((n) => !Number.isSafeInteger(n))) return null;
	while (numbers.length < 3) numbers.push(0);
	return { package: pkg, numbers, prerelease: match[2] ? match[2].split(".") : [] };
}

function comparePrerelease(a: string[], b: string[]): number {
	// A final release is newer than any of its prereleases (semver 11.3).
	if (a.length === 0 || b.length === 0) return (a.length === 0 ? 1 : 0) - (b.length === 0 ? 1 : 0);
	for (let i = 0; i < Math.max(a.length, b.length); i++) {
		if (i >= a.length) return -1;
		if (i >= b.length) return 1;
		const [x, y] = [a[i], b[i]];
		const [nx, ny] = [/^\d+$/.test(x), /^\d+$/.test(y)];
		if (nx && ny) {
			if (Number(x) !== Number(y)) return Number(x) - Number(y);
		} else if (nx !== ny) {
			return nx ? -1 : 1; // numeric identifiers sort before alphanumeric ones
		} else if (x !== y) {
			return x < y ? -1 : 1;
		}
	}
	return 0;
}

/** What a release is: a final version (`web@1.4.2`), a prerelease (`2.0.0-beta.1`), or no version at all (a commit). */
export function releaseKind(release: string): "final" | "prerelease" | null {
	const version = parseVersion(release);
	if (!version) return null;
	return version.prerelease.length > 0 ? "prerelease" : "final";
}

/**
 * Semver-aware comparison: negative when `a` is older than `b`, 0 when equal, positive when
 * newer, null when they cannot be compared as versions (not versions, or different packages).
 */
export function compareVersions(a: string, b: string): number | null {
	if (a === b) return 0;
	const [va, vb] = [parseVersion(a), parseVersion(b)];
	if (!va || !vb || va.package !== vb.package) return null;
	for (let i = 0; i < Math.max(va.numbers.length, vb.numbers.length); i++) {
		const diff = (va.numbers[i] ?? 0) - (vb.numbers[i] ?? 0);
		if (diff !== 0) return Math.sign(diff);
	}
	return Math.sign(comparePrerelease(va.prerelease, vb.prerelease));
}
