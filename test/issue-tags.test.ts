import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { IssueTagsView } from "../domain/api/issues";
import { OWNER_LIMITS } from "../domain/limits";
import { ERROR_TYPE_BACKFILL, TAG_RECOUNT } from "../domain/logs/issueTags";
import { type PendingEvent, writeStatements } from "../domain/logs/logStore";
import { call, ownerWithKey, withoutComments } from "./helpers";
import { ingestOk, ownerWithLogKey } from "./logHelpers";

type Project = { token: string; projectName: string };

function readTags(project: Project, groupHash: string, query: Record<string, string> = {}) {
	return call(`/api/issues/${groupHash}/tags?${new URLSearchParams({ project_name: project.projectName, ...query })}`, { token: project.token });
}

async function tagsOf(project: Project, groupHash: string, query: Record<string, string> = {}): Promise<IssueTagsView> {
	const res = await readTags(project, groupHash, query);
	if (res.status !== 200) throw new Error(`tags failed: ${res.status} ${await res.text()}`);
	return res.json();
}

const valuesOf = (view: IssueTagsView, key: string) => view.tags.find((tag) => tag.key === key);

/** An error event of one issue (the same message and stack), with what varies between its events. */
const checkoutError = (more: Record<string, unknown> = {}) => ({
	message: "Checkout failed",
	level: "error",
	exception: { type: "TypeError", value: "x is undefined", stacktrace: { frames: [{ filename: "src/checkout.ts", function: "pay", lineno: 3, in_app: true }] } },
	...more,
});

/**
 * A project whose issues' events vary (environments, own tags, contexts, a user, a handled
 * exception of another type, a message), moved to D1; and its tag rows as stored.
 */
async function variedIssues() {
	const project = await ownerWithLogKey();
	const chrome = { browser: { name: "Chrome", version: "131" } };
	const { group_hash } = await ingestOk(project.rawKey, checkoutError({ environment: "production", tags: { route: "/pay" }, contexts: chrome, user: { id: "u_1" } }));
	await ingestOk(project.rawKey, checkoutError({ tags: { route: "/cart", "error.type": "Own" }, exception: { type: "TypeError", value: "x", mechanism: { type: "generic", handled: true } } }));
	await ingestOk(project.rawKey, { message: "Another bug", environment: "staging", tags: { route: "/elsewhere" } });
	// A RangeError from a TypeError from another TypeError (the cause first): each type of the chain once.
	const chain = [
		{ type: "TypeError", value: "first" },
		{ type: "TypeError", value: "second" },
		{ type: "RangeError", value: "reported" },
	];
	await ingestOk(project.rawKey, { exception: { values: chain }, environment: "staging" });
	// Reading the tags moves the key's events to D1 first.
	await tagsOf(project, group_hash);
	const rows = () =>
		env.DB.prepare("SELECT * FROM log_issue_tags WHERE key_id = ? ORDER BY group_hash, environment, tag_key, value").bind(project.keyId).all<Record<string, unknown>>().then((r) => r.results);
	return { project, rows };
}

describe("GET /api/issues/:group_hash/tags", () => {
	it("counts each tag of the issue's events: the ones drawn from the event first, then the event's own by name", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const chrome = { browser: { name: "Chrome", version: "131.0.0" }, os: { name: "Windows", version: "11" } };
		const safari = { browser: { name: "Safari", version: "18.1" }, os: { name: "iOS", version: "18.1" }, device: { model: "iPhone15,2" } };
		const { group_hash } = await ingestOk(project.rawKey, checkoutError({ environment: "production", release: "1.2.0", tags: { route: "/pay", plan: "pro" }, user: { email: "ana@example.com" }, contexts: chrome, request: { url: "https://shop.example/pay" } }));
		await ingestOk(project.rawKey, checkoutError({ environment: "production", release: "1.2.1", tags: { route: "/pay" }, user: { id: "u_7" }, contexts: safari }));
		await ingestOk(project.rawKey, checkoutError({ environment: "staging", release: "1.2.1", tags: { route: "/cart", level: "not the event's level" }, contexts: chrome }));
		// Another issue's event, counted nowhere here.
		await ingestOk(project.rawKey, { message: "Another bug", level: "warning", tags: { route: "/elsewhere" } });

		const view = await tagsOf(project, group_hash);
		expect(view.events).toBe(3);
		expect(view.tags.map((tag) => tag.key)).toEqual(["level", "error.type", "environment", "release", "browser", "browser.name", "os", "os.name", "device", "url", "user", "plan", "route"]);
		expect(valuesOf(view, "level")).toEqual({ key: "level", total: 3, distinct: 1, values: [{ value: "error", count: 3 }] });
		expect(valuesOf(view, "error.type")).toEqual({ key: "error.type", total: 3, distinct: 1, values: [{ value: "TypeError", count: 3 }] });
		expect(valuesOf(view, "release")).toEqual({ key: "release", total: 3, distinct: 2, values: [{ value: "1.2.1", count: 2 }, { value: "1.2.0", count: 1 }] });
		expect(valuesOf(view, "browser")?.values).toEqual([{ value: "Chrome 131.0.0", count: 2 }, { value: "Safari 18.1", count: 1 }]);
		expect(valuesOf(view, "browser.name")?.values).toEqual([{ value: "Chrome", count: 2 }, { value: "Safari", count: 1 }]);
		expect(valuesOf(view, "os")?.values).toEqual([{ value: "Windows 11", count: 2 }, { value: "iOS 18.1", count: 1 }]);
		expect(valuesOf(view, "device")).toEqual({ key: "device", total: 1, distinct: 1, values: [{ value: "iPhone15,2", count: 1 }] });
		expect(valuesOf(view, "user")?.values).toEqual([{ value: "ana@example.com", count: 1 }, { value: "u_7", count: 1 }]);
		expect(valuesOf(view, "route")).toEqual({ key: "route", total: 3, distinct: 2, values: [{ value: "/pay", count: 2 }, { value: "/cart", count: 1 }] });

		// In one environment, as the issue page opened from a filtered list reads it.
		const staging = await tagsOf(project, group_hash, { environment: "staging" });
		expect(staging.events).toBe(1);
		expect(valuesOf(staging, "route")?.values).toEqual([{ value: "/cart", count: 1 }]);
	});

	it("handled: no when any exception of the event was not handled, yes when one was and none is not", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const exception = (handled: boolean) => ({ type: "TypeError", value: "x is undefined", mechanism: { type: "generic", handled }, stacktrace: { frames: [{ filename: "src/a.ts", function: "f", lineno: 1, in_app: true }] } });
		const { group_hash } = await ingestOk(project.rawKey, { level: "error", exception: exception(true) });
		await ingestOk(project.rawKey, { level: "error", exception: exception(false) });
		await ingestOk(project.rawKey, { level: "error", exception: exception(true) });
		expect(valuesOf(await tagsOf(project, group_hash), "handled")?.values).toEqual([{ value: "yes", count: 2 }, { value: "no", count: 1 }]);
	});

	it.for([
		[OWNER_LIMITS.issueTagValues, OWNER_LIMITS.issueTagValues],
		[OWNER_LIMITS.issueTagValues + 1, OWNER_LIMITS.issueTagValues],
	] as const)("a tag of %i values answers its %i most common, the rest counted in its total", async ([distinct, shown], { expect }) => {
		const project = await ownerWithLogKey();
		// v00 twice, then v01, v02… once each: v00 leads, and the ties go by value.
		const values = ["v00", ...Array.from({ length: distinct }, (_, i) => `v${String(i).padStart(2, "0")}`)];
		let groupHash = "";
		for (const value of values) groupHash = (await ingestOk(project.rawKey, checkoutError({ tags: { shard: value } }))).group_hash;
		const shard = valuesOf(await tagsOf(project, groupHash), "shard");
		expect(shard).toMatchObject({ total: values.length, distinct });
		expect(shard?.values.map((v) => v.value)).toEqual(values.slice(1, shown + 1));
		expect(shard?.values[0].count).toBe(2);
	});

	it("mechanism and runtime as Sentry's SDKs send them", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const exception = { type: "Error", value: "boom", mechanism: { type: "onunhandledrejection", handled: false } };
		const { group_hash } = await ingestOk(project.rawKey, { exception, contexts: { runtime: { name: "node", version: "v22.11.0" } } });
		const view = await tagsOf(project, group_hash);
		expect(view.tags.map((tag) => [tag.key, tag.values[0].value])).toEqual([
			["level", "error"],
			["handled", "no"],
			["mechanism", "onunhandledrejection"],
			["error.type", "Error"],
			["runtime", "node v22.11.0"],
			["runtime.name", "node"],
		]);
	});

	it("counts every event of the issue, not only its newest; a batch the key's object moves twice counts once", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const { group_hash } = await ingestOk(project.rawKey, checkoutError({ environment: "production", tags: { first: "yes" } }));
		await tagsOf(project, group_hash);
		// 1,500 more, moved to D1 as the key's object moves them, the same batch twice (D1 committed, the object did not hear).
		const now = Date.now();
		const batch: PendingEvent[] = Array.from({ length: 1_500 }, (_, i) => ({
			id: crypto.randomUUID(),
			groupHash: group_hash,
			fingerprintHash: null,
			receivedAt: now + i,
			timestamp: now + i,
			level: "error",
			environment: i % 3 === 0 ? "staging" : "production",
			release: null,
			eventJson: JSON.stringify({ ...checkoutError(), environment: i % 3 === 0 ? "staging" : "production", tags: { first: "no" } }),
			environmentUsers: 0,
		}));
		const write = () => env.DB.batch(writeStatements(env.DB, { keyId: project.keyId, userId: project.user.id }, batch, []));
		await write();
		await write();

		const view = await tagsOf(project, group_hash);
		expect(view.events).toBe(1_501);
		expect(valuesOf(view, "first")?.values).toEqual([{ value: "no", count: 1_500 }, { value: "yes", count: 1 }]);
		expect(valuesOf(view, "environment")?.values).toEqual([{ value: "production", count: 1_001 }, { value: "staging", count: 500 }]);
		const staging = await tagsOf(project, group_hash, { environment: "staging" });
		expect(staging.events).toBe(500);
		expect(valuesOf(staging, "first")?.values).toEqual([{ value: "no", count: 500 }]);
	});

	it("counted again from the stored events (as an unmerge counts its issues), the counts are those the moves to D1 kept", async ({ expect }) => {
		const { project, rows } = await variedIssues();
		const moved = await rows();
		expect(moved.length).toBeGreaterThan(10);
		const issues = [...new Set(moved.map((row) => row.group_hash))];
		await env.DB.prepare("DELETE FROM log_issue_tags WHERE key_id = ?").bind(project.keyId).run();
		await env.DB.prepare(TAG_RECOUNT).bind(project.keyId, JSON.stringify(issues)).run();
		expect(await rows()).toEqual(moved);
	});

	it("migration 0030 counts the error.type of every exception of the events stored before it as the moves to D1 count it", async ({ expect }) => {
		const migration = env.TEST_MIGRATIONS.find((m) => m.name.endsWith("_issue_tags_error_type_chain.sql"));
		expect(migration?.queries.map(withoutComments)).toEqual(["DELETE FROM log_issue_tags WHERE tag_key = 'error.type'", ERROR_TYPE_BACKFILL]);
		const { project, rows } = await variedIssues();
		const moved = await rows();
		const errorTypes = moved.filter((row) => row.tag_key === "error.type").map((row) => [row.environment, row.value, row.count]);
		expect(errorTypes.sort()).toEqual([
			["", "TypeError", 1],
			["production", "TypeError", 1],
			["staging", "RangeError", 1],
			["staging", "TypeError", 1],
		]);
		await env.DB.prepare("DELETE FROM log_issue_tags WHERE key_id = ? AND tag_key = 'error.type'").bind(project.keyId).run();
		// Other keys' events are counted again too: the migration first deletes every key's rows of the tag.
		await env.DB.prepare(ERROR_TYPE_BACKFILL.replace("FROM log_events", "FROM log_events WHERE key_id = ?1")).bind(project.keyId).run();
		expect(await rows()).toEqual(moved);
	});

	it("400 for a hash that is none or an empty environment; 404 for an unknown issue or another owner's project", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const { group_hash } = await ingestOk(project.rawKey, checkoutError());
		const bad = await readTags(project, "not-a-hash");
		expect(bad.status).toBe(400);
		expect((await bad.json<{ error: string }>()).error).toContain("32 hexadecimal characters");
		expect((await readTags(project, group_hash, { environment: "" })).status).toBe(400);
		// An issue with no events in the environment asked for has no tags there.
		expect(await tagsOf(project, group_hash, { environment: "nowhere" })).toEqual({ events: 0, tags: [] });
		const unknown = await readTags(project, "f".repeat(32));
		expect(unknown.status).toBe(404);
		expect((await unknown.json<{ error: string }>()).error).toBe("No such issue in this project");
		const stranger = await ownerWithKey();
		expect((await readTags({ token: stranger.token, projectName: project.projectName }, group_hash)).status).toBe(404);
		expect((await call(`/api/issues/${group_hash}/tags?project_name=${project.projectName}`)).status).toBe(401);
	});
});
