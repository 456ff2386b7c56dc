// `npm run crawlers:update [-- --from <robots.json>] [-- --ranges-from <published.json>]`: refreshes
// the vendored list of AI crawlers (domain/crawl/data/ai-robots.json) from ai.robots.txt and the
// published address lists (ip-ranges.json) from each operator, then says what changed and which
// entries are too vague to read without a line in overrides.json (domain/crawl/data/README.md).
// Everything is checked before anything is written: a malformed list or range writes nothing.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { compileRangeFile } from "../domain/crawl/rangeLists.ts";
import { baseName, missingOverrides } from "../domain/crawl/sourceText.ts";

const SOURCE = "https://raw.githubusercontent.com/ai-robots-txt/ai.robots.txt/main/robots.json";

const { values } = parseArgs({
	options: {
		from: { type: "string" },
		"ranges-from": { type: "string" },
		data: { type: "string" },
		help: { type: "boolean", short: "h" },
	},
	strict: true,
});
if (values.help) {
	console.log(`usage: npm run crawlers:update [-- options]
  --from <robots.json>          the crawler list from a file (default: download it from ai.robots.txt)
  --ranges-from <published.json> each list's published document from a file: {"<list url>": {"prefixes": [...]}}
                                (default: download each list; with --from alone the ranges are left as they are)
  --data <dir>                  the data directory (default: domain/crawl/data)`);
	process.exit(0);
}

const DATA = values.data ?? join(import.meta.dirname, "..", "domain", "crawl", "data");
const readJson = async (file) => JSON.parse(await readFile(join(DATA, file), "utf8"));

try {
	await update();
} catch (error) {
	console.error(`${error instanceof Error ? error.message : error}\nnothing written`);
	process.exitCode = 1;
}

async function update() {
	const next = JSON.parse(values.from ? await readFile(values.from, "utf8") : await download(SOURCE, "text"));
	if (typeof next !== "object" || next === null || Array.isArray(next) || Object.keys(next).length < 50) {
		throw new Error("the new list does not look like ai.robots.txt's robots.json");
	}
	for (const [name, entry] of Object.entries(next)) {
		if (typeof entry?.operator !== "string" || typeof entry?.function !== "string") throw new Error(`entry ${name} lacks operator or function`);
	}
	const previous = await readJson("ai-robots.json");
	const overrides = await readJson("overrides.json");
	const ranges = await readJson("ip-ranges.json");
	if (!values.from || values["ranges-from"]) await refreshRanges(ranges);
	checkRanges(ranges, [...Object.keys(next), ...Object.keys(await readJson("extra-crawlers.json"))]);

	await writeFile(join(DATA, "ai-robots.json"), `${JSON.stringify(next, null, 4)}\n`);
	await writeFile(join(DATA, "ip-ranges.json"), `${JSON.stringify(ranges, null, "\t")}\n`);
	await writeFile(join(DATA, "crawler-names.json"), `${JSON.stringify(crawlerNames([...Object.keys(next), ...Object.keys(await readJson("extra-crawlers.json"))]), null, "\t")}\n`);

	const added = Object.keys(next).filter((name) => !(name in previous));
	const removed = Object.keys(previous).filter((name) => !(name in next));
	console.log(`${Object.keys(next).length} entries: ${added.length} added, ${removed.length} removed`);
	if (added.length) console.log(`added: ${added.join(", ")}`);
	if (removed.length) console.log(`removed: ${removed.join(", ")}`);
	const missing = missingOverrides(next, overrides);
	if (missing.length) {
		console.log("too vague to read: name what each lacks in overrides.json (\"Unknown\" / \"unknown\" once you have looked):");
		for (const { name, needs } of missing) console.log(`  ${name}: ${needs.join(" and ")}`);
	}
	console.log("then run: npm test");
}

/** Each operator publishes `{prefixes: [{ipv4Prefix} | {ipv6Prefix}]}` (OpenAI, Anthropic, Perplexity, Apple, Google). */
async function refreshRanges(file) {
	const published = values["ranges-from"] ? JSON.parse(await readFile(values["ranges-from"], "utf8")) : null;
	for (const list of file.lists ?? []) {
		const document = published ? published[list.url] : await download(list.url, "json").catch((error) => ({ error }));
		if (document === undefined || document.error) {
			console.log(`${list.url}: could not be read (${document?.error?.message ?? "not in --ranges-from"}); kept the ${list.ranges.length} vendored`);
			continue;
		}
		const ranges = (document.prefixes ?? []).map((p) => p?.ipv4Prefix ?? p?.ipv6Prefix);
		if (ranges.length === 0) {
			console.log(`${list.url}: listed no ranges; kept the ${list.ranges.length} vendored`);
			continue;
		}
		console.log(`${list.url} (${list.crawlers.join(", ")}): ${ranges.length} ranges (was ${list.ranges.length})`);
		list.ranges = ranges;
	}
}

/** Every list well formed, every range an address range, every crawler one of the table's: else an error naming each. */
function checkRanges(file, crawlers) {
	const names = new Set(crawlers.map((name) => baseName(name).toLowerCase()));
	const problems = compileRangeFile(file).problems;
	for (const list of file.lists ?? []) {
		for (const name of Array.isArray(list?.crawlers) ? list.crawlers : []) {
			if (typeof name === "string" && !names.has(name.toLowerCase())) problems.push(`${list.url}: ${name} is no crawler of the table`);
		}
	}
	if (problems.length) throw new Error(`ip-ranges.json would not be valid:\n  ${problems.join("\n  ")}`);
}

/**
 * Every crawler's name once (a version suffix left out, one spelling per name whatever its case),
 * sorted: the names the Crawlers page's forwarder looks for in a User-Agent, without the console
 * loading the whole list.
 */
function crawlerNames(names) {
	const byKey = new Map();
	for (const name of names.map(baseName)) if (!byKey.has(name.toLowerCase())) byKey.set(name.toLowerCase(), name);
	return [...byKey.values()].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
}

async function download(url, as) {
	const res = await fetch(url);
	if (!res.ok) throw new Error(`${url} answered ${res.status}`);
	return as === "json" ? res.json() : res.text();
}
