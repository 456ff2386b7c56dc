// What happens to a key's log events and issues beyond the owner's reads: the key revoked or
// regenerated, and the ProjectCollector moving accepted events to D1 (alarm, eviction, backlog,
// outage).
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { ProjectCollector } from "../durable-objects/ProjectCollector";
import { sha256Hex } from "../domain/crypto";
import { call } from "./helpers";
import { ingest, ingestOk, issueGrouper, issuesOf, ownerWithLogKey, readIssue, storedEvents } from "./logHelpers";

type Json = Record<string, any>;

describe("the project key's lifecycle", () => {
	it("revoking the key deletes its logs and issues everywhere; a new key starts empty", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "to be forgotten", environment: "production", request: { headers: { "X-Trace": "t-1" } } });
		expect(await issuesOf(owner)).toHaveLength(1);
		// One more accepted but not yet moved to D1.
		await ingestOk(owner.rawKey, { message: "still in the grouper" });

		const revoked = await call(`/api/feedback-key?project_name=${owner.projectName}`, { method: "DELETE", token: owner.token });
		expect(revoked.status).toBe(200);

		const rows = await env.DB.batch([
			env.DB.prepare("select count(*) as n from log_events where key_id = ?").bind(owner.keyId),
			env.DB.prepare("select count(*) as n from log_issues where key_id = ?").bind(owner.keyId),
			env.DB.prepare("select count(*) as n from log_issue_names where key_id = ?").bind(owner.keyId),
			env.DB.prepare("select count(*) as n from log_issue_tags where key_id = ?").bind(owner.keyId),
			env.DB.prepare("select count(*) as n from log_issue_environments where key_id = ?").bind(owner.keyId),
		]);
		expect(rows.map((r) => (r.results[0] as Json).n)).toEqual([0, 0, 0, 0, 0]);
		const grouperRows = await runInDurableObject(issueGrouper(owner.keyId), (_: ProjectCollector, state) => ({
			outbox: state.storage.sql.exec("select count(*) as n from outbox").one().n,
			groups: state.storage.sql.exec("select count(*) as n from groups").one().n,
			alarm: null as number | null,
		}));
		expect(grouperRows).toMatchObject({ outbox: 0, groups: 0 });
		expect(await runDurableObjectAlarm(issueGrouper(owner.keyId))).toBe(false);

		expect((await ingest(owner.rawKey, { message: "late" })).status).toBe(401);
		const res = await call("/api/feedback-key", { method: "POST", token: owner.token, json: { project_name: owner.projectName } });
		const { raw_api_key } = await res.json<Json>();
		expect(await issuesOf(owner)).toEqual([]);
		expect((await readIssue(owner.token, owner.projectName, group_hash)).status).toBe(404);
		expect((await ingestOk(raw_api_key, { message: "to be forgotten" })).is_new).toBe(true);
	});

	it("regenerating the key keeps its logs and issues; the new key adds to them", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const first = await ingestOk(owner.rawKey, { message: "kept" });
		const res = await call("/api/feedback-key/regenerate", { method: "POST", token: owner.token, json: { project_name: owner.projectName } });
		const { raw_api_key } = await res.json<Json>();
		expect((await ingest(owner.rawKey, { message: "kept" })).status).toBe(401);
		const second = await ingestOk(raw_api_key, { message: "kept" });
		expect(second).toEqual({ ok: true, group_hash: first.group_hash, is_new: false });
		expect((await issuesOf(owner))[0].count).toBe(2);
	});
});

describe("moving events to D1", () => {
	it("the alarm moves accepted events to D1 without any owner read", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await ingestOk(owner.rawKey, { message: "via the alarm" });
		const stub = issueGrouper(owner.keyId);
		expect(await runDurableObjectAlarm(stub)).toBe(true);
		const events = await storedEvents(owner.keyId);
		expect(events.map((e) => e.event.message)).toEqual(["via the alarm"]);
		const issueRow = await env.DB.prepare("select count, status from log_issues where key_id = ?").bind(owner.keyId).first();
		expect(issueRow).toEqual({ count: 1, status: "open" });
	});

	it("an evicted grouper picks up where it left off: groups, pending events, owner", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const first = await ingestOk(owner.rawKey, { message: "before eviction" });
		await evictDurableObject(issueGrouper(owner.keyId));
		const second = await ingestOk(owner.rawKey, { message: "before eviction" });
		expect(second).toEqual({ ok: true, group_hash: first.group_hash, is_new: false });
		await evictDurableObject(issueGrouper(owner.keyId));
		expect((await issuesOf(owner))[0].count).toBe(2);
		expect(await storedEvents(owner.keyId)).toHaveLength(2);
	});

	it("a backlog larger than one batch is moved whole, and a repeated move writes nothing twice", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const stub = issueGrouper(owner.keyId);
		// Straight to the key's object, past the owner API's window ceiling, from many addresses.
		await env.DB.prepare("update project_keys set logs_rate_limit_per_minute = 100000 where id = ?").bind(owner.keyId).run();
		const keyHash = await sha256Hex(owner.rawKey);
		await Promise.all(
			Array.from({ length: 1_203 }, (_, i) =>
				stub.calls([
					{
						method: "ingestLog",
						command: {
							keyId: owner.keyId,
							keyHash,
							ip: `10.0.${i >> 8}.${i & 255}`,
							artifactsVersion: 0,
							body: {
								groupHash: (i % 3).toString(16).padStart(32, "0"),
								previousGroupHash: null,
								title: `t${i % 3}`,
								culprit: null,
								level: "error",
								environment: null,
								release: null,
								userKey: `id:${i % 11}`,
								unhandled: false,
								eventId: crypto.randomUUID(),
								clientEventId: null,
								receivedAt: 1_700_000_000_000 + i,
								timestamp: 1_700_000_000_000 + i,
								eventJson: JSON.stringify({ message: `m${i}` }),
							},
						},
					},
				]),
			),
		);
		await stub.flush();
		await stub.flush();
		const counts = await env.DB.prepare("select group_hash, count(*) as n from log_events where key_id = ? group by group_hash order by group_hash")
			.bind(owner.keyId)
			.all<Json>();
		expect(counts.results.map((r) => r.n)).toEqual([401, 401, 401]);
		const issues = await env.DB.prepare("select count, users from log_issues where key_id = ? order by group_hash").bind(owner.keyId).all<Json>();
		expect(issues.results).toEqual([
			{ count: 401, users: 11 },
			{ count: 401, users: 11 },
			{ count: 401, users: 11 },
		]);
		const left = await runInDurableObject(stub, (_: ProjectCollector, state) => state.storage.sql.exec("select count(*) as n from outbox").one().n);
		expect(left).toBe(0);
	});

	it("keeps accepted events when D1 fails, and moves them once it works again", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await ingestOk(owner.rawKey, { message: "survives an outage" });
		const stub = issueGrouper(owner.keyId);
		const failed = await runInDurableObject(stub, async (instance: ProjectCollector) => {
			const realDb = (instance as any).env.DB;
			(instance as any).env.DB = { ...realDb, prepare: realDb.prepare.bind(realDb), batch: async () => Promise.reject(new Error("D1 unavailable")) };
			try {
				await instance.flush();
				return false;
			} catch {
				return true;
			} finally {
				(instance as any).env.DB = realDb;
			}
		});
		expect(failed).toBe(true);
		expect(await storedEvents(owner.keyId)).toEqual([]);
		await stub.flush();
		expect((await storedEvents(owner.keyId)).map((e) => e.event.message)).toEqual(["survives an outage"]);
	});
});
