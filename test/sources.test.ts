import { describe, it } from "vitest";
import { collect, ownerWithSite, pageview, storedEvents } from "./analytics-helpers";

/*
 * Sources and campaigns as collection stores them, from the referrer and the page URL a tracker
 * really sends (`document.referrer`, `location.search`), on a site whose domain is example.com.
 */

describe("sources: referrers grouped by the vendored list of known referrers", () => {
	it.for([
		// [what, referrer, stored source, stored referrer_host]
		["Google search", "https://www.google.com/", "Google", "www.google.com"],
		["Google in another country", "https://www.google.de/", "Google", "www.google.de"],
		["Google under a multi-part suffix", "https://www.google.co.uk/", "Google", "www.google.co.uk"],
		["Google Images (a host and path entry)", "https://google.com/imgres?imgurl=x", "Google Images", "google.com"],
		["Bing", "https://www.bing.com/search?q=svc+analytics", "Bing", "www.bing.com"],
		["DuckDuckGo", "https://duckduckgo.com/", "DuckDuckGo", "duckduckgo.com"],
		["X's link shortener", "https://t.co/AbCdEf1234", "Twitter", "t.co"],
		["x.com", "https://x.com/someone/status/1", "Twitter", "x.com"],
		["Hacker News", "https://news.ycombinator.com/item?id=4242", "Hacker News", "news.ycombinator.com"],
		["Reddit", "https://www.reddit.com/r/webdev/comments/abc/title/", "Reddit", "www.reddit.com"],
		["old Reddit", "https://old.reddit.com/r/selfhosted/", "Reddit", "old.reddit.com"],
		["GitHub", "https://github.com/owner/repo", "GitHub", "github.com"],
		["a GitHub subdomain (its parent is listed)", "https://gist.github.com/someone/abc", "GitHub", "gist.github.com"],
		["LinkedIn", "https://www.linkedin.com/feed/", "LinkedIn", "www.linkedin.com"],
		["LinkedIn's link shortener", "https://lnkd.in/eXaMpLe", "LinkedIn", "lnkd.in"],
		["Facebook's outbound link", "https://l.facebook.com/l.php?u=https%3A%2F%2Fexample.com%2F", "Facebook", "l.facebook.com"],
		["Facebook mobile", "https://m.facebook.com/", "Facebook", "m.facebook.com"],
		["YouTube with www.", "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "Youtube", "www.youtube.com"],
		["a Substack newsletter", "https://someone.substack.com/p/a-post", "Substack", "someone.substack.com"],
		["a Buttondown newsletter (overrides.json)", "https://buttondown.email/someone/archive/issue-12/", "Buttondown", "buttondown.email"],
		["a beehiiv newsletter (a subdomain; overrides.json)", "https://someone.beehiiv.com/p/post", "beehiiv", "someone.beehiiv.com"],
		["a Mailchimp campaign page (overrides.json)", "https://us5.campaign-archive.com/?u=abc&id=def", "Mailchimp", "us5.campaign-archive.com"],
		["Hacker News search (overrides.json)", "https://hn.algolia.com/?q=svc", "Hacker News", "hn.algolia.com"],
		["Product Hunt (overrides.json)", "https://www.producthunt.com/posts/svc", "Product Hunt", "www.producthunt.com"],
		["Gmail on the web", "https://mail.google.com/", "Gmail", "mail.google.com"],
		["the Gmail app on Android", "android-app://com.google.android.gm/", "Gmail", "com.google.android.gm"],
		["ChatGPT (overrides.json)", "https://chatgpt.com/", "ChatGPT", "chatgpt.com"],
		["an unknown blog: its host without www.", "https://www.someblog.dev/2025/post", "someblog.dev", "www.someblog.dev"],
		["internal navigation", "https://example.com/pricing", "", ""],
		["internal navigation from www.", "https://www.example.com/", "", ""],
		["a direct visit", "", "", ""],
		["an unreadable referrer", "not a url", "", ""],
	])("%s", async ([, referrer, source, referrerHost], { expect }) => {
		const { site } = await ownerWithSite();
		expect((await collect(pageview(site.tracking_id, { referrer }))).status).toBe(204);
		const [event] = await storedEvents(site.tracking_id);
		expect({ source: event.source, referrer_host: event.referrer_host, referrer: event.referrer }).toEqual({
			source,
			referrer_host: referrerHost,
			referrer,
		});
	});
});

describe("campaigns: utm_* and ref read from the page URL; utm_source, source or ref names the source", () => {
	const none = { utm_source: "", utm_medium: "", utm_campaign: "", utm_content: "", utm_term: "", ref: "" };
	it.for([
		// [what, url_query, referrer, stored source, stored campaign fields]
		[
			"a newsletter link with every utm_ parameter",
			"?utm_source=newsletter&utm_medium=email&utm_campaign=spring_launch&utm_content=header_button&utm_term=analytics",
			"https://mail.google.com/",
			"newsletter",
			{ utm_source: "newsletter", utm_medium: "email", utm_campaign: "spring_launch", utm_content: "header_button", utm_term: "analytics" },
		],
		["a known source spelt in lower case", "?utm_source=twitter&utm_medium=social", "", "Twitter", { ...none, utm_source: "twitter", utm_medium: "social" }],
		["a known source given as its host", "?utm_source=news.ycombinator.com", "", "Hacker News", { ...none, utm_source: "news.ycombinator.com" }],
		["a short name from overrides.json", "?utm_source=hn", "", "Hacker News", { ...none, utm_source: "hn" }],
		// A link's ref and the referrer of the same site are one source, under the list's name.
		["ref, as Product Hunt and others link", "?ref=producthunt", "https://www.producthunt.com/posts/svc", "Product Hunt", { ...none, ref: "producthunt" }],
		["ref naming a known source without its space", "?ref=hackernews", "", "Hacker News", { ...none, ref: "hackernews" }],
		["ref naming a known source with underscores", "?ref=product_hunt", "", "Product Hunt", { ...none, ref: "product_hunt" }],
		["utm_source naming a known source in capitals, hyphenated", "?utm_source=HACKER-NEWS", "", "Hacker News", { ...none, utm_source: "HACKER-NEWS" }],
		["utm_source naming a known source with its space encoded", "?utm_source=Product%20Hunt", "", "Product Hunt", { ...none, utm_source: "Product Hunt" }],
		["ref naming a known host", "?ref=github.com", "", "GitHub", { ...none, ref: "github.com" }],
		["ref naming no known source stays as written", "?ref=my-weekly_digest", "", "my-weekly_digest", { ...none, ref: "my-weekly_digest" }],
		["source=", "?source=weekly-digest", "", "weekly-digest", none],
		["utm_source wins over ref, which is kept for its own breakdown", "?ref=somewhere&utm_source=newsletter", "", "newsletter", { ...none, utm_source: "newsletter", ref: "somewhere" }],
		["ref trimmed and decoded", "?ref=%20side%20project%20", "", "side project", { ...none, ref: "side project" }],
		["encoded values are decoded", "?utm_campaign=spring%20sale&utm_source=Mastodon", "", "Mastodon", { ...none, utm_source: "Mastodon", utm_campaign: "spring sale" }],
		["no campaign: the referrer decides", "?page=2", "https://duckduckgo.com/", "DuckDuckGo", none],
		["an empty utm_source: the referrer decides", "?utm_source=&utm_medium=cpc", "https://www.bing.com/", "Bing", { ...none, utm_medium: "cpc" }],
	] as const)("%s", async ([, urlQuery, referrer, source, campaign], { expect }) => {
		const { site } = await ownerWithSite();
		expect((await collect(pageview(site.tracking_id, { url_query: urlQuery, referrer }))).status).toBe(204);
		const [event] = await storedEvents(site.tracking_id);
		expect(event).toMatchObject({ source, ...campaign, url_query: urlQuery });
	});
});
