import { describe, it } from "vitest";
import { parseIssueSearch, searchRefusal } from "../domain/api/issueSearch";
import { call } from "./helpers";
import { ingestOk, issuesOf, listIssues, ownerWithLogKey } from "./logHelpers";

type Json = Record<string, any>;

/** Four issues of different levels, releases, environments, browsers and handling. */
async function sentryProject() {
	const project = await ownerWithLogKey();
	const chrome = { browser: { name: "Chrome", version: "131.0.0" } };
	const safari = { browser: { name: "Mobile Safari", version: "18.1" } };
	const typeError = await ingestOk(project.rawKey, {
		level: "error",
		exception: { type: "TypeError", value: "x is undefined", mechanism: { type: "onerror", handled: false } },
		environment: "production",
		release: "1.2.3",
		contexts: chrome,
		tags: { route: "/cart" },
	});
	const quantity = await ingestOk(project.rawKey, {
		level: "fatal",
		exception: { type: "RangeError", value: "Invalid quantity -1", mechanism: { type: "generic", handled: true } },
		environment: "staging",
		release: "1.2.4",
		contexts: safari,
		tags: { route: "/pay/confirm" },
	});
	const slow = await ingestOk(project.rawKey, { level: "warning", message: "Payment provider slow", environment: "production", release: "2.0.0", contexts: safari });
	const low = await ingestOk(project.rawKey, { level: "info", message: "Inventory low or gone", environment: "production", release: "1.2.3" });
	return { project, typeError: typeError.group_hash, quantity: quantity.group_hash, slow: slow.group_hash, low: low.group_hash };
}

const searchOf =
	(project: { token: string; projectName: string }) =>
	async (q: string): Promise<string[]> =>
		(await issuesOf(project, { q })).map((issue: Json) => issue.group_hash).sort();

describe("Sentry's search syntax beyond key:value", () => {
	it("key:[a, b] keeps the issues with an event of any of the values; with !, of none of them", async ({ expect }) => {
		const { project, typeError, quantity, slow, low } = await sentryProject();
		const found = searchOf(project);
		expect(await found("level:[error, fatal]"), "level:[error, fatal]").toEqual([typeError, quantity].sort());
		expect(await found("level:[error,fatal]"), "level:[error,fatal]").toEqual([typeError, quantity].sort());
		expect(await found("!level:[error, fatal]"), "!level:[error, fatal]").toEqual([slow, low].sort());
		expect(await found("is:unresolved level:[error,fatal] release:1.2.3"), "is:unresolved level:[error,fatal] release:1.2.3").toEqual([typeError]);
		expect(await found('release:[1.2.4, "2.0.0"]'), 'release:[1.2.4, "2.0.0"]').toEqual([quantity, slow].sort());
		expect(await found("environment:[staging, qa]"), "environment:[staging, qa]").toEqual([quantity]);
		expect(await found('browser.name:[Chrome, "Mobile Safari"]'), 'browser.name:[Chrome, "Mobile Safari"]').toEqual([typeError, quantity, slow].sort());
		expect(await found("tags[route]:[/cart, /login]"), "tags[route]:[/cart, /login]").toEqual([typeError]);
		// `*` stands for any text in a list's values too.
		expect(await found("route:[/login, /pay/*]"), "route:[/login, /pay/*]").toEqual([quantity]);
		expect(await found("route:[/login, /nowhere]"), "route:[/login, /nowhere]").toEqual([]);
	});

	it("Sentry's error.handled: and error.unhandled: are the handled tag", async ({ expect }) => {
		const { project, typeError, quantity, slow, low } = await sentryProject();
		const found = searchOf(project);
		expect(await found("error.unhandled:true"), "error.unhandled:true").toEqual([typeError]);
		expect(await found("error.handled:false"), "error.handled:false").toEqual([typeError]);
		expect(await found("!error.handled:TRUE"), "!error.handled:TRUE").toEqual([typeError]);
		// As Sentry counts it, an event without an exception (a message) was not unhandled.
		expect(await found("error.handled:1"), "error.handled:1").toEqual([quantity, slow, low].sort());
		expect(await found("!error.unhandled:1"), "!error.unhandled:1").toEqual([quantity, slow, low].sort());
		expect(await found("error.unhandled:0"), "error.unhandled:0").toEqual([quantity, slow, low].sort());
	});

	it("timesSeen: compares the issue's count, in the environment read", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const send = (fingerprint: string, environment: string) => ingestOk(project.rawKey, { fingerprint: [fingerprint], message: fingerprint, environment });
		for (let i = 0; i < 3; i++) await send("often", "production");
		await send("often", "staging");
		const { group_hash: often } = await send("often", "staging");
		const { group_hash: once } = await send("once", "production");
		const found = async (q: string, query: Record<string, string> = {}) => (await issuesOf(project, { q, ...query })).map((issue: Json) => issue.group_hash).sort();
		expect(await found("timesSeen:>1"), "timesSeen:>1").toEqual([often]);
		expect(await found("timesSeen:5"), "timesSeen:5").toEqual([often]);
		expect(await found("timesSeen:<=1"), "timesSeen:<=1").toEqual([once]);
		expect(await found("timesSeen:>=1k"), "timesSeen:>=1k").toEqual([]);
		expect(await found("is:unresolved timesseen:<5"), "is:unresolved timesseen:<5").toEqual([once]);
		// In staging the often issue was seen twice.
		expect(await found("timesSeen:>2", { environment: "staging" }), "timesSeen:>2 in staging").toEqual([]);
		expect(await found("timesSeen:2", { environment: "staging" }), "timesSeen:2 in staging").toEqual([often]);
		expect(parseIssueSearch("timesSeen:>1k")).toEqual({ times_seen: { op: ">", count: 1000 } });
		// Not a count: text, as an is: the list does not know (the console says what it takes).
		expect(parseIssueSearch("timesSeen:lots")).toEqual({ text: "timesSeen:lots" });
	});

	it("a context's text read from a file (@sentry/node's Debian version, newline and all) is kept and searched trimmed", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const os = { name: "Debian", version: "12.11\n", kernel_version: " 6.1.0 " };
		const { group_hash } = await ingestOk(project.rawKey, { message: "On Debian", contexts: { os, runtime: { name: "node", version: "v20.20.2\n" } } });
		const [stored] = (await issuesOf(project, { q: 'os:"Debian 12.11"' })).map((issue: Json) => issue.group_hash);
		expect(stored).toBe(group_hash);
		expect((await issuesOf(project, { q: 'runtime:"node v20.20.2"' })).map((issue: Json) => issue.group_hash)).toEqual([group_hash]);
		const res = await call(`/api/issues/${group_hash}?${new URLSearchParams({ project_name: project.projectName })}`, { token: project.token });
		const [event] = (await res.json<Json>()).events;
		expect(event.contexts.os).toEqual({ name: "Debian", version: "12.11", kernel_version: "6.1.0" });
	});

	it("text in double quotes is the text inside them", async ({ expect }) => {
		const { project, quantity } = await sentryProject();
		const found = searchOf(project);
		expect(await found('"Invalid quantity"'), '"Invalid quantity"').toEqual([quantity]);
		expect(await found('is:unresolved "Invalid quantity"'), 'is:unresolved "Invalid quantity"').toEqual([quantity]);
	});

	it.for([
		["level:error OR level:fatal", "uses OR, which an issue search does not take (nor does Sentry's): every term must hold. For any of several values of one key, list them: level:[error, fatal]"],
		["checkout AND level:error", "uses AND, which an issue search does not take (nor does Sentry's): every term must hold. For any of several values of one key, list them: level:[error, fatal]"],
		["is:[resolved, ignored]", "gives is: a list (is:[resolved, ignored]): only level:, environment:, release: and tags take one"],
		["level:[error,]", "has a list with an empty value (level:[error,]): name a value between each comma"],
	])("%s: 400, saying why, where it would have found the wrong issues", async ([q, message], { expect }) => {
		const { project } = await sentryProject();
		const res = await listIssues(project.token, { project_name: project.projectName, q });
		expect(res.status).toBe(400);
		expect((await res.json<Json>()).error).toBe(`Invalid request: q: ${message}`);
	});

	it("or and and in lower case, and OR in quotes, are text as a title holds them", async ({ expect }) => {
		const { project, low } = await sentryProject();
		const found = searchOf(project);
		expect(await found("low or gone"), "low or gone").toEqual([low]);
		expect(await found('message:"low or gone"'), 'message:"low or gone"').toEqual([low]);
		expect(searchRefusal('message:"a OR b"')).toBeNull();
	});

	it("an issue's events searched with a list", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const { group_hash } = await ingestOk(project.rawKey, { fingerprint: ["one"], message: "Checkout failed", release: "1.0.0", tags: { shard: "eu-1" } });
		await ingestOk(project.rawKey, { fingerprint: ["one"], message: "Checkout failed", release: "1.0.1", tags: { shard: "us-1" } });
		await ingestOk(project.rawKey, { fingerprint: ["one"], message: "Checkout failed", release: "1.0.2", tags: { shard: "ap-1" } });
		const eventsOf = async (q: string) => {
			const res = await call(`/api/issues/${group_hash}?${new URLSearchParams({ project_name: project.projectName, q })}`, { token: project.token });
			expect(res.status).toBe(200);
			return (await res.json<Json>()).events.map((event: Json) => event.release).sort();
		};
		expect(await eventsOf("release:[1.0.0, 1.0.2]")).toEqual(["1.0.0", "1.0.2"]);
		expect(await eventsOf("!shard:[eu-1, us-1]")).toEqual(["1.0.2"]);
	});

	it("parses as Sentry does", ({ expect }) => {
		expect(parseIssueSearch('level:[error, "fatal"] !browser.name:[Chrome,Firefox] tags[release]:[a]')).toEqual({
			tags: [
				{ key: "level", value: ["error", "fatal"] },
				{ key: "browser.name", value: ["Chrome", "Firefox"], negated: true },
				{ key: "release", value: ["a"] },
			],
		});
		expect(parseIssueSearch('"TypeError: x"')).toEqual({ text: "TypeError: x" });
		// Quotes only around part of the text stay, as a pasted title may hold them.
		expect(parseIssueSearch('Unexpected token "<"')).toEqual({ text: 'Unexpected token "<"' });
		expect(parseIssueSearch("error.handled:maybe")).toEqual({ text: "error.handled:maybe" });
		expect(parseIssueSearch("error.unhandled:true")).toEqual({ tags: [{ key: "handled", value: "no" }] });
		expect(parseIssueSearch("error.handled:true")).toEqual({ tags: [{ key: "handled", value: "no", negated: true }] });
		expect(searchRefusal("is:unresolved level:[error, fatal]")).toBeNull();
		expect(searchRefusal("OR")).toMatch(/^uses OR/);
	});
});
