import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { FIELD_KEYS } from "../domain/api/issueSearch";
import { applySuggestion, keySuggestions, type KeyToken, SEARCH_KEYS, type SearchTokenAt, tokenAt, type ValueToken, valueSuggestions } from "../domain/api/issueSearchSuggestions";
import { OWNER_LIMITS } from "../domain/limits";
import { prefixPattern, TAG_KEYS, TAG_VALUES } from "../domain/logs/tagSuggestions";
import { call } from "./helpers";
import { ingestOk, ownerWithLogKey } from "./logHelpers";

type Json = Record<string, any>;
type Project = Awaited<ReturnType<typeof ownerWithLogKey>>;

const tagKeysOf = (project: Project, query: Record<string, string> = {}) =>
	call(`/api/issues/tag-keys?${new URLSearchParams({ project_name: project.projectName, ...query })}`, { token: project.token });
const tagValuesOf = (project: Project, query: Record<string, string>) =>
	call(`/api/issues/tag-values?${new URLSearchParams({ project_name: project.projectName, ...query })}`, { token: project.token });

async function ok(res: Response): Promise<Json> {
	if (res.status !== 200) throw new Error(`expected 200, got ${res.status} ${await res.text()}`);
	return res.json();
}

/** Two issues whose events carry a plan tag: pro on 3 events over both, team on 2 of one, free on 1; and browsers in two environments. */
async function taggedProject() {
	const project = await ownerWithLogKey();
	const send = (message: string, environment: string, plan: string, browser: string) =>
		ingestOk(project.rawKey, { message, environment, tags: { plan }, contexts: { browser: { name: browser } } });
	await send("Checkout failed", "production", "pro", "Chrome");
	await send("Checkout failed", "production", "team", "Chrome");
	await send("Checkout failed", "staging", "team", "Chromium");
	await send("Login failed", "production", "pro", "Safari");
	await send("Login failed", "staging", "pro", "chrome");
	await send("Login failed", "staging", "free", "Firefox");
	return project;
}

/**
 * `rows` rows of one tag, written straight into log_issue_tags as a flush would (a value per row,
 * in `environment`, one event each unless `counts` says): the bounds need ten thousand values,
 * too many to send as events in a test.
 */
async function seedTagRows(project: Project, tagKey: string, rows: number, { environment = "production", first = 0, counts = 1 } = {}) {
	const now = Date.now();
	await env.DB.prepare(`INSERT INTO log_issue_tags (key_id, group_hash, environment, tag_key, value, count, first_seen, last_seen)
		WITH RECURSIVE n(i) AS (SELECT ?3 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?3 + ?4)
		SELECT ?1, printf('%032x', i), ?5, ?2, printf('v%06d', i), ?6, ?7, ?7 FROM n`)
		.bind(project.keyId, tagKey, first, rows, environment, counts, now)
		.run();
}

describe("GET /api/issues/tag-keys", () => {
	it("answers the project's tag keys in order, drawn and own, with the events just sent", async ({ expect }) => {
		const project = await taggedProject();
		expect(await ok(await tagKeysOf(project))).toEqual({
			keys: ["browser", "browser.name", "environment", "level", "plan"],
			partial: false,
		});
		// Another project's tags are its own.
		const other = await ownerWithLogKey();
		await ingestOk(other.rawKey, { message: "x", tags: { shard: "a" } });
		expect((await ok(await tagKeysOf(other))).keys).toEqual(["level", "shard"]);
	});

	it("in an environment, the keys with a value there", async ({ expect }) => {
		const project = await taggedProject();
		await ingestOk(project.rawKey, { message: "Deploy failed", environment: "canary", tags: { region: "eu" } });
		expect((await ok(await tagKeysOf(project, { environment: "canary" }))).keys).toEqual(["environment", "level", "region"]);
		expect((await ok(await tagKeysOf(project, { environment: "production" }))).keys).toEqual(["browser", "browser.name", "environment", "level", "plan"]);
		expect((await ok(await tagKeysOf(project, { environment: "nowhere" }))).keys).toEqual([]);
	});

	it.for([
		[OWNER_LIMITS.issueSearchKeys, false],
		[OWNER_LIMITS.issueSearchKeys + 1, true],
	] as const)("%i keys: 200 answered, partial %s, a few index seeks each", async ([keys, partial], { expect }) => {
		const project = await ownerWithLogKey();
		// Each key with many values: a walk of the rows would read all of them.
		for (let k = 0; k < keys; k++) await seedTagRows(project, `k${String(k).padStart(3, "0")}`, 50);
		const body = await ok(await tagKeysOf(project));
		expect(body.keys).toHaveLength(OWNER_LIMITS.issueSearchKeys);
		expect(body.keys[0]).toBe("k000");
		expect(body.partial).toBe(partial);
		const { meta } = await env.DB.prepare(TAG_KEYS).bind(project.keyId, null, OWNER_LIMITS.issueSearchKeys + 1, OWNER_LIMITS.issueSearchKeyProbeRows).all();
		expect(meta.rows_read).toBeLessThan(keys * 5);
	});

	it.for([
		[OWNER_LIMITS.issueSearchKeyProbeRows - 1, true],
		[OWNER_LIMITS.issueSearchKeyProbeRows, false],
	] as const)("in an environment, a key whose first %i rows are elsewhere: offered %s", async ([elsewhere, offered], { expect }) => {
		const project = await ownerWithLogKey();
		await seedTagRows(project, "request_id", elsewhere);
		await seedTagRows(project, "request_id", 1, { environment: "staging", first: elsewhere });
		expect((await ok(await tagKeysOf(project, { environment: "staging" }))).keys.includes("request_id")).toBe(offered);
		expect((await ok(await tagKeysOf(project, { environment: "production" }))).keys).toEqual(["request_id"]);
	});
});

describe("GET /api/issues/tag-values", () => {
	it("answers a tag's values most events carried first, summed over the project's issues", async ({ expect }) => {
		const project = await taggedProject();
		expect(await ok(await tagValuesOf(project, { key: "plan" }))).toEqual({
			key: "plan",
			values: [
				{ value: "pro", count: 3 },
				{ value: "team", count: 2 },
				{ value: "free", count: 1 },
			],
			partial: false,
		});
		// Ties by value.
		expect((await ok(await tagValuesOf(project, { key: "environment" }))).values).toEqual([
			{ value: "production", count: 3 },
			{ value: "staging", count: 3 },
		]);
		expect(await ok(await tagValuesOf(project, { key: "nothing" }))).toEqual({ key: "nothing", values: [], partial: false });
	});

	it("from a prefix, letter case as typed, GLOB's characters as themselves", async ({ expect }) => {
		const project = await taggedProject();
		await ingestOk(project.rawKey, { message: "x", tags: { route: "/pay?step=2" } });
		await ingestOk(project.rawKey, { message: "x", tags: { route: "/pay[1]" } });
		await ingestOk(project.rawKey, { message: "x", tags: { route: "/pay*" } });
		const values = async (key: string, prefix: string) => (await ok(await tagValuesOf(project, { key, prefix }))).values.map((v: Json) => v.value);
		expect(await values("browser.name", "Chrom")).toEqual(["Chrome", "Chromium"]);
		expect(await values("browser.name", "chrom")).toEqual(["chrome"]);
		expect(await values("browser.name", "")).toEqual(["Chrome", "Chromium", "Firefox", "Safari", "chrome"]);
		expect(await values("route", "/pay?")).toEqual(["/pay?step=2"]);
		expect(await values("route", "/pay[")).toEqual(["/pay[1]"]);
		expect(await values("route", "/pay*")).toEqual(["/pay*"]);
		expect(await values("route", "/pa*")).toEqual([]);
	});

	it("in an environment, its events there", async ({ expect }) => {
		const project = await taggedProject();
		expect((await ok(await tagValuesOf(project, { key: "plan", environment: "staging" }))).values).toEqual([
			{ value: "free", count: 1 },
			{ value: "pro", count: 1 },
			{ value: "team", count: 1 },
		]);
		expect((await ok(await tagValuesOf(project, { key: "plan", environment: "production", prefix: "t" }))).values).toEqual([{ value: "team", count: 1 }]);
	});

	it.for([
		[OWNER_LIMITS.issueSearchValues, undefined],
		[OWNER_LIMITS.issueSearchValues, String(OWNER_LIMITS.issueSearchValues)],
		[3, "3"],
	] as const)("%i values at most with limit %s", async ([answered, limit], { expect }) => {
		const project = await ownerWithLogKey();
		// One value more than the most answered, the last carried by most events.
		await seedTagRows(project, "shard", OWNER_LIMITS.issueSearchValues + 1);
		await seedTagRows(project, "shard", 1, { environment: "staging", first: OWNER_LIMITS.issueSearchValues, counts: 5 });
		const body = await ok(await tagValuesOf(project, { key: "shard", ...(limit && { limit }) }));
		expect(body.values).toHaveLength(answered);
		expect(body.values[0]).toEqual({ value: `v${String(OWNER_LIMITS.issueSearchValues).padStart(6, "0")}`, count: 6 });
		expect(body.values[1]).toEqual({ value: "v000000", count: 1 });
	});

	it.for([
		[OWNER_LIMITS.issueSearchValueRows, false],
		[OWNER_LIMITS.issueSearchValueRows + 1, true],
		[OWNER_LIMITS.issueSearchValueRows * 3, true],
	] as const)("a tag of %i rows: the first 10,000 counted, partial %s", async ([rows, partial], { expect }) => {
		const project = await ownerWithLogKey();
		// The value last in order carried by most events: counted only within the bound.
		await seedTagRows(project, "request_id", rows - 1);
		await seedTagRows(project, "request_id", 1, { first: rows - 1, counts: 100 });
		const body = await ok(await tagValuesOf(project, { key: "request_id" }));
		const last = `v${String(rows - 1).padStart(6, "0")}`;
		expect(body.partial).toBe(partial);
		expect(body.values[0]).toEqual(partial ? { value: "v000000", count: 1 } : { value: last, count: 100 });
		// The rows D1 counts as read, whatever the tag's size: the bound and one more of the index, each
		// one's row for its count, then those rows again in the statement's own tables (ranked, counted, grouped).
		const { meta } = await env.DB.prepare(TAG_VALUES)
			.bind(project.keyId, "request_id", prefixPattern(""), null, OWNER_LIMITS.issueSearchValueRows, OWNER_LIMITS.issueSearchValues)
			.all();
		expect(meta.rows_read).toBeLessThanOrEqual(5 * (OWNER_LIMITS.issueSearchValueRows + 1) + 100);
		// A prefix reads from where its values start.
		const from = await ok(await tagValuesOf(project, { key: "request_id", prefix: last }));
		expect(from).toEqual({ key: "request_id", values: [{ value: last, count: 100 }], partial: false });
	});
});

describe("the suggestions' refusals", () => {
	it.for([
		["tag-values", { key: "x".repeat(201) }, "key: must be at most 200 characters"],
		["tag-values", { key: "" }, "key: is required"],
		["tag-values", {}, "key: is required"],
		["tag-values", { key: "plan", prefix: "x".repeat(501) }, "prefix: must be at most 500 characters"],
		["tag-values", { key: "plan", limit: String(OWNER_LIMITS.issueSearchValues + 1) }, `limit: must be a whole number from 1 to ${OWNER_LIMITS.issueSearchValues}`],
		["tag-values", { key: "plan", limit: "0" }, `limit: must be a whole number from 1 to ${OWNER_LIMITS.issueSearchValues}`],
		["tag-values", { key: "plan", environment: "" }, "environment: must not be empty"],
		["tag-keys", { environment: "e".repeat(501) }, "environment: must be at most 500 characters"],
		["tag-keys", { key: "plan" }, "unknown parameter key"],
	] as const)("%s with %j: 400 %j", async ([route, query, message], { expect }) => {
		const project = await ownerWithLogKey();
		const res = await call(`/api/issues/${route}?${new URLSearchParams({ project_name: project.projectName, ...query })}`, { token: project.token });
		expect(res.status).toBe(400);
		expect((await res.json<Json>()).error).toBe(`Invalid request: ${message}`);
	});

	it("a key given twice: 400", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const res = await tagValuesOf(project, { key: "a" });
		expect(res.status).toBe(200);
		const twice = await call(`/api/issues/tag-values?project_name=${project.projectName}&key=a&key=b`, { token: project.token });
		expect(twice.status).toBe(400);
		expect((await twice.json<Json>()).error).toBe("Invalid request: key: must be given once");
	});

	it.for(["tag-keys", "tag-values"])("%s: 404 for a project not the owner's, 401 without a session", async (route, { expect }) => {
		const project = await ownerWithLogKey();
		const other = await ownerWithLogKey();
		const query = new URLSearchParams({ project_name: other.projectName, key: "plan" });
		if (route === "tag-keys") query.delete("key");
		const unknown = await call(`/api/issues/${route}?${query}`, { token: project.token });
		expect(unknown.status).toBe(404);
		expect((await unknown.json<Json>()).error).toMatch(/project/i);
		expect((await call(`/api/issues/${route}?${query}`)).status).toBe(401);
	});
});

describe("the search box's completion", () => {
	const at = (text: string, cursor = text.length) => tokenAt(text, cursor) as SearchTokenAt;

	it("offers the list's own keys, every one the search reads", ({ expect }) => {
		expect(new Set(SEARCH_KEYS.map(([key]) => key.toLowerCase()))).toEqual(FIELD_KEYS);
	});

	it("finds the token at the cursor: a key being typed, or a key's value, quotes and all", ({ expect }) => {
		expect(tokenAt("is:unresolved bro", 17)).toEqual({ start: 14, end: 17, negated: false, kind: "key", typed: "bro" });
		expect(tokenAt("is:unresolved bro", 3)).toEqual({ start: 0, end: 13, negated: false, kind: "value", key: "is", typed: "" });
		expect(tokenAt('plan:"pro te', 12)).toEqual({ start: 0, end: 12, negated: false, kind: "value", key: "plan", typed: "pro te" });
		expect(tokenAt("!has:us x", 7)).toEqual({ start: 0, end: 7, negated: true, kind: "value", key: "has", typed: "us" });
		expect(tokenAt("tags[level]:er", 14)).toMatchObject({ kind: "value", key: "tags[level]", typed: "er" });
		expect(tokenAt("checkout ", 9)).toEqual({ start: 9, end: 9, negated: false, kind: "key", typed: "" });
		expect(tokenAt("url:https://shop.example", 24)).toMatchObject({ kind: "value", key: "url", typed: "https://shop.example" });
		expect(tokenAt("see https://shop", 16)).toBeNull();
		expect(tokenAt('say "hi', 7)).toBeNull();
	});

	it("suggests keys that hold the word, those that start with it first; tags named as keys in tags[…]", ({ expect }) => {
		const tags = ["browser.name", "level", "Level", "os.name", "user", "order id", "age"];
		const labels = (text: string) => keySuggestions(at(text) as KeyToken, tags).map((s) => s.token);
		expect(labels("us")).toEqual(["user:", "user.id:", "user.email:"]);
		expect(labels("name")).toEqual(["browser.name:", "os.name:"]);
		expect(labels("lev")).toEqual(["level:", "tags[Level]:"]);
		expect(labels("ag")).toEqual(["age:", "tags[age]:", "message:"]);
		expect(labels("order")).toEqual([]);
		expect(labels("!b")).toEqual(["!browser.name:"]);
		expect(labels("!h")).toEqual(["!has:"]);
		// The list's keys the search negates as their drawn tags; not is: or user:.
		expect(labels("!lev")).toEqual(["!level:", "!tags[Level]:"]);
		expect(labels("!rel")).toEqual(["!release:"]);
		expect(labels("!is")).toEqual([]);
		expect(labels("!us")).toEqual([]);
	});

	it("suggests a key's values, fixed or given, quoted as the search reads them", ({ expect }) => {
		const tokens = (text: string, values: Array<{ value: string; count?: number }> = []) =>
			valueSuggestions(at(text) as ValueToken, values).map((s) => s.token);
		expect(tokens("is:")).toEqual(["is:unresolved", "is:resolved", "is:ignored", "is:archived", "is:regressed", "is:escalating", "is:unhandled"]);
		expect(tokens("is:UN")).toEqual(["is:unresolved", "is:unhandled"]);
		expect(tokens("is:solv")).toEqual(["is:unresolved", "is:resolved"]);
		expect(tokens("lastSeen:")).toEqual(["lastSeen:-1h", "lastSeen:-24h", "lastSeen:-7d", "lastSeen:-14d", "lastSeen:-30d", "lastSeen:-90d"]);
		expect(tokens('plan:"pro', [{ value: "pro team", count: 3 }, { value: "pro" }, { value: 'say "hi"' }])).toEqual(['plan:"pro team"', "plan:pro"]);
		expect(tokens("!url:", [{ value: "//cdn.example/app.js" }])).toEqual(['!url:"//cdn.example/app.js"']);
		expect(valueSuggestions(at("plan:") as ValueToken, [{ value: "pro", count: 1 }])[0]).toEqual({ label: "pro", count: 1, token: "plan:pro", whole: true });
	});

	it("offers latest first for release: and firstRelease:, the newest release; a release named latest as its name, quoted", ({ expect }) => {
		const releases = [{ value: "1.10.0", count: 4 }, { value: "latest", count: 2 }, { value: "1.9.0", count: 1 }];
		const tokens = (text: string, scope?: "events") => valueSuggestions(at(text) as ValueToken, releases, scope).map((s) => s.token);
		expect(tokens("release:")).toEqual(["release:latest", "release:1.10.0", 'release:"latest"', "release:1.9.0"]);
		expect(tokens("firstRelease:")).toEqual(["firstRelease:latest", "firstRelease:1.10.0", 'firstRelease:"latest"', "firstRelease:1.9.0"]);
		expect(tokens("Release:la")).toEqual(["Release:latest", 'Release:"latest"']);
		expect(tokens("release:1.")).toEqual(["release:1.10.0", "release:1.9.0"]);
		expect(valueSuggestions(at("release:") as ValueToken, [])[0]).toEqual({ label: "latest", detail: "the newest release", token: "release:latest", whole: true });
		// An issue's events: release:latest, but no firstRelease: at all.
		expect(tokens("release:", "events")[0]).toBe("release:latest");
		expect(tokens("firstRelease:", "events")).not.toContain("firstRelease:latest");
		// Not a key the keyword belongs to: a tag named as one, negated, any other.
		expect(tokens("tags[release]:")[0]).toBe("tags[release]:1.10.0");
		expect(tokens("!release:")).not.toContain("!release:latest");
		expect(tokens("plan:")).not.toContain("plan:latest");
	});

	it("for a search of one issue's events: no key about the issue as a whole, is: only unhandled", ({ expect }) => {
		const keys = (text: string) => keySuggestions(at(text) as KeyToken, ["browser.name"], "events").map((s) => s.token);
		expect(keys("seen")).toEqual([]);
		expect(keys("age")).toEqual(["message:"]);
		expect(keys("is")).toEqual(["is:"]);
		expect(keys("mess")).toEqual(["message:"]);
		expect(keys("bro")).toEqual(["browser.name:"]);
		const values = (text: string) => valueSuggestions(at(text) as ValueToken, [], "events").map((s) => s.token);
		expect(values("is:")).toEqual(["is:unhandled"]);
		expect(values("lastSeen:")).toEqual([]);
	});

	it("completes the token at the cursor: a key waits for its value, a value moves on past a space", ({ expect }) => {
		const key = { label: "browser.name:", token: "browser.name:", whole: false };
		expect(applySuggestion("is:unresolved bro checkout", at("is:unresolved bro checkout", 17), key)).toEqual({ text: "is:unresolved browser.name: checkout", cursor: 27 });
		const value = { label: "pro team", token: 'plan:"pro team"', whole: true };
		expect(applySuggestion('plan:"pro t', at('plan:"pro t'), value)).toEqual({ text: 'plan:"pro team" ', cursor: 16 });
		expect(applySuggestion("plan:p x", at("plan:p x", 6), { ...value, token: "plan:pro" })).toEqual({ text: "plan:pro x", cursor: 9 });
	});
});
