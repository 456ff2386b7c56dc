/**
 * Known AI crawlers: a telemetry event whose `ua` matches none of them is ignored.
 *
 * purpose:
 * - training: collects pages to train models;
 * - search: indexes pages for an AI search or answer engine;
 * - assistant: fetches a page live because a user asked an assistant about it.
 *
 * Order matters: the first match wins, so a token that contains another (Applebot-Extended,
 * Applebot) comes before it. Each pattern is the product token as the operator documents it,
 * matched case-insensitively and not as part of a longer token.
 */
type CrawlerPurpose = "training" | "search" | "assistant";

export interface Crawler {
	name: string;
	operator: string;
	purpose: CrawlerPurpose;
	pattern: RegExp;
}

/** The product token, not preceded or followed by more token characters. */
const token = (name: string) => new RegExp(`(?<![\\w-])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w-])`, "i");

const table: Array<[name: string, operator: string, purpose: CrawlerPurpose, pattern?: RegExp]> = [
	// OpenAI
	["GPTBot", "OpenAI", "training"],
	["OAI-SearchBot", "OpenAI", "search"],
	["ChatGPT-User", "OpenAI", "assistant"],
	["ChatGPT Agent", "OpenAI", "assistant"],
	// Anthropic
	["ClaudeBot", "Anthropic", "training"],
	["Claude-SearchBot", "Anthropic", "search"],
	["Claude-User", "Anthropic", "assistant"],
	["Claude-Web", "Anthropic", "assistant"],
	["anthropic-ai", "Anthropic", "training"],
	// Perplexity
	["PerplexityBot", "Perplexity", "search"],
	["Perplexity-User", "Perplexity", "assistant"],
	// Google
	["Google-Extended", "Google", "training"],
	["Google-CloudVertexBot", "Google", "assistant"],
	["Gemini-Deep-Research", "Google", "assistant"],
	["GoogleOther", "Google", "training", /(?<![\w-])GoogleOther(?:-Image|-Video)?(?![\w-])/i],
	// Apple: the -Extended token before the plain one.
	["Applebot-Extended", "Apple", "training"],
	["Applebot", "Apple", "search"],
	// Meta
	["meta-externalagent", "Meta", "training"],
	["meta-externalfetcher", "Meta", "assistant"],
	["FacebookBot", "Meta", "training"],
	// Amazon
	["Amazonbot", "Amazon", "search"],
	["bedrockbot", "Amazon", "assistant"],
	// Others, alphabetically by operator
	["AI2Bot", "Allen Institute for AI", "training", /(?<![\w-])AI2Bot(?:-Dolma)?(?![\w-])/i],
	["Andibot", "Andi", "search"],
	["Bytespider", "ByteDance", "training"],
	["TikTokSpider", "ByteDance", "training"],
	["cohere-training-data-crawler", "Cohere", "training"],
	["cohere-ai", "Cohere", "assistant"],
	["CCBot", "Common Crawl", "training"],
	["Devin", "Cognition", "assistant"],
	["Diffbot", "Diffbot", "training"],
	["DuckAssistBot", "DuckDuckGo", "assistant"],
	["FirecrawlAgent", "Firecrawl", "assistant"],
	["ImagesiftBot", "Hive", "training"],
	["PetalBot", "Huawei", "search"],
	["PanguBot", "Huawei", "training"],
	["iaskspider", "iAsk.ai", "search", /(?<![\w-])iaskspider(?:\/\d[\w.]*)?(?![\w-])/i],
	["Kangaroo Bot", "Kangaroo LLM", "training"],
	["MistralAI-User", "Mistral AI", "assistant"],
	["Timpibot", "Timpi", "training"],
	["omgili", "Webz.io", "training", /(?<![\w-])omgili(?:bot)?(?![\w-])/i],
	["Webzio-Extended", "Webz.io", "training"],
	["YandexAdditionalBot", "Yandex", "training", /(?<![\w-])YandexAdditional(?:Bot)?(?![\w-])/i],
	["YouBot", "You.com", "search"],
];

export const CRAWLERS: readonly Crawler[] = table.map(([name, operator, purpose, pattern]) => ({
	name,
	operator,
	purpose,
	pattern: pattern ?? token(name),
}));

const byName = new Map(CRAWLERS.map((crawler) => [crawler.name, crawler]));

/** The crawler a User-Agent belongs to, or null for anything not in the table. */
export function matchCrawler(userAgent: string): Crawler | null {
	for (const crawler of CRAWLERS) if (crawler.pattern.test(userAgent)) return crawler;
	return null;
}

export const crawlerNamed = (name: string): Crawler | undefined => byName.get(name);
