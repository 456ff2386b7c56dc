/**
 * Known AI crawlers and agents: a telemetry event whose `ua` matches none of them is ignored.
 *
 * The list is the community-maintained one of ai.robots.txt, vendored as data
 * (`data/ai-robots.json`, MIT, refreshed by `npm run crawlers:update`), with `data/overrides.json`
 * naming the operator and purpose where the source is silent or vague.
 *
 * purpose:
 * - training: collects pages to train models or to sell as training data;
 * - search: indexes pages for an AI search or answer engine;
 * - user_fetch: fetches a page live because a user asked an assistant about it;
 * - agent: an AI agent (a browser or coding agent) acting on a user's task;
 * - archiver: builds an open crawl archive that models are trained on.
 *
 * A name matches as a product token, case-insensitively and not as part of a longer token:
 * "GPTBot/1.2" is GPTBot, "NotGPTBot" is nothing. Entries that differ only in case or in a version
 * suffix ("iaskspider/2.0", "Brightbot 1.0") are one crawler. A name that is a common word
 * (`standalone` in the overrides: "Code", "Spider", "Cursor"...) matches only where it stands as a
 * client's own product, at the start of the User-Agent or after "(" or ";": VS Code's
 * "(KHTML, like Gecko) Code/1.96.0 Chrome/..." and "Sogou web spider/4.0" are not AI crawlers.
 */
import type { CrawlerPurpose } from "../api/sites";
import aiRobots from "./data/ai-robots.json";
import overrides from "./data/overrides.json";
import { memoizeByText } from "../textMemo";

export interface Crawler {
	name: string;
	operator: string;
	purpose: CrawlerPurpose;
}

interface SourceEntry {
	operator: string;
	function: string;
}

type Override = Partial<Pick<Crawler, "operator" | "purpose">> & { standalone?: boolean };

/** The crawler a vendored name stands for: versions and case do not make another crawler. */
export const baseName = (name: string) => name.replace(/(?:\/| )\d+(?:\.\d+)*$/, "");

/** The source's operator: a Markdown link's text, else its words unless they say nothing. */
function operatorOf(source: string): string {
	const link = /^\[([^\]]+)\]\(/.exec(source);
	if (link) return link[1];
	if (/^(unclear|unknown)\b/i.test(source) || /^https?:/i.test(source) || source.length > 40) return "Unknown";
	return source.replace(/\.$/, "");
}

/** The purpose the source's free-text `function` describes, when no override names one. */
function purposeOf(description: string): CrawlerPurpose {
	if (/agent|takes action/i.test(description)) return "agent";
	if (/assistant|user[- ]initiated|user queries|user prompts|answers? for/i.test(description)) return "user_fetch";
	if (/open crawl dataset/i.test(description)) return "archiver";
	if (/search/i.test(description)) return "search";
	return "training";
}

const overridden = overrides as Record<string, Override>;

/** Names that are common words: matched only as a client's own product (see above). */
const standaloneNames = new Set<string>();

function buildTable(): Map<string, Crawler> {
	const byToken = new Map<string, Crawler>();
	for (const [name, entry] of Object.entries(aiRobots as Record<string, SourceEntry>)) {
		const base = baseName(name);
		const override = overridden[name] ?? overridden[base] ?? {};
		const crawler: Crawler = {
			name: base,
			operator: override.operator ?? operatorOf(entry.operator),
			purpose: override.purpose ?? purposeOf(entry.function),
		};
		const key = base.toLowerCase();
		if (override.standalone) standaloneNames.add(key);
		const known = byToken.get(key);
		// Of the spellings of one crawler, the one with an override names it.
		if (!known || (overridden[name] && !overridden[known.name])) byToken.set(key, crawler);
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
