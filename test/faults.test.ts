import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { rateLimiterFor, siteCollectorFor } from "../workers/objects";
import { collect, flushSite, ownerWithSite, pageview, storedEvents } from "./analytics-helpers";
import { ownerWithKey, PNG_1PX, storedFeedback, submitFeedback, unique, uniqueIp } from "./helpers";
import { ingest, ingestOk, issueGrouper, ownerWithLogKey, raiseLogsLimit, storedEvents as storedLogEvents } from "./logHelpers";

/**
 * Failures in the middle of the work: a Durable Object that restarts, D1 refusing a write. Nothing
 * accepted is lost or written twice, no window forgets what it counted.
 */

/**
 * Ends the object's instance, as an eviction or a deploy does; the next call through a new stub
 * starts a new instance from storage.
 */
async function restart(stub: DurableObjectStub) {
	await runInDurableObject(stub, (_instance, state) => state.abort("restart in a test")).catch(() => {});
}

/** Whether a call rejected, read without leaving the rejection to the runner. */
const rejects = (promise: Promise<unknown>) => promise.then(
	() => false,
	() => true,
);

describe("rate windows across a Durable Object restart", () => {
	it("a RateLimiter keeps its count: 3 of 5 taken, restarted, exactly 2 more", async ({ expect }) => {
		const subject = unique("subject");
		const window = { name: "w", limit: 5, windowSeconds: 60 };
		for (let i = 0; i < 3; i++) expect((await rateLimiterFor(env, subject).hit([window])).allowed).toBe(true);
		await restart(rateLimiterFor(env, subject));
		const stub = rateLimiterFor(env, subject);
		const after = await Promise.all(Array.from({ length: 4 }, () => stub.hit([window])));
		expect(after.filter((d) => d.allowed)).toHaveLength(2);
	});

	it("a browser address's window is the isolate's: a restart of the site's collector neither resets it nor loses an event", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const ip = "203.0.113.7";
		for (let i = 0; i < 20; i++) expect((await collect(pageview(site.tracking_id, { url_path: `/a${i}` }), { ip })).status).toBe(204);
		await restart(siteCollectorFor(env, site.tracking_id));
		const statuses = [];
		for (let i = 0; i < 11; i++) statuses.push((await collect(pageview(site.tracking_id, { url_path: `/b${i}` }), { ip })).status);
		expect(statuses.slice(0, 10).every((s) => s === 204)).toBe(true);
		expect(statuses[10]).toBe(429);
		expect(await storedEvents(site.tracking_id)).toHaveLength(30);
	});

	it("a project key's object keeps an address's window: 15 of 20 taken, restarted, exactly 5 more; a new address is taken", async ({ expect }) => {
		const owner = await ownerWithKey();
		const key = await env.DB.prepare("select id from project_keys where project_name = ?").bind(owner.projectName).first<{ id: string }>();
		const body = { type: "issue", title: "t", description: "d" };
		const ip = uniqueIp();
		for (let i = 0; i < 15; i++) expect((await submitFeedback(owner.rawKey, body, { ip })).status).toBe(200);
		await restart(issueGrouper(key?.id ?? ""));
		const statuses = [];
		for (let i = 0; i < 6; i++) statuses.push((await submitFeedback(owner.rawKey, body, { ip })).status);
		expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
		expect((await submitFeedback(owner.rawKey, body, { ip: uniqueIp() })).status).toBe(200);
	});

	it("an issue grouper keeps its key window and its issues across a restart", async ({ expect }) => {
		const { rawKey, keyId } = await ownerWithLogKey();
		const first = await ingestOk(rawKey, { message: "before the restart" });
		await restart(issueGrouper(keyId));
		const again = await ingestOk(rawKey, { message: "before the restart" });
		expect(again).toEqual({ ok: true, group_hash: first.group_hash, is_new: false });
	});
});

/** Runs SQL in the key's ProjectCollector's own SQLite: here, a trigger that makes its outbox refuse rows. */
const execInKeyObject = (keyId: string, sql: string) => runInDurableObject(issueGrouper(keyId), (_instance, state) => void state.storage.sql.exec(sql));

describe("the key's object refusing to store an accepted request answers 500 and keeps nothing of it", () => {
	it("a log event the key's object fails to store is a 500 that uses up no slot of the key's window", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await raiseLogsLimit(owner, 2);
		await ingestOk(owner.rawKey, { message: "first" });
		await execInKeyObject(owner.keyId, `CREATE TRIGGER refuse_outbox BEFORE INSERT ON outbox BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
		expect((await ingest(owner.rawKey, { message: "not stored" })).status).toBe(500);
		await execInKeyObject(owner.keyId, `DROP TRIGGER refuse_outbox`);
		expect((await ingest(owner.rawKey, { message: "second" })).status).toBe(200);
		expect((await ingest(owner.rawKey, { message: "third" })).status).toBe(429);
		await issueGrouper(owner.keyId).flush();
		expect((await storedLogEvents(owner.keyId)).map((e) => e.event.message)).toEqual(["first", "second"]);
	});

	it("feedback the key's object fails to store is a 500 that leaves no record and no image behind", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		expect((await submitFeedback(owner.rawKey, { title: "before", description: "d" })).status).toBe(200);
		await execInKeyObject(owner.keyId, `CREATE TRIGGER refuse_feedback BEFORE INSERT ON feedback_outbox BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
		const refused = await submitFeedback(owner.rawKey, { title: "not stored", description: "d", screenshots: [PNG_1PX, PNG_1PX] });
		expect(refused.status).toBe(500);
		await execInKeyObject(owner.keyId, `DROP TRIGGER refuse_feedback`);
		expect((await submitFeedback(owner.rawKey, { title: "after", description: "d" })).status).toBe(200);
		expect((await storedFeedback(owner.token, owner.projectName)).map((f) => f.data.title).sort()).toEqual(["after", "before"]);
		expect((await env.ATTACHMENTS.list({ prefix: `feedback/${owner.user.id}/` })).objects).toEqual([]);
	});
});

describe("D1 refusing the outbox's writes loses nothing and writes nothing twice", () => {
	it("analytics events stay in the collector while D1 fails, and arrive once when it works again", async ({ expect }) => {
		const { site } = await ownerWithSite();
		for (let i = 0; i < 3; i++) expect((await collect(pageview(site.tracking_id, { url_path: `/p${i}` }))).status).toBe(204);
		await env.DB.prepare(
			`CREATE TRIGGER IF NOT EXISTS refuse_events BEFORE INSERT ON analytics_events WHEN NEW.tracking_id = '${site.tracking_id}' BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
		).run();
		expect(await rejects(flushSite(site.tracking_id))).toBe(true);
		const count = () =>
			env.DB.prepare("select count(*) as n from analytics_events where tracking_id = ?").bind(site.tracking_id).first<{ n: number }>().then((r) => r?.n);
		expect(await count()).toBe(0);
		// Accepted meanwhile too: the answer does not depend on D1.
		expect((await collect(pageview(site.tracking_id, { url_path: "/p3" }))).status).toBe(204);
		await env.DB.prepare("DROP TRIGGER refuse_events").run();
		await flushSite(site.tracking_id);
		await flushSite(site.tracking_id);
		expect(await count()).toBe(4);
	});

	it("log events and their issue stay in the grouper while D1 fails, and arrive together once", async ({ expect }) => {
		const { rawKey, keyId } = await ownerWithLogKey();
		await env.DB.prepare(
			`CREATE TRIGGER IF NOT EXISTS refuse_log_events BEFORE INSERT ON log_events WHEN NEW.key_id = '${keyId}' BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
		).run();
		await ingestOk(rawKey, { message: "stored while D1 fails" });
		expect(await rejects(issueGrouper(keyId).flush())).toBe(true);
		const counts = () =>
			env.DB.prepare("select (select count(*) from log_events where key_id = ?1) as events, (select count(*) from log_issues where key_id = ?1) as issues")
				.bind(keyId)
				.first<{ events: number; issues: number }>();
		// The batch is one transaction: no issue row without its event either.
		expect(await counts()).toEqual({ events: 0, issues: 0 });
		await env.DB.prepare("DROP TRIGGER refuse_log_events").run();
		await issueGrouper(keyId).flush();
		await issueGrouper(keyId).flush();
		expect(await counts()).toEqual({ events: 1, issues: 1 });
	});
});
