import { describe, it } from "vitest";
import { parseIssueSearch, tagSearchToken } from "../domain/api/issueSearch";
import { OWNER_LIMITS } from "../domain/limits";
import { ingestOk, issuesOf, listIssues, ownerWithLogKey } from "./logHelpers";

type Json = Record<string, any>;

/** Three issues whose events carry different tags, in two environments. */
async function taggedProject() {
	const project = await ownerWithLogKey();
	const chrome = { browser: { name: "Chrome", version: "131.0.0" }, os: { name: "Windows", version: "11" } };
	const safari = { browser: { name: "Safari", version: "18.1" }, os: { name: "iOS", version: "18.1" } };
	const checkout = await ingestOk(project.rawKey, {
		message: "Checkout failed",
		environment: "production",
		tags: { route: "/pay?step=2", plan: "pro team" },
		contexts: chrome,
		request: { url: "https://shop.example/checkout/pay?coupon=AUTUMN" },
		user: { email: "ana@example.com" },
	});
	await ingestOk(project.rawKey, { message: "Checkout failed", environment: "staging", tags: { route: "/cart", age: "3" }, contexts: safari });
	const login = await ingestOk(project.rawKey, { message: "Login failed", environment: "production", tags: { route: "/login" }, contexts: safari, release: "2.0.0" });
	const crash = await ingestOk(project.rawKey, {
		exception: { type: "TypeError", value: "x is undefined", mechanism: { type: "onerror", handled: false } },
		environment: "production",
		contexts: chrome,
		request: { url: "https://shop.example/account" },
	});
	return { project, checkout: checkout.group_hash, login: login.group_hash, crash: crash.group_hash };
}

/** The hashes of the project's issues a search finds, sorted. */
const searchOf =
	(project: { token: string; projectName: string }) =>
	async (q: string, query: Record<string, string> = {}): Promise<string[]> =>
		(await issuesOf(project, { q, ...query })).map((issue: Json) => issue.group_hash).sort();

describe("the issue list's tag search (q)", () => {
	it("finds the issues with an event that carried each tag's value, drawn from the event or its own", async ({ expect }) => {
		const { project, checkout, login, crash } = await taggedProject();
		const found = searchOf(project);

		expect(await found("browser.name:Chrome")).toEqual([checkout, crash].sort());
		expect(await found('browser:"Safari 18.1"')).toEqual([checkout, login].sort());
		expect(await found("os.name:iOS route:/login")).toEqual([login]);
		expect(await found("handled:no")).toEqual([crash]);
		expect(await found("mechanism:onerror")).toEqual([crash]);
		expect(await found("user:ana@example.com")).toEqual([checkout]);
		expect(await found('plan:"pro team"')).toEqual([checkout]);
		expect(await found('message:"Login failed"')).toEqual([login]);
		// A tag's value as the event carried it: letter case counts, as in Sentry.
		expect(await found("browser.name:chrome")).toEqual([]);
		// With text too, and a key of the list's own (release:) beside it.
		expect(await found("failed browser.name:Safari")).toEqual([checkout, login].sort());
		expect(await found("release:2.0.0 browser.name:Safari")).toEqual([login]);
		// A tag named as one of the list's keys, in Sentry's tags[…] form.
		expect(await found("tags[age]:3")).toEqual([checkout]);
		// has: any value of the tag.
		expect(await found("has:mechanism")).toEqual([crash]);
		expect(await found("has:url")).toEqual([checkout, crash].sort());
		expect(await found("has:age", { environment: "production" })).toEqual([]);
		expect(await found("has:nothing")).toEqual([]);
		// Every tag must match, on any of the issue's events.
		expect(await found("browser.name:Chrome route:/cart")).toEqual([checkout]);
		expect(await found("browser.name:Chrome route:/login")).toEqual([]);
	});

	it("! is Sentry's exclusion: the issues with an event that did not carry the value, or the tag at all", async ({ expect }) => {
		const { project, checkout, login, crash } = await taggedProject();
		const found = searchOf(project);
		// The checkout issue had a Safari event besides its Chrome one; the crash only Chrome.
		expect(await found("!browser.name:Chrome")).toEqual([checkout, login].sort());
		// Events without the tag count: the crash carried no route.
		expect(await found("!route:/login")).toEqual([checkout, crash].sort());
		expect(await found("!route:/*")).toEqual([crash]);
		// The checkout issue's staging event had no url, and the login issue none at all.
		expect(await found("!has:url")).toEqual([checkout, login].sort());
		expect(await found("!has:level")).toEqual([]);
		// In production the checkout issue was seen in Chrome only.
		expect(await found("!browser.name:Chrome", { environment: "production" })).toEqual([login]);
		expect(await found("!browser.name:Safari", { environment: "staging" })).toEqual([]);
		// With the tag itself: issues with Chrome events and others.
		expect(await found("browser.name:Chrome !browser.name:Chrome")).toEqual([checkout]);
		// The list's own keys drawn as tags: the checkout issue had a staging event; only the login issue's were all in 2.0.0.
		expect(await found("!environment:production")).toEqual([checkout]);
		expect(await found("!release:2.0.0")).toEqual([checkout, crash].sort());
		expect(await found("!level:error")).toEqual([]);
	});

	it("Sentry's error.type: the type of any exception of the event's chain, with lists, patterns and !", async ({ expect }) => {
		const { project, checkout, login, crash } = await taggedProject();
		// A RangeError caused by a TypeError (Sentry's chain: the cause first, the reported exception last).
		const chain = [
			{ type: "TypeError", value: "bad input", mechanism: { type: "chained", source: "cause", exception_id: 1, parent_id: 0 } },
			{ type: "RangeError", value: "out of range", mechanism: { type: "generic", exception_id: 0 } },
		];
		const range = (await ingestOk(project.rawKey, { exception: { values: chain }, environment: "production" })).group_hash;
		// An app's own tag of the name gives way to the drawn one: a message has no exception, so no error.type.
		const ownTag = (await ingestOk(project.rawKey, { message: "Tagged by hand", tags: { "error.type": "Fake" } })).group_hash;
		const found = searchOf(project);
		expect(await found("error.type:TypeError")).toEqual([crash, range].sort());
		expect(await found("error.type:RangeError")).toEqual([range]);
		expect(await found("error.type:[RangeError, SyntaxError]")).toEqual([range]);
		expect(await found("error.type:*Error")).toEqual([crash, range].sort());
		expect(await found("error.type:Fake")).toEqual([]);
		// No exception of the chain of one of its events is a TypeError.
		expect(await found("!error.type:TypeError")).toEqual([checkout, login, ownTag].sort());
		expect(await found("!error.type:RangeError")).toEqual([checkout, login, crash, ownTag].sort());
		expect(await found("has:error.type")).toEqual([crash, range].sort());
		// The letter case as the SDK sent it, as every tag's.
		expect(await found("error.type:typeerror")).toEqual([]);
	});

	it("`*` stands for any text, and nothing else is a pattern", async ({ expect }) => {
		const { project, checkout, crash } = await taggedProject();
		const found = searchOf(project);
		expect(await found("url:*checkout*")).toEqual([checkout]);
		// The url tag is the page's, without its query, as Sentry's.
		expect(await found("url:https://shop.example/checkout/pay")).toEqual([checkout]);
		expect(await found("url:*AUTUMN*")).toEqual([]);
		expect(await found("url:https://shop.example/*")).toEqual([checkout, crash].sort());
		expect(await found("route:/pay?step=*")).toEqual([checkout]);
		// GLOB's own ? and […] are the characters themselves.
		expect(await found("route:/pay?ste*")).toEqual([checkout]);
		expect(await found("route:/pa??step=*")).toEqual([]);
		expect(await found("route:/[pc]a*")).toEqual([]);
	});

	it("with an environment, only events there count: as the filter, or as environment: in the search", async ({ expect }) => {
		const { project, checkout } = await taggedProject();
		const found = searchOf(project);
		// The checkout issue's Safari event was in staging.
		expect(await found("route:/cart", { environment: "staging" })).toEqual([checkout]);
		expect(await found("route:/cart", { environment: "production" })).toEqual([]);
		expect(await found("environment:production route:/cart")).toEqual([]);
		expect(await found("environment:staging browser.name:Safari")).toEqual([checkout]);
	});

	it.for([
		[OWNER_LIMITS.issueSearchTags, 200],
		[OWNER_LIMITS.issueSearchTags + 1, 400],
	] as const)("a search naming %i tags: %i", async ([tags, status], { expect }) => {
		const { project, checkout } = await taggedProject();
		// The same tag over and over: each is one more to search (and the search stays within q's 200 characters).
		const q = Array.from({ length: tags }, () => "route:/pay?step=2").join(" ");
		const res = await listIssues(project.token, { project_name: project.projectName, q });
		expect(res.status).toBe(status);
		const body = await res.json<Json>();
		if (status === 200) expect(body.issues.map((issue: Json) => issue.group_hash)).toEqual([checkout]);
		else expect(body.error).toBe(`Invalid request: q: names more than ${OWNER_LIMITS.issueSearchTags} tags`);
	});

	it("reads a search as Sentry's: tags beside the list's keys, URLs and titles left as text", ({ expect }) => {
		expect(parseIssueSearch('is:unresolved browser.name:Chrome url:*pay* plan:"pro team" checkout')).toEqual({
			status: "open",
			tags: [
				{ key: "browser.name", value: "Chrome" },
				{ key: "url", value: "*pay*" },
				{ key: "plan", value: "pro team" },
			],
			text: "checkout",
		});
		expect(parseIssueSearch("tags[environment]:prod Level:error")).toEqual({ tags: [{ key: "environment", value: "prod" }], level: "error" });
		expect(parseIssueSearch("see https://shop.example/pay")).toEqual({ text: "see https://shop.example/pay" });
		// Sentry's message: is text by another name.
		expect(parseIssueSearch('message:"Checkout failed" is:resolved Message:pay')).toEqual({ status: "resolved", text: "Checkout failed pay" });
		expect(parseIssueSearch("TypeError: x is undefined")).toEqual({ text: "TypeError: x is undefined" });
		expect(parseIssueSearch('route:"" is:nothing')).toEqual({ text: 'route:"" is:nothing' });
		expect(parseIssueSearch("has:user HAS:browser.name")).toEqual({ tags: [{ key: "user" }, { key: "browser.name" }] });
		expect(parseIssueSearch('has:""')).toEqual({ text: 'has:""' });
		expect(parseIssueSearch("!has:user !os.name:iOS")).toEqual({ tags: [{ key: "user", negated: true }, { key: "os.name", value: "iOS", negated: true }] });
		// The list's own keys that are drawn tags negate as those tags; the others, and the newest release, are text.
		expect(parseIssueSearch("!level:error !Environment:prod !release:1.0")).toEqual({
			tags: [
				{ key: "level", value: "error", negated: true },
				{ key: "environment", value: "prod", negated: true },
				{ key: "release", value: "1.0", negated: true },
			],
		});
		expect(parseIssueSearch('!release:"latest"')).toEqual({ tags: [{ key: "release", value: "latest", negated: true }] });
		expect(parseIssueSearch("!is:resolved !release:latest !user:ana !level:")).toEqual({ text: "!is:resolved !release:latest !user:ana !level:" });
		expect(parseIssueSearch('url:"//cdn.example/app.js"')).toEqual({ tags: [{ key: "url", value: "//cdn.example/app.js" }] });
		// The console moves only the keys it has filters for; tags stay in its search box.
		expect(parseIssueSearch("browser.name:Chrome is:resolved", new Set(["status"]))).toEqual({ status: "resolved", text: "browser.name:Chrome" });
	});

	it.for([
		["browser.name", "Chrome", "browser.name:Chrome"],
		["plan", "pro team", 'plan:"pro team"'],
		["url", "https://shop.example/pay?x=1", "url:https://shop.example/pay?x=1"],
		["url", "//cdn.example/app.js", 'url:"//cdn.example/app.js"'],
		["level", "error", "tags[level]:error"],
		["Environment", "prod", "tags[Environment]:prod"],
		["order id", "7", null],
		["route", 'say "hi"', null],
		["odd]key", "x", null],
	] as const)("the console's link for tag %j = %j searches %j", ([key, value, token], { expect }) => {
		expect(tagSearchToken(key, value)).toBe(token);
		if (token) expect(parseIssueSearch(token)).toEqual({ tags: [{ key, value }] });
	});
});
