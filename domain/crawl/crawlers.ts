/**
 * Known AI crawlers and agents: a telemetry event whose `ua` matches none of them is ignored.
 *
 * The list is the community-maintained one of ai.robots.txt, vendored as data
 * (`data/ai-robots.json`, MIT, refreshed by `npm run crawlers:update`), with `data/overrides.json`
 * naming the operator and purpose where the source is silent or vague (sourceText.ts says where),
 * and `data/extra-crawlers.json` the few it does not list (archive.org_bot).
 *
 * purpose:
 * - training: collects pages to train models or to sell as training data;
 * - search: indexes pages for an AI search or answer engine;
 * - user_fetch: fetches a page live because a user asked an assistant about it;
 * - agent: an AI agent (a browser or coding agent) acting on a user's task;
 * - archiver: builds an open crawl archive that models are trained on;
 * - unknown: nobody documents what it does (an override says so, once someone has looked).
 *
 * A name matches as a product token, case-insensitively and not as part of a longer token:
 * "GPTBot/1.2" is GPTBot, "NotGPTBot" is nothing. Entries that differ only in case or in a version
 * suffix ("iaskspider/2.0", "Brightbot 1.0") are one crawler. A name that is a common word
 * (`standalone` in the overrides: "Code", "Spider", "Cursor"...) matches only where it stands as a
 * client's own product, at the start of the User-Agent or after "(" or ";": VS Code's
 * "(KHTML, like Gecko) Code/1.96.0 Chrome/..." and "Sogou web spider/4.0" are not AI crawlers.
 */
import type { CrawlerCategory } from "../api/sites";
import aiRobots from "./data/ai-robots.json";
import extraCrawlers from "./data/extra-crawlers.json";
import overrides from "./data/overrides.json";
import { memoizeByText } from "../textMemo";
import { baseName, type Override, overrideFor, readSource, type SourceEntry } from "./sourceText";

export interface Crawler {
	name: string;
	operator: string;
	purpose: CrawlerCategory;
}

const overridden = overrides as Record<string, Override>;

/** Names that are common words: matched only as a client's own product (see above). */
const standaloneNames = new Set<string>();

function buildTable(): Map<string, Crawler> {
	const byToken = new Map<string, Crawler>();
	for (const [name, entry] of Object.entries(aiRobots as Record<string, SourceEntry>)) {
		const base = baseName(name);
		const override = overrideFor(overridden, name) ?? {};
		const read = readSource(entry);
		const crawler: Crawler = {
			name: base,
			operator: override.operator ?? read.operator ?? "Unknown",
			purpose: override.purpose ?? read.purpose ?? "unknown",
		};
		const key = base.toLowerCase();
		if (override.standalone) standaloneNames.add(key);
		const known = byToken.get(key);
		// Of the spellings of one crawler, the one with an override names it.
		if (!known || (overridden[name] && !overridden[known.name])) byToken.set(key, crawler);
	}
	// The source's own entry wins: the tests ask for an extra crawler to move to overrides.json once it is listed.
	for (const [name, crawler] of Object.entries(extraCrawlers as Record<string, Required<Pick<Override, "operator" | "purpose">>>)) {
		if (!byToken.has(name.toLowerCase())) byToken.set(name.toLowerCase(), { name, ...crawler });
	}
	return byToken;
}

const byToken = buildTable();

export const CRAWLERS: readonly Crawler[] = [...byToken.values()];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Alternatives of a pattern, longer names first, so a name that contains another ("Claude-SearchBot", "Claude-Search"...) wins over it. */
const alternatives = (names: string[]) =>
	names
		.sort((a, b) => b.length - a.length)
		.map(escapeRegExp)
		.join("|");

/** One pass over the User-Agent for every crawler: any name as a token, or a common word as a client's own product. */
const anyCrawler = new RegExp(
	`(?:(?<![\\w-])(${alternatives([...byToken.keys()].filter((key) => !standaloneNames.has(key)))})` +
		`|(?<=^|[(;]\\s*)(${alternatives([...standaloneNames])}))(?![\\w-])`,
	"i",
);

/**
 * The crawler a User-Agent belongs to, or null for anything not in the table. Remembered for
 * 1,000 User-Agents of up to 512 characters: one crawler sends the same few, and the pattern
 * has hundreds of alternatives.
 */
export const matchCrawler: (userAgent: string) => Crawler | null = memoizeByText(
	(userAgent) => {
		const match = anyCrawler.exec(userAgent);
		const name = match?.[1] ?? match?.[2];
		return name === undefined ? null : (byToken.get(name.toLowerCase()) ?? null);
	},
	{ entries: 1_000, maxChars: 512 },
);

export const crawlerNamed = (name: string): Crawler | undefined => byToken.get(name.toLowerCase());
