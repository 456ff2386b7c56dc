/**
 * The crawler table's data: each crawler's operator and purpose as known (pinned), the source's
 * vague entries each named by an override, and the published address lists that verify visits.
 */
import { describe, it } from "vitest";
import { CRAWLER_PURPOSES } from "../domain/api/sites";
import { CRAWLERS, crawlerNamed, matchCrawler } from "../domain/crawl/crawlers";
import aiRobots from "../domain/crawl/data/ai-robots.json";
import extraCrawlers from "../domain/crawl/data/extra-crawlers.json";
import ipRanges from "../domain/crawl/data/ip-ranges.json";
import overrides from "../domain/crawl/data/overrides.json";
import { isVerifiedVisit, rangeProblems, rangeVerifier } from "../domain/crawl/ipRanges";
import { parseRange } from "../domain/crawl/rangeLists";
import { baseName, missingOverrides, type Override, readSource } from "../domain/crawl/sourceText";

const source = aiRobots as Record<string, { operator: string; function: string }>;
const overridden = overrides as Record<string, Override>;

/** What each is, from its operator's own documentation: a refresh or a heuristic that changes one fails here. */
const KNOWN: Array<[name: string, operator: string, purpose: string]> = [
	["GPTBot", "OpenAI", "training"],
	["OAI-SearchBot", "OpenAI", "search"],
	["ChatGPT-User", "OpenAI", "user_fetch"],
	["ChatGPT Agent", "OpenAI", "agent"],
	["ClaudeBot", "Anthropic", "training"],
	["Claude-SearchBot", "Anthropic", "search"],
	["Claude-User", "Anthropic", "user_fetch"],
	["Claude-Code", "Anthropic", "agent"],
	["PerplexityBot", "Perplexity", "search"],
	["Perplexity-User", "Perplexity", "user_fetch"],
	["Google-Extended", "Google", "training"],
	["CCBot", "Common Crawl", "archiver"],
	["archive.org_bot", "Internet Archive", "archiver"],
	["LAIONDownloader", "Large-scale Artificial Intelligence Open Network", "training"],
	["Poseidon Research Crawler", "Poseidon Research", "training"],
	["Querit-SearchBot", "Querit", "search"],
	["QueritBot", "Querit", "search"],
	["meta-webindexer", "Meta", "search"],
	["ExaSearchBot", "Exa", "search"],
	["Aranet-SearchBot", "Unknown", "search"],
	["TwinAgent", "Twin", "agent"],
	["NovaAct", "Amazon", "agent"],
	["AmazonBuyForMe", "Amazon", "agent"],
	["Devin", "Cognition", "agent"],
	["Manus-User", "Manus", "agent"],
	// Nobody documents these: "Undocumented AI Agents" is the source's way of saying so.
	["KunatoCrawler", "Unknown", "unknown"],
	["WRTNBot", "Unknown", "unknown"],
];

describe("each crawler's operator and purpose", () => {
	it.for(KNOWN)("%s: %s, %s", ([name, operator, purpose], { expect }) => {
		expect(crawlerNamed(name)).toEqual({ name, operator, purpose });
		expect(matchCrawler(`Mozilla/5.0 (compatible; ${name}/1.0; +https://example.org/bot)`)?.name).toBe(name);
	});

	it("recognizes the Internet Archive's crawler from its real User-Agent", ({ expect }) => {
		const ua = "Mozilla/5.0 (compatible; archive.org_bot +http://archive.org/details/archive.org_bot) Zeno/5e9b7a4 warc/v0.8.85";
		expect(matchCrawler(ua)?.name).toBe("archive.org_bot");
	});

	it("gives every crawler an operator and a purpose of the table, unknown only where an override says so", ({ expect }) => {
		for (const crawler of CRAWLERS) {
			expect(crawler.operator, crawler.name).not.toBe("");
			expect([...CRAWLER_PURPOSES, "unknown"], crawler.name).toContain(crawler.purpose);
			if (crawler.purpose === "unknown") expect(overridden[crawler.name]?.purpose, crawler.name).toBe("unknown");
			if (crawler.operator === "Unknown") expect(overridden[crawler.name]?.operator, crawler.name).toBe("Unknown");
		}
	});
});

describe("reading the source's text", () => {
	it.for([
		["a Markdown link", "[OpenAI](https://openai.com)", "OpenAI"],
		["a name and what it does", "Querit that indexes web content for their search API service", "Querit"],
		["a name, then a description", "Twin, a platform that creates automated workers", "Twin"],
		["a name in lower case", "netEstate", "netEstate"],
		["a name, then a parenthesis", "Naget Inc (founded by Chris Samarinas)", "Naget Inc"],
		["unclear", "Unclear at this time.", null],
		["unknown", "Unknown", null],
		["a sentence", "A company that builds crawlers", null],
		["an address", "https://example.com/bot", null],
		["a name past 40 characters", "The Quite Remarkably Long Name Of Some Company Inc", null],
	] as const)("operator of %s", ([, text, operator], { expect }) => {
		expect(readSource({ operator: text, function: "" }).operator).toBe(operator);
	});

	it.for([
		["AI research crawler", null],
		["AI tools and models for machine learning research.", "training"],
		["Scrapes data to train LLMs.", "training"],
		["AI Search Crawlers", "search"],
		["Search result generation.", "search"],
		["AI Assistants", "user_fetch"],
		["AI Agents", "agent"],
		["AI Coding Agents", "agent"],
		["Undocumented AI Agents", null],
		["Unclear at this time.", null],
		["AI Data Providers", null],
		["AI search, assistants and agents", null],
		["Provides open crawl dataset, used for many purposes, including Machine Learning", null],
	] as const)("purpose of %j", ([text, purpose], { expect }) => {
		expect(readSource({ operator: "", function: text }).purpose).toBe(purpose);
	});

	it("every entry whose text is vague has an override naming what it lacks", ({ expect }) => {
		expect(missingOverrides(source, overridden)).toEqual([]);
	});

	it("catches a refreshed list that adds a vague entry without an override", ({ expect }) => {
		const refreshed = {
			...source,
			MysteryBot: { operator: "Unclear at this time.", function: "Undocumented AI Agents" },
			HalfBot: { operator: "[Half](https://half.example)", function: "AI Data Providers" },
			ClearBot: { operator: "[Clear](https://clear.example)", function: "Scrapes data to train LLMs." },
		};
		expect(missingOverrides(refreshed, overridden)).toEqual([
			{ name: "MysteryBot", needs: ["operator", "purpose"] },
			{ name: "HalfBot", needs: ["purpose"] },
		]);
	});

	it("every override names an entry of the list and says what the table can show", ({ expect }) => {
		const names = new Set(Object.keys(source).flatMap((name) => [name, baseName(name)]));
		for (const [name, override] of Object.entries(overridden)) {
			expect(names.has(name), `${name} is in overrides.json but not in ai-robots.json`).toBe(true);
			if (override.purpose !== undefined) expect([...CRAWLER_PURPOSES, "unknown"], name).toContain(override.purpose);
		}
	});

	it("an extra crawler is one the list lacks: once listed, its line moves to overrides.json", ({ expect }) => {
		const names = new Set(Object.keys(source).map((name) => baseName(name).toLowerCase()));
		for (const name of Object.keys(extraCrawlers)) expect(names.has(name.toLowerCase()), name).toBe(false);
	});
});

describe("published address lists", () => {
	it("the vendored lists are well formed, and each names crawlers of the table", ({ expect }) => {
		expect(rangeProblems()).toEqual([]);
		for (const list of ipRanges.lists) {
			for (const name of list.crawlers) expect(crawlerNamed(name)?.name, list.url).toBe(name);
		}
	});

	// Per vendored list: the last address of one of its published ranges and the address just past it
	// (in none of the lists of that list's crawlers). A refresh that drops the range fails here: pick
	// another from the new list. Copies and dates: domain/crawl/data/README.md.
	const PUBLISHED: Array<[url: string, last: string, past: string]> = [
		["https://openai.com/gptbot.json", "132.196.86.255", "132.196.87.0"],
		["https://openai.com/chatgpt-user.json", "104.208.184.207", "104.208.184.208"],
		["https://openai.com/searchbot.json", "104.210.140.143", "104.210.140.144"],
		["https://claude.com/crawling/bots.json", "216.73.219.255", "216.73.220.0"],
		["https://www.perplexity.ai/perplexitybot.json", "18.97.1.231", "18.97.1.232"],
		["https://www.perplexity.ai/perplexity-user.json", "44.208.221.197", "44.208.221.198"],
		["https://search.developer.apple.com/applebot.json", "17.241.208.191", "17.241.208.192"],
		["https://developers.google.com/static/crawling/ipranges/common-crawlers.json", "192.178.5.31", "192.178.5.32"],
		["https://developers.google.com/static/crawling/ipranges/common-crawlers.json", "2001:4860:4801:2:ffff:ffff:ffff:ffff", "2001:4860:4801:3::"],
		["https://developers.google.com/static/crawling/ipranges/user-triggered-fetchers.json", "107.178.199.255", "107.178.200.0"],
		["https://developers.google.com/static/crawling/ipranges/user-triggered-fetchers.json", "2404:f340:10:4007:ffff:ffff:ffff:ffff", "2404:f340:10:4008::"],
		["https://developers.google.com/static/crawling/ipranges/user-triggered-fetchers-google.json", "142.250.33.159", "142.250.33.160"],
		["https://developers.google.com/static/crawling/ipranges/user-triggered-fetchers-google.json", "2001:4860:4801:4004:ffff:ffff:ffff:ffff", "2001:4860:4801:4005::"],
		["https://index.commoncrawl.org/ccbot.json", "3.41.188.39", "3.41.188.40"],
		["https://index.commoncrawl.org/ccbot.json", "2600:1f28:365:80ff:ffff:ffff:ffff:ffff", "2600:1f28:365:8100::"],
		["https://duckduckgo.com/duckassistbot.json", "130.107.228.224", "130.107.228.225"],
		["https://mistral.ai/mistralai-user-ips.json", "20.240.160.161", "20.240.160.162"],
	];

	it.for(PUBLISHED)("%s: %s verifies each crawler it names, %s none", ([url, last, past], { expect }) => {
		const list = ipRanges.lists.find((candidate) => candidate.url === url);
		expect(list?.ranges.length, url).toBeGreaterThan(0);
		for (const name of list?.crawlers ?? []) {
			expect(isVerifiedVisit(name, last), `${name} from ${last}`).toBe(true);
			expect(isVerifiedVisit(name, past), `${name} from ${past}`).toBe(false);
		}
	});

	it("every vendored list with ranges has an address pinned above; a list still empty verifies nothing", ({ expect }) => {
		const pinned = new Set(PUBLISHED.map(([url]) => url));
		for (const list of ipRanges.lists) expect(list.ranges.length === 0 || pinned.has(list.url), list.url).toBe(true);
		// Google's user-triggered agents' list had no copy to vendor: Google-Agent stays unchecked until a refresh.
		expect(isVerifiedVisit("Google-Agent", "192.178.5.31")).toBeNull();
		expect(isVerifiedVisit("GoogleOther", "142.250.33.159")).toBe(false);
		expect(isVerifiedVisit("Google-NotebookLM", "142.250.33.159")).toBe(true);
	});

	it("one list verifies every crawler it names; a crawler in several lists is verified by each; IPv4 and IPv6", ({ expect }) => {
		const { isVerifiedVisit, problems } = rangeVerifier({
			lists: [
				{ url: "https://example.com/common.json", crawlers: ["GoogleOther", "Google-CloudVertexBot"], ranges: ["192.0.2.0/24", "2001:db8:4801::/48"] },
				{ url: "https://example.com/fetchers.json", crawlers: ["GoogleOther"], ranges: ["198.51.100.0/24"] },
				{ url: "https://example.com/later.json", crawlers: ["Google-NotebookLM"], ranges: [] },
			],
		});
		expect(problems()).toEqual([]);
		expect(isVerifiedVisit("GoogleOther", "192.0.2.9")).toBe(true);
		expect(isVerifiedVisit("google-cloudvertexbot", "192.0.2.9")).toBe(true);
		expect(isVerifiedVisit("GoogleOther", "198.51.100.1")).toBe(true);
		expect(isVerifiedVisit("Google-CloudVertexBot", "198.51.100.1")).toBe(false);
		expect(isVerifiedVisit("GoogleOther", "2001:db8:4801:7::1")).toBe(true);
		expect(isVerifiedVisit("GoogleOther", "2001:db8:4802::1")).toBe(false);
		expect(isVerifiedVisit("GoogleOther", "::ffff:192.0.2.9")).toBe(true);
		// A list not refreshed yet checks nothing, rather than calling every address outside it.
		expect(isVerifiedVisit("Google-NotebookLM", "192.0.2.9")).toBeNull();
		expect(isVerifiedVisit("GPTBot", "192.0.2.9")).toBeNull();
	});

	it("searches the ranges as intervals: nested, overlapping and adjacent ones, host bits in the text, each edge and one past it", ({ expect }) => {
		const { isVerifiedVisit } = rangeVerifier({
			lists: [
				{
					url: "https://example.com/a.json",
					crawlers: ["GPTBot"],
					ranges: ["10.0.0.0/8", "10.1.0.0/16", "192.0.2.77/24", "198.51.100.0/25", "198.51.100.128/25", "203.0.113.9/32", "2001:db8:ff::/48", "2001:db8:ff:1::/64", "2001:db9::1/128"],
				},
				{ url: "https://example.com/b.json", crawlers: ["ClaudeBot"], ranges: ["0.0.0.0/0"] },
			],
		});
		const cases: Array<[string, boolean]> = [
			["9.255.255.255", false],
			["10.0.0.0", true],
			["10.1.2.3", true],
			["10.255.255.255", true],
			["11.0.0.0", false],
			// 192.0.2.77/24 is the whole 192.0.2.0/24.
			["192.0.1.255", false],
			["192.0.2.0", true],
			["192.0.2.255", true],
			["192.0.3.0", false],
			// Two adjacent halves are the whole /24.
			["198.51.100.127", true],
			["198.51.100.128", true],
			["198.51.100.255", true],
			["198.51.101.0", false],
			["203.0.113.8", false],
			["203.0.113.9", true],
			["203.0.113.10", false],
			["2001:db8:fe:ffff:ffff:ffff:ffff:ffff", false],
			["2001:db8:ff::", true],
			["2001:db8:ff:1::5", true],
			["2001:db8:ff:ffff:ffff:ffff:ffff:ffff", true],
			["2001:db8:100::", false],
			["2001:db9::", false],
			["2001:db9::1", true],
			["2001:db9::2", false],
			["::ffff:10.9.8.7", true],
		];
		expect(cases.map(([address]) => [address, isVerifiedVisit("GPTBot", address)])).toEqual(cases);
		expect([isVerifiedVisit("ClaudeBot", "0.0.0.0"), isVerifiedVisit("ClaudeBot", "255.255.255.255"), isVerifiedVisit("ClaudeBot", "2001:db8::1")]).toEqual([
			true,
			true,
			false,
		]);
	});

	it("a malformed list or range is named and left out, never thrown; the rest still verify", ({ expect }) => {
		const { isVerifiedVisit, problems } = rangeVerifier({
			lists: [
				{ url: "https://example.com/a.json", crawlers: ["GPTBot"], ranges: ["192.0.2.0/24", "20.171/24", 7] },
				{ url: "http://example.com/b.json", crawlers: [], ranges: ["198.51.100.0/24"] },
				null,
			],
		});
		expect(problems()).toEqual([
			'list 1 (https://example.com/a.json): "20.171/24" is not an address range such as 192.0.2.0/24 or 2001:db8::/32',
			"list 1 (https://example.com/a.json): 7 is not an address range such as 192.0.2.0/24 or 2001:db8::/32",
			"list 2 (http://example.com/b.json): url must be an https:// address",
			"list 2 (http://example.com/b.json): crawlers must be a non-empty array of crawler names",
			"list 3: url must be an https:// address",
			"list 3: crawlers must be a non-empty array of crawler names",
		]);
		expect(isVerifiedVisit("GPTBot", "192.0.2.1")).toBe(true);
		expect(rangeVerifier({ ranges: {} }).problems()).toEqual(["the file has no `lists` array"]);
		expect(rangeVerifier(null).isVerifiedVisit("GPTBot", "192.0.2.1")).toBeNull();
	});

	it.for([
		["20.171.206.0/24", "20.171.206.0", 24],
		["0.0.0.0/0", "0.0.0.0", 0],
		["192.0.2.1/32", "192.0.2.1", 32],
		["2001:db8::/32", "2001:db8::", 32],
		["2001:db8::1/128", "2001:db8::1", 128],
		["::ffff:192.0.2.0/120", "192.0.2.0", 24],
	] as const)("reads %s", ([text, network, bits], { expect }) => {
		const range = parseRange(text);
		expect(range && [range[0].toString(), range[1]]).toEqual([network, bits]);
	});

	it.for(["20.171/24", "20.171.206.0/33", "20.171.206.0/024", "20.171.206.0", "2001:db8::/129", "0x14.171.206.0/24", "fe80::1%eth0/64", "::ffff:192.0.2.0/95", " 1.2.3.0/24", ""])(
		"refuses %j",
		(text, { expect }) => {
			expect(parseRange(text)).toBeNull();
		},
	);
});
