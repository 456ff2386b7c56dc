import { describe, it } from "vitest";
import { CRAWLER_PURPOSES } from "../domain/api/sites";
import { CRAWLERS, matchCrawler } from "../domain/crawl/crawlers";
import { baseName } from "../domain/crawl/sourceText";
import aiRobots from "../domain/crawl/data/ai-robots.json";
import crawlerNames from "../domain/crawl/data/crawler-names.json";
import { crawlIngest, GOOGLEBOT, ownerWithSite, patchSite, storedVisits } from "./analytics-helpers";
import { call, setPlan, uniqueIp } from "./helpers";

/** Real User-Agent strings as the operators document them. */
const REQUIRED: Array<[name: string, ua: string]> = [
	["GPTBot", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"],
	["OAI-SearchBot", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot"],
	["ChatGPT-User", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot"],
	["ClaudeBot", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)"],
	["Claude-User", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)"],
	["Claude-SearchBot", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-SearchBot/1.0; +Claude-SearchBot@anthropic.com)"],
	["PerplexityBot", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)"],
	[
		"Perplexity-User",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)",
	],
	["Google-Extended", "Mozilla/5.0 (compatible; Google-Extended/1.0)"],
	["Bytespider", "Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)"],
	["CCBot", "CCBot/2.0 (https://commoncrawl.org/faq/)"],
	["Amazonbot", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot) Chrome/119.0.6045.214 Safari/537.36"],
	["Applebot-Extended", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15 (Applebot-Extended/0.1)"],
	["meta-externalagent", "meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)"],
	["Diffbot", "Mozilla/5.0 (X11; U; Linux i686; en-US; rv:1.9.1.2) Gecko/20090729 Firefox/3.5.2 (.NET CLR 3.5.30729; Diffbot/0.1; +http://www.diffbot.com)"],
	["cohere-ai", "cohere-ai/1.0 (+https://cohere.com)"],
	["DuckAssistBot", "DuckAssistBot/1.2; (+http://duckduckgo.com/duckassistbot.html)"],
	["MistralAI-User", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; MistralAI-User/1.0; +https://docs.mistral.ai/robots)"],
];

const GPTBOT = REQUIRED[0][1];

const visit = (trackingId: string, extra: Record<string, unknown> = {}) => ({
	tracking_id: trackingId,
	url_host: "example.com",
	url_path: "/docs",
	ua: GPTBOT,
	country: "US",
	status: 200,
	...extra,
});

async function storedWith(fields: Record<string, unknown>) {
	const { site } = await ownerWithSite();
	const res = await crawlIngest({ ...visit(site.tracking_id), ...fields });
	if (res.status !== 204) throw new Error(`expected 204, got ${res.status}: ${await res.text()}`);
	const visits = await storedVisits(site.tracking_id);
	if (visits.length !== 1) throw new Error(`expected one stored visit, got ${visits.length}`);
	return visits[0];
}

describe("the crawler table", () => {
	it("recognizes every entry of the vendored list by its own token, reported under its own name", ({ expect }) => {
		const names = Object.keys(aiRobots);
		expect(names.length).toBeGreaterThanOrEqual(160);
		for (const name of names) {
			const ua = `Mozilla/5.0 (compatible; ${name}; +https://example.org/bot)`;
			// Spellings that differ only in case or a version suffix are one crawler.
			expect(matchCrawler(ua)?.name.toLowerCase(), name).toBe(baseName(name).toLowerCase());
		}
	});

	it("gives every crawler an operator and one of the purposes, names unique", ({ expect }) => {
		expect(new Set(CRAWLERS.map((c) => c.name.toLowerCase())).size).toBe(CRAWLERS.length);
		for (const crawler of CRAWLERS) {
			expect(crawler.operator, crawler.name).not.toBe("");
			expect([...CRAWLER_PURPOSES, "unknown"], crawler.name).toContain(crawler.purpose);
		}
		// The source says little for these; the overrides name them.
		expect(matchCrawler("DeepSeekBot/1.0")).toEqual({ name: "DeepSeekBot", operator: "DeepSeek", purpose: "training" });
		expect(matchCrawler("Mozilla/5.0 (compatible; Claude-Code/1.0)")).toMatchObject({ operator: "Anthropic", purpose: "agent" });
		expect(matchCrawler("Mozilla/5.0 (compatible; ChatGPT-User/1.0)")).toMatchObject({ purpose: "user_fetch" });
		expect(matchCrawler("CCBot/2.0 (https://commoncrawl.org/faq/)")).toMatchObject({ purpose: "archiver" });
		// A name that is a common word counts where it stands as the client's own product.
		expect(matchCrawler("Spider/1.0 (+https://spider.cloud)")?.name).toBe("Spider");
		expect(matchCrawler("Mozilla/5.0 (compatible; Code/1.0)")).toEqual({ name: "Code", operator: "GitHub", purpose: "agent" });
		for (const name of ["Amzn-SearchBot", "TongyiBot", "Kimi-User", "Manus-User", "Google-NotebookLM", "Crawl4AI", "PhindBot", "TavilyBot"]) {
			expect(matchCrawler(`Mozilla/5.0 (compatible; ${name}/1.0)`)?.name).toBe(name);
		}
	});

	it("lists every crawler's name in crawler-names.json, the names the Crawlers page's forwarder looks for", ({ expect }) => {
		// Written with the list by `npm run crawlers:update`: a list refreshed without it fails here.
		const key = (names: string[]) => names.map((name) => name.toLowerCase()).sort();
		expect(key(crawlerNames)).toEqual(key(CRAWLERS.map((c) => c.name)));
	});

	it.for(REQUIRED)("recognizes %s from its real User-Agent", ([name, ua], { expect }) => {
		expect(matchCrawler(ua)?.name).toBe(name);
	});

	it.for([
		["a browser", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"],
		["Chrome on a Mac", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"],
		["Firefox on Linux", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"],
		["Firefox on Windows", "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0"],
		["Safari on a Mac", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15"],
		["Safari on an iPhone", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"],
		["Chrome on Android", "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36"],
		["Samsung Internet", "Mozilla/5.0 (Linux; Android 14; SM-S928B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36"],
		["Edge", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.70"],
		["Opera", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0"],
		["the Facebook in-app browser", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/470.0.0.39.109]"],
		["Googlebot (a search crawler, not an AI one)", GOOGLEBOT],
		["a name inside a longer token", "Mozilla/5.0 (compatible; NotGPTBotAtAll/1.0)"],
		// "Code" and "Spider" are AI agents' names, and common words in other clients' User-Agents.
		["VS Code", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Code/1.96.0 Chrome/128.0.6613.186 Electron/32.2.6 Safari/537.36"],
		["Sogou's search spider", "Sogou web spider/4.0(+http://www.sogou.com/docs/help/webmasters.htm#07)"],
		["empty", ""],
	])("recognizes nothing in %s", ([, ua], { expect }) => {
		expect(matchCrawler(ua)).toBeNull();
	});
});

describe("POST /api/bot-crawl-ingest: every documented status", () => {
	it("answers 204 with no body and stores the visit", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const res = await crawlIngest(visit(site.tracking_id));
		expect(res.status).toBe(204);
		expect(await res.text()).toBe("");
		expect(res.headers.get("access-control-allow-origin")).toBe("*");
		const [stored] = await storedVisits(site.tracking_id);
		expect(stored).toMatchObject({ crawler: "GPTBot", url_host: "example.com", url_path: "/docs", country: "US", status: 200, ua: GPTBOT });
	});

	it.for(REQUIRED)("stores a visit by %s under its name", async ([name, ua], { expect }) => {
		expect((await storedWith({ ua })).crawler).toBe(name);
	});

	it("answers OPTIONS with 204 and CORS", async ({ expect }) => {
		const res = await call("/api/bot-crawl-ingest", { method: "OPTIONS" });
		expect(res.status).toBe(204);
		expect(res.headers.get("access-control-allow-origin")).toBe("*");
	});

	it.for(["GET", "PUT", "DELETE"])("answers %s with 405", async (method, { expect }) => {
		const res = await call("/api/bot-crawl-ingest", { method });
		expect(res.status).toBe(405);
		expect(res.headers.get("allow")).toBe("POST, OPTIONS");
	});

	it("accepts exactly 10,000 characters and answers 413 to 10,001", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const padded = (length: number) => {
			const base = JSON.stringify({ ...visit(site.tracking_id), pad: "" });
			return JSON.stringify({ ...visit(site.tracking_id), pad: "x".repeat(length - base.length) });
		};
		expect((await crawlIngest(null, { raw: padded(10_000) })).status).toBe(204);
		const over = await crawlIngest(null, { raw: padded(10_001) });
		expect(over.status).toBe(413);
		expect(await over.json()).toEqual({ error: "Request body exceeds 10000 characters" });
	});

	it.for([
		["invalid JSON", "{"],
		["an empty body", ""],
		["an array", "[]"],
		["no tracking_id", JSON.stringify({ ua: GPTBOT })],
		["a numeric tracking_id", JSON.stringify({ tracking_id: 7, ua: GPTBOT })],
	])("answers 400 to %s", async ([, raw], { expect }) => {
		const res = await crawlIngest(null, { raw });
		expect(res.status).toBe(400);
		expect(Object.keys(await res.json<object>())).toEqual(["error"]);
	});

	it("answers 404 to an unknown tracking ID and to an inactive site", async ({ expect }) => {
		expect((await crawlIngest(visit("s_AAAAAAAAAAAAAAAAAAAAAA"))).status).toBe(404);
		expect((await crawlIngest(visit("nope"))).status).toBe(404);
		const { token, site } = await ownerWithSite();
		await patchSite(token, site.tracking_id, { active: false });
		expect((await crawlIngest(visit(site.tracking_id))).status).toBe(404);
	});

	it("answers 402 when the owner has neither Pro nor a running trial", async ({ expect }) => {
		const { email, site } = await ownerWithSite();
		await setPlan(email, "free", new Date(Date.now() - 1000).toISOString());
		expect((await crawlIngest(visit(site.tracking_id))).status).toBe(402);
	});

	it("answers 403 without a configured domain and for a url_host outside it", async ({ expect }) => {
		const { site: noDomain } = await ownerWithSite({ domain: null });
		expect((await crawlIngest(visit(noDomain.tracking_id))).status).toBe(403);
		const { site } = await ownerWithSite();
		expect((await crawlIngest(visit(site.tracking_id, { url_host: "evil.com" }))).status).toBe(403);
		expect((await crawlIngest(visit(site.tracking_id, { url_host: 5 }))).status).toBe(403);
		expect((await crawlIngest(visit(site.tracking_id, { url_host: "docs.example.com" }))).status).toBe(204);
	});

	it("stores url_host as the host check read it: trimmed, lower-case, without port or trailing dot", async ({ expect }) => {
		expect((await storedWith({ url_host: " Docs.Example.com.:443 " })).url_host).toBe("docs.example.com");
	});

	it("lets a visit without url_host through and stores no host", async ({ expect }) => {
		expect((await storedWith({ url_host: undefined })).url_host).toBeNull();
	});

	it.for([
		["a request URI: the query and fragment left out", "/docs?ref=x#top", "/docs"],
		// The decoding's own rules: page-path.test.ts.
		["percent-encoding that spells characters, decoded", "/intl/gr%C3%B6%C3%9Fe%20caf%C3%A9", "/intl/größe café"],
		["only a query: the root", "?x=1", "/"],
	])("stores the page a crawler read as the tracker names it: %s", async ([, url_path, stored], { expect }) => {
		expect((await storedWith({ url_path })).url_path).toBe(stored);
	});

	it("stores a fully qualified host without its trailing dot", async ({ expect }) => {
		expect((await storedWith({ url_host: "Docs.Example.COM." })).url_host).toBe("docs.example.com");
	});

	it.for([
		["an unknown User-Agent", { ua: "Mozilla/5.0 (compatible; SomeRandomBot/1.0)" }],
		["Googlebot", { ua: GOOGLEBOT }],
		["no ua", { ua: undefined }],
		["a numeric ua", { ua: 12 }],
	] as Array<[string, Record<string, unknown>]>)("answers %s with 204 and stores nothing", async ([, fields], { expect }) => {
		const { site } = await ownerWithSite();
		expect((await crawlIngest({ ...visit(site.tracking_id), ...fields })).status).toBe(204);
		expect(await storedVisits(site.tracking_id)).toHaveLength(0);
	});

	it("counts 6,000 events per minute per tracking ID, exactly, under concurrency; the 6,001st is 429", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const statuses: number[] = [];
		// Unknown User-Agents count too: the window is on what reaches the endpoint.
		for (let i = 0; i < 6_100; i += 700) {
			const wave = Array.from({ length: Math.min(700, 6_100 - i) }, (_, j) =>
				crawlIngest(visit(site.tracking_id, { ua: (i + j) % 2 ? GPTBOT : "unknown/1.0", url_path: `/${i + j}` }), { ip: uniqueIp() }),
			);
			statuses.push(...(await Promise.all(wave)).map((r) => r.status));
		}
		expect(statuses.filter((s) => s === 204)).toHaveLength(6_000);
		expect(statuses.filter((s) => s === 429)).toHaveLength(100);
		const res = await crawlIngest(visit(site.tracking_id));
		expect(res.status).toBe(429);
		expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
		expect((await res.json<{ error: string }>()).error).toMatch(/^Too many crawler events; retry in \d+ s$/);
		expect(await storedVisits(site.tracking_id)).toHaveLength(3_000);
	}, 120_000);
});

describe("crawler telemetry field rules", () => {
	it.for([
		["US", "US"],
		["DE", "DE"],
		["T1", ""],
		["XX", ""],
		["us", ""],
		["USA", ""],
		["U", ""],
		[12, ""],
		[null, ""],
	] as const)("country %j is stored as %j", async ([country, stored], { expect }) => {
		expect((await storedWith({ country })).country).toBe(stored);
	});

	it("country absent is stored as empty", async ({ expect }) => {
		expect((await storedWith({ country: undefined })).country).toBe("");
	});

	it.for([
		[undefined, 200],
		[404, 404],
		[100, 100],
		[599, 599],
		[99, 200],
		[600, 200],
		[-1, 200],
		[301.9, 301],
		["503", 503],
		["abc", 200],
		[null, 200],
	] as const)("status %j is stored as %i", async ([status, stored], { expect }) => {
		expect((await storedWith({ status })).status).toBe(stored);
	});

	it("url_path: default /, 2,000 characters kept, one more cut", async ({ expect }) => {
		expect((await storedWith({ url_path: undefined })).url_path).toBe("/");
		expect((await storedWith({ url_path: `/${"p".repeat(1_999)}` })).url_path).toHaveLength(2_000);
		expect((await storedWith({ url_path: `/${"p".repeat(2_000)}` })).url_path).toBe(`/${"p".repeat(1_999)}`);
	});

	it("url_host: 500 characters kept, one more cut", async ({ expect }) => {
		const host = (length: number) => `${"h".repeat(length - ".example.com".length)}.example.com`;
		expect((await storedWith({ url_host: host(500) })).url_host).toBe(host(500));
		expect((await storedWith({ url_host: host(501) })).url_host).toBe(host(501).slice(0, 500));
	});

	it("ua: 1,000 characters kept, one more cut", async ({ expect }) => {
		const ua = (length: number) => `${GPTBOT} ${"u".repeat(length - GPTBOT.length - 1)}`;
		expect((await storedWith({ ua: ua(1_000) })).ua).toBe(ua(1_000));
		expect((await storedWith({ ua: ua(1_001) })).ua).toBe(ua(1_001).slice(0, 1_000));
	});

	it("never answers a 500, whatever the shape of each field", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const shapes: unknown[] = [null, true, 0, 1e308, "", "x", [], {}, { a: [1] }, "\ud800"];
		for (const field of ["url_path", "url_host", "ua", "country", "status"]) {
			const responses = await Promise.all(shapes.map((value) => crawlIngest({ ...visit(site.tracking_id), [field]: value })));
			for (const res of responses) expect(res.status, field).toBeLessThan(500);
		}
	});
});

describe("verified crawler visits: the crawler's address inside its operator's published ranges", () => {
	// 20.171.206.0/24 is one of the ranges OpenAI publishes for GPTBot.
	it.for([
		["inside GPTBot's published range", { ip: "20.171.206.17" }, 1],
		["an IPv4 address written as IPv6", { ip: "::ffff:20.171.206.17" }, 1],
		["outside every range: anyone can send the User-Agent", { ip: "203.0.113.9" }, 0],
		["no address sent", {}, null],
		["not an address", { ip: "not-an-ip" }, null],
		["an address of the wrong type", { ip: 42 }, null],
		["a legacy IPv4 notation (one number)", { ip: "2130706433" }, null],
		["a legacy IPv4 notation (hex parts)", { ip: "0x7f.1" }, null],
		["an address with a port", { ip: "20.171.206.17:443" }, null],
		["a crawler whose operator publishes no ranges", { ip: "20.171.206.17", ua: "Mozilla/5.0 (compatible; Bytespider; spider-feedback@bytedance.com)" }, null],
		// Google's user-triggered agents' list is named but had no copy to vendor (docs: domain/crawl/data/README.md): nothing to check against.
		["a crawler whose list has no ranges yet", { ip: "2001:4860:4801:2::1", ua: "Mozilla/5.0 (compatible; Google-Agent)" }, null],
	] as const)("%s", async ([, fields, verified], { expect }) => {
		expect((await storedWith(fields)).verified).toBe(verified);
	});

	// The lists filled from copies of the operators' files: the last address of a published range
	// verifies, the one just past it does not (every list is pinned in test/crawler-table.test.ts).
	const ua = (name: string) => REQUIRED.find(([known]) => known === name)?.[1] ?? `Mozilla/5.0 (compatible; ${name})`;
	it.for([
		["GoogleOther", "2001:4860:4801:2:ffff:ffff:ffff:ffff", "2001:4860:4801:3::"],
		["Google-NotebookLM", "142.250.33.159", "142.250.33.160"],
		["Claude-SearchBot", "216.73.219.255", "216.73.220.0"],
		["CCBot", "3.41.188.39", "3.41.188.40"],
		["DuckAssistBot", "130.107.228.224", "130.107.228.225"],
		["MistralAI-User", "20.240.160.161", "20.240.160.162"],
	] as const)("%s from %s is verified, from %s not", async ([name, last, past], { expect }) => {
		const inside = await storedWith({ ua: ua(name), ip: last });
		expect(inside).toMatchObject({ crawler: name, verified: 1 });
		expect(await storedWith({ ua: ua(name), ip: past })).toMatchObject({ crawler: name, verified: 0 });
	});

	it("counts verified and unverified visits apart in the statistics", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		for (const ip of ["20.171.206.1", "20.171.206.2", "198.51.100.7", undefined]) {
			expect((await crawlIngest({ ...visit(site.tracking_id), ...(ip ? { ip } : {}) })).status).toBe(204);
		}
		const res = await call(`/api/sites/${site.tracking_id}/crawlers`, { token });
		const body = await res.json<any>();
		expect(body).toMatchObject({ visits: 4, verified_visits: 2, unverified_visits: 1 });
		expect(body.crawlers).toEqual([{ name: "GPTBot", operator: "OpenAI", category: "training", visits: 4, verified: 2, unverified: 1 }]);
		expect(body.recent.map((v: { verified: boolean | null }) => v.verified).sort()).toEqual([false, null, true, true].sort());
	});
});
