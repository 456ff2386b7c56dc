// The key's ProjectCollector answers ingestion alone, from what it loaded of the key: every change
// an owner or the admin makes must reach it before the very next request, and what it accepted
// must reach D1 exactly once, whoever moves it.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { ProjectCollector } from "../durable-objects/ProjectCollector";
import { call, configureKey, ownerWithKey, setPlan, submitFeedback, uniqueIp } from "./helpers";
import { ingest, issueGrouper as projectCollector } from "./logHelpers";

const body = { type: "issue", title: "t", description: "d" };
const keyIdOf = async (userId: string, projectName: string) =>
	(await env.DB.prepare("select id from project_keys where user_id = ? and project_name = ?").bind(userId, projectName).first<{ id: string }>())!.id;

describe("a change to the key reaches its object before the next request", () => {
	it("revoke: the key that was just accepted is 401 at once, on both paths", async ({ expect }) => {
		const owner = await ownerWithKey();
		expect((await submitFeedback(owner.rawKey, body)).status).toBe(200);
		expect((await ingest(owner.rawKey, { message: "m" })).status).toBe(200);
		expect((await call(`/api/feedback-key?project_name=${owner.projectName}`, { method: "DELETE", token: owner.token })).status).toBe(200);
		expect((await submitFeedback(owner.rawKey, body)).status).toBe(401);
		expect((await ingest(owner.rawKey, { message: "m" })).status).toBe(401);
	});

	it("regenerate: the old key is 401 at once and the new one is taken", async ({ expect }) => {
		const owner = await ownerWithKey();
		expect((await submitFeedback(owner.rawKey, body)).status).toBe(200);
		const res = await call("/api/feedback-key/regenerate", { method: "POST", token: owner.token, json: { project_name: owner.projectName } });
		const { raw_api_key: fresh } = await res.json<{ raw_api_key: string }>();
		expect((await submitFeedback(owner.rawKey, body)).status).toBe(401);
		expect((await ingest(owner.rawKey, { message: "m" })).status).toBe(401);
		expect((await submitFeedback(fresh, body)).status).toBe(200);
		expect((await ingest(fresh, { message: "m" })).status).toBe(200);
	});

	it("configuration: forms, windows and App Logs apply from the next request", async ({ expect }) => {
		const owner = await ownerWithKey();
		expect((await submitFeedback(owner.rawKey, { ...body, title: "" })).status).toBe(400);
		await configureKey(owner.token, owner.projectName, { issue_field_config: [{ key: "title", label: "Title", type: "text", required: false }] });
		expect((await submitFeedback(owner.rawKey, { ...body, title: "" })).status).toBe(200);

		await configureKey(owner.token, owner.projectName, { rate_limit_per_minute: 2 });
		expect((await submitFeedback(owner.rawKey, body)).status).toBe(429);

		expect((await ingest(owner.rawKey, { message: "m" })).status).toBe(200);
		await configureKey(owner.token, owner.projectName, { logs_enabled: false });
		expect((await ingest(owner.rawKey, { message: "m" })).status).toBe(403);
		await configureKey(owner.token, owner.projectName, { logs_enabled: true });
		expect((await ingest(owner.rawKey, { message: "m" })).status).toBe(200);
	});

	it("the owner's plan: a trial that ended is 402 at once, Pro is 200 at once", async ({ expect }) => {
		const owner = await ownerWithKey();
		expect((await submitFeedback(owner.rawKey, body)).status).toBe(200);
		await setPlan(owner.email, "free", new Date(Date.now() - 1_000).toISOString());
		expect((await submitFeedback(owner.rawKey, body)).status).toBe(402);
		expect((await ingest(owner.rawKey, { message: "m" })).status).toBe(402);
		await setPlan(owner.email, "pro");
		expect((await submitFeedback(owner.rawKey, body)).status).toBe(200);
		expect((await ingest(owner.rawKey, { message: "m" })).status).toBe(200);
	});

	it("a trial that runs out while the object holds the key is 402 from then on", async ({ expect }) => {
		const owner = await ownerWithKey();
		await setPlan(owner.email, "free", new Date(Date.now() + 1_500).toISOString());
		expect((await submitFeedback(owner.rawKey, body)).status).toBe(200);
		await new Promise((resolve) => setTimeout(resolve, 1_600));
		expect((await submitFeedback(owner.rawKey, body)).status).toBe(402);
	});
});

describe("the window per source IP is per key", () => {
	it("the 20th submission from one address is taken, the 21st is 429, and another key from that address is taken", async ({ expect }) => {
		const [a, b] = await Promise.all([ownerWithKey(), ownerWithKey()]);
		await configureKey(a.token, a.projectName, { rate_limit_per_minute: 600 });
		const ip = uniqueIp();
		for (let i = 0; i < 20; i++) expect((await submitFeedback(a.rawKey, body, { ip })).status).toBe(200);
		const refused = await submitFeedback(a.rawKey, body, { ip });
		expect(refused.status).toBe(429);
		expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
		expect((await submitFeedback(b.rawKey, body, { ip })).status).toBe(200);
	});

	it("the object's storage holds a tag of the address, never the address", async ({ expect }) => {
		const owner = await ownerWithKey();
		const ip = uniqueIp();
		expect((await submitFeedback(owner.rawKey, body, { ip })).status).toBe(200);
		expect((await ingest(owner.rawKey, { message: "m" }, { ip })).status).toBe(200);
		const keyId = await keyIdOf(owner.user.id, owner.projectName);
		const windows = await runInDurableObject(projectCollector(keyId), (_: ProjectCollector, state) =>
			state.storage.sql.exec<{ window: string }>("select window from hits").toArray().map((row) => row.window),
		);
		expect(windows.filter((name) => /^(feedback|logs)-ip:[0-9a-f]{32}$/.test(name))).toHaveLength(2);
		expect(windows.join(" ")).not.toContain(ip);
	});
});

describe("feedback reaches D1 exactly once", () => {
	it("an owner list right after a 200 shows the submission, before any alarm", async ({ expect }) => {
		const owner = await ownerWithKey();
		const res = await submitFeedback(owner.rawKey, { ...body, title: "just sent" });
		const { id } = await res.json<{ id: string }>();
		const list = await call(`/api/feedback?project_name=${owner.projectName}`, { token: owner.token }).then((r) => r.json<{ feedback: Array<{ id: string }> }>());
		expect(list.feedback.map((f) => f.id)).toEqual([id]);
		expect((await call(`/api/feedback/${id}`, { token: owner.token })).status).toBe(200);
	});

	it("reading one record by id, or changing it, finds it while it still waits in the object", async ({ expect }) => {
		const owner = await ownerWithKey();
		const { id } = await (await submitFeedback(owner.rawKey, body)).json<{ id: string }>();
		expect((await call(`/api/feedback/${id}`, { token: owner.token })).status).toBe(200);
		const second = await (await submitFeedback(owner.rawKey, body)).json<{ id: string }>();
		const patched = await call(`/api/feedback?id=${second.id}`, { method: "PATCH", token: owner.token, json: { status: "closed" } });
		expect(await patched.json()).toEqual({ updated: 1 });
	});

	it("the alarm and an owner read flushing at once write nothing twice", async ({ expect }) => {
		const owner = await ownerWithKey();
		const keyId = await keyIdOf(owner.user.id, owner.projectName);
		await Promise.all(Array.from({ length: 30 }, (_, i) => submitFeedback(owner.rawKey, { ...body, title: `t${i}` })));
		const [, list] = await Promise.all([
			runDurableObjectAlarm(projectCollector(keyId)),
			call(`/api/feedback?project_name=${owner.projectName}`, { token: owner.token }).then((r) => r.json<{ feedback: unknown[] }>()),
			projectCollector(keyId).flush(),
		]);
		expect(list.feedback).toHaveLength(30);
		const { n } = (await env.DB.prepare("select count(*) as n from feedback where user_id = ?").bind(owner.user.id).first<{ n: number }>())!;
		expect(n).toBe(30);
		const left = await runInDurableObject(projectCollector(keyId), (_: ProjectCollector, state) => state.storage.sql.exec("select count(*) as n from feedback_outbox").one().n);
		expect(left).toBe(0);
	});

	it("revoking the key keeps the feedback it accepted a moment before", async ({ expect }) => {
		const owner = await ownerWithKey();
		await submitFeedback(owner.rawKey, body);
		await call(`/api/feedback-key?project_name=${owner.projectName}`, { method: "DELETE", token: owner.token });
		const { n } = (await env.DB.prepare("select count(*) as n from feedback where user_id = ?").bind(owner.user.id).first<{ n: number }>())!;
		expect(n).toBe(1);
	});
});
