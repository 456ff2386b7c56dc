// `npm run crawlers:update [-- --from <robots.json>]`: refreshes the vendored list of AI crawlers
// (domain/crawl/data/ai-robots.json) from ai.robots.txt, then says what changed and which new
// entries name no operator, so a line in domain/crawl/data/overrides.json can name it. Without
// --from it also refreshes the published address ranges (ip-ranges.json) from each operator's list.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";

const SOURCE = "https://raw.githubusercontent.com/ai-robots-txt/ai.robots.txt/main/robots.json";
const DATA = join(import.meta.dirname, "..", "domain", "crawl", "data");

const { values } = parseArgs({ options: { from: { type: "string" }, help: { type: "boolean", short: "h" } }, strict: true });
if (values.help) {
	console.log("usage: npm run crawlers:update [-- --from <robots.json>]   (default: download from ai.robots.txt)");
	process.exit(0);
}

const text = values.from ? await readFile(values.from, "utf8") : await (await fetch(SOURCE)).text();
const next = JSON.parse(text);
if (typeof next !== "object" || next === null || Object.keys(next).length < 50) {
	throw new Error("the new list does not look like ai.robots.txt's robots.json; nothing written");
}
for (const [name, entry] of Object.entries(next)) {
	if (typeof entry?.operator !== "string" || typeof entry?.function !== "string") throw new Error(`entry ${name} lacks operator or function`);
}

const file = join(DATA, "ai-robots.json");
const previous = JSON.parse(await readFile(file, "utf8"));
const overrides = JSON.parse(await readFile(join(DATA, "overrides.json"), "utf8"));
await writeFile(file, `${JSON.stringify(next, null, 4)}\n`);

const added = Object.keys(next).filter((name) => !(name in previous));
const removed = Object.keys(previous).filter((name) => !(name in next));
const unnamed = added.filter((name) => !overrides[name] && !/^\[[^\]]+\]\(/.test(next[name].operator));
console.log(`${Object.keys(next).length} entries: ${added.length} added, ${removed.length} removed`);
if (added.length) console.log(`added: ${added.join(", ")}`);
if (removed.length) console.log(`removed: ${removed.join(", ")}`);
if (unnamed.length) console.log(`no operator named (add them to overrides.json): ${unnamed.join(", ")}`);
if (!values.from) await refreshRanges();
console.log("then run: npm test");

/** Each operator publishes `{prefixes: [{ipv4Prefix} | {ipv6Prefix}]}` (OpenAI, Perplexity, Apple, Anthropic). */
async function refreshRanges() {
	const rangesFile = join(DATA, "ip-ranges.json");
	const current = JSON.parse(await readFile(rangesFile, "utf8"));
	for (const [crawler, url] of Object.entries(current.sources)) {
		const published = await (await fetch(url)).json();
		const ranges = (published.prefixes ?? []).map((p) => p.ipv4Prefix ?? p.ipv6Prefix).filter((r) => typeof r === "string");
		if (ranges.length === 0) {
			console.log(`${crawler}: ${url} listed no ranges; kept the ${current.ranges[crawler].length} vendored`);
			continue;
		}
		console.log(`${crawler}: ${ranges.length} ranges (was ${current.ranges[crawler].length})`);
		current.ranges[crawler] = ranges;
	}
	await writeFile(rangesFile, `${JSON.stringify(current, null, "\t")}\n`);
}
