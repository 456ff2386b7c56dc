import { createExecutionContext, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { ProjectCollector } from "../durable-objects/ProjectCollector";
import { LOG_RATE } from "../domain/limits";
import { ingestLog } from "../workers/logs/ingestLog";
import { call, configureKey, ORIGIN, setPlan, uniqueIp } from "./helpers";
import { ingest, ingestOk, issueGrouper, listIssues, ownerWithLogKey } from "./logHelpers";

type Json = Record<string, any>;



describe("POST /api/app-logs-ingest: every documented status", () => {
	it("200 {ok, group_hash, is_new} with the key in x-svc-key", async ({ expect }) => {
		const { rawKey } = await ownerWithLogKey();
		const res = await ingest(rawKey, { message: "hello" });
		expect(res.status).toBe(200);
		expect(res.headers.get("access-control-allow-origin")).toBe("*");
		const body = await res.json<Json>();
		expect(body).toEqual({ ok: true, group_hash: expect.stringMatching(/^[0-9a-f]{32}$/), is_new: true });
		const again = await ingest(rawKey, { message: "hello" }).then((r) => r.json<Json>());
		expect(again).toEqual({ ok: true, group_hash: body.group_hash, is_new: false });
	});

	describe("a browser's simple request: text/plain with the key as the body's svc_key", () => {
		const plain = (body: unknown) =>
			call("/api/app-logs-ingest", { method: "POST", ip: uniqueIp(), headers: { "content-type": "text/plain;charset=UTF-8" }, body: JSON.stringify(body) });

		it("200, and the key is not part of the stored event", async ({ expect }) => {
			const { rawKey, keyId } = await ownerWithLogKey();
			const res = await plain({ svc_key: rawKey, message: "sent while leaving the page" });
			expect(res.status).toBe(200);
			await env.PROJECT_COLLECTOR.get(env.PROJECT_COLLECTOR.idFromName(`key:${keyId}`)).flush();
			const row = await env.DB.prepare("select event from log_events where key_id = ?").bind(keyId).first<{ event: string }>();
			expect(JSON.parse(row!.event).message).toBe("sent while leaving the page");
			expect(row!.event).not.toContain(rawKey);
			expect(row!.event).not.toContain("svc_key");
		});

		it("401 without svc_key, with a wrong one, or with one that is not a string", async ({ expect }) => {
			const { rawKey } = await ownerWithLogKey();
			expect((await plain({ message: "m" })).status).toBe(401);
			expect((await plain({ svc_key: "svc_wrong", message: "m" })).status).toBe(401);
			expect((await plain({ svc_key: [rawKey], message: "m" })).status).toBe(401);
		});

		it("only text/plain: a JSON request names its key in a header", async ({ expect }) => {
			const { rawKey } = await ownerWithLogKey();
			const res = await call("/api/app-logs-ingest", {
				method: "POST",
				ip: uniqueIp(),
				headers: { "content-type": "application/json" },
				body: JSON.stringify({ svc_key: rawKey, message: "m" }),
			});
			expect(res.status).toBe(401);
		});

		it("the body limits hold before the key is known: 413 and 400", async ({ expect }) => {
			const { rawKey } = await ownerWithLogKey();
			expect((await plain({ svc_key: rawKey, message: "x".repeat(512_000) })).status).toBe(413);
			const res = await call("/api/app-logs-ingest", { method: "POST", ip: uniqueIp(), headers: { "content-type": "text/plain" }, body: "{not json" });
			expect(res.status).toBe(400);
		});
	});

	it("200 with the key as Authorization: Bearer", async ({ expect }) => {
		const { rawKey } = await ownerWithLogKey();
		const res = await ingest(rawKey, { message: "hello" }, { via: "bearer" });
		expect(res.status).toBe(200);
	});

	it("prefers x-svc-key over Authorization", async ({ expect }) => {
		const { rawKey } = await ownerWithLogKey();
		const good = await ingest(rawKey, { message: "m" }, { headers: { authorization: "Bearer svc_wrong" } });
		expect(good.status).toBe(200);
		const bad = await call("/api/app-logs-ingest", {
			method: "POST",
			token: rawKey,
			ip: uniqueIp(),
			headers: { "x-svc-key": "svc_wrong", "content-type": "application/json" },
			body: JSON.stringify({ message: "m" }),
		});
		expect(bad.status).toBe(401);
	});

	it.for([
		["no key at all", null],
		["an unknown key", "svc_not_a_key"],
	] as const)("401 with %s", async ([, key], { expect }) => {
		const res = await ingest(key, { message: "m" });
		expect(res.status).toBe(401);
		expect(res.headers.get("access-control-allow-origin")).toBe("*");
		expect(Object.keys(await res.json<Json>())).toEqual(["error"]);
	});

	it("401 with an owner session token instead of a project key", async ({ expect }) => {
		const { token } = await ownerWithLogKey();
		expect((await ingest(token, { message: "m" })).status).toBe(401);
	});

	it("402 when the owner has neither Pro nor a running trial", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await setPlan(owner.email, "free", new Date(Date.now() - 1000).toISOString());
		const res = await ingest(owner.rawKey, { message: "m" });
		expect(res.status).toBe(402);
		expect((await res.json<Json>()).error).toMatch(/Pro subscription/);
	});

	it("403 when App Logs are disabled for the project, 200 again once enabled", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await configureKey(owner.token, owner.projectName, { logs_enabled: false });
		const res = await ingest(owner.rawKey, { message: "m" });
		expect(res.status).toBe(403);
		expect(await res.json()).toEqual({ error: "App Logs are disabled for this project" });
		await configureKey(owner.token, owner.projectName, { logs_enabled: true });
		expect((await ingest(owner.rawKey, { message: "m" })).status).toBe(200);
	});

	it("the key's checks and the address's window come before the event's field rules, as before its JSON", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const fieldless = { level: "error" };
		const fieldlessError = "Invalid log event: either message or exception (with a type, value or stack trace) is required";
		expect(await (await ingest(owner.rawKey, fieldless)).json()).toEqual({ error: fieldlessError });
		await configureKey(owner.token, owner.projectName, { logs_enabled: false });
		expect((await ingest(owner.rawKey, fieldless)).status).toBe(403);
		await configureKey(owner.token, owner.projectName, { logs_enabled: true });
		await setPlan(owner.email, "free", new Date(Date.now() - 1000).toISOString());
		expect((await ingest(owner.rawKey, fieldless)).status).toBe(402);
		await setPlan(owner.email, "pro");
		await configureKey(owner.token, owner.projectName, { logs_rate_limit_per_minute: 6_000 });
		const ip = uniqueIp();
		for (let i = 0; i < LOG_RATE.perIp.limit; i++) await ingestOk(owner.rawKey, { message: `m${i % 2}` }, ip);
		expect((await ingest(owner.rawKey, fieldless, { ip })).status).toBe(429);
	});

	it.for(["GET", "PUT", "PATCH", "DELETE"])("405 for %s, with Allow", async (method, { expect }) => {
		const { rawKey } = await ownerWithLogKey();
		const res = await ingest(rawKey, { message: "m" }, { method });
		expect(res.status).toBe(405);
		expect(res.headers.get("allow")).toBe("POST, OPTIONS");
		expect(res.headers.get("access-control-allow-origin")).toBe("*");
	});

	it("OPTIONS answers 204 with CORS headers that allow x-svc-key", async ({ expect }) => {
		const res = await call("/api/app-logs-ingest", { method: "OPTIONS" });
		expect(res.status).toBe(204);
		expect(res.headers.get("access-control-allow-origin")).toBe("*");
		expect(res.headers.get("access-control-allow-methods")).toContain("POST");
		expect(res.headers.get("access-control-allow-headers")).toContain("x-svc-key");
	});

	describe("413 over 512,000 characters", () => {
		/** A JSON body of exactly `length` characters. */
		const bodyOf = (length: number) => {
			const shell = JSON.stringify({ message: "big", pad: "" });
			return JSON.stringify({ message: "big", pad: "x".repeat(length - shell.length) });
		};

		it("accepts exactly 512,000 characters", async ({ expect }) => {
			const { rawKey } = await ownerWithLogKey();
			const raw = bodyOf(512_000);
			expect(raw.length).toBe(512_000);
			expect((await ingest(rawKey, null, { raw })).status).toBe(200);
		});

		it("refuses 512,001 characters", async ({ expect }) => {
			const { rawKey } = await ownerWithLogKey();
			const res = await ingest(rawKey, null, { raw: bodyOf(512_001) });
			expect(res.status).toBe(413);
			expect(res.headers.get("access-control-allow-origin")).toBe("*");
		});

		it("counts characters, not bytes: 512,000 multi-byte characters are accepted", async ({ expect }) => {
			const { rawKey } = await ownerWithLogKey();
			const shell = JSON.stringify({ message: "big", pad: "" });
			const raw = JSON.stringify({ message: "big", pad: "é".repeat(512_000 - shell.length) });
			expect(raw.length).toBe(512_000);
			expect((await ingest(rawKey, null, { raw })).status).toBe(200);
		});

		it("stops reading an endless streamed body", async ({ expect }) => {
			const { rawKey } = await ownerWithLogKey();
			let sent = 0;
			const endless = new ReadableStream<Uint8Array>({
				pull(controller) {
					sent += 64 * 1024;
					controller.enqueue(new TextEncoder().encode("x".repeat(64 * 1024)));
				},
			});
			const res = await call("/api/app-logs-ingest", {
				method: "POST",
				ip: uniqueIp(),
				headers: { "x-svc-key": rawKey, "content-type": "application/json" },
				body: endless,
			});
			expect(res.status).toBe(413);
			// It gave up soon after the limit instead of reading on.
			expect(sent).toBeLessThan(2_000_000);
		});
	});

	it.for([
		["invalid JSON", "{nope"],
		["an empty body", ""],
		["a JSON array", "[1,2]"],
		["a JSON string", '"message"'],
		["JSON null", "null"],
		["neither message nor exception", JSON.stringify({ level: "error", tags: { a: "b" } })],
		["an empty message and no exception", JSON.stringify({ message: "" })],
		["a blank message and an empty exception", JSON.stringify({ message: "  ", exception: {} })],
	])("400 for %s", async ([, raw], { expect }) => {
		const { rawKey } = await ownerWithLogKey();
		const res = await ingest(rawKey, null, { raw });
		expect(res.status).toBe(400);
		const body = await res.json<Json>();
		expect(Object.keys(body)).toEqual(["error"]);
		expect(body.error.length).toBeGreaterThan(10);
	});

	it("400 names the field of the wrong type", async ({ expect }) => {
		const { rawKey } = await ownerWithLogKey();
		const res = await ingest(rawKey, { message: 42 });
		expect(await res.json()).toEqual({ error: "Invalid log event: message must be a string" });
		const nested = await ingest(rawKey, { exception: { type: "E", stacktrace: { frames: "at x" } } });
		expect(await nested.json()).toEqual({ error: "Invalid log event: exception.stacktrace.frames must be an array" });
	});

	describe("429", () => {
		it("after the key's logs_rate_limit_per_minute, exactly, under concurrency, with Retry-After", async ({ expect }) => {
			const owner = await ownerWithLogKey();
			await configureKey(owner.token, owner.projectName, { logs_rate_limit_per_minute: 7 });
			const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => ingest(owner.rawKey, { message: `m ${i}` })));
			const statuses = responses.map((r) => r.status);
			expect(statuses.filter((s) => s === 200)).toHaveLength(7);
			expect(statuses.filter((s) => s === 429)).toHaveLength(5);
			const limited = responses.find((r) => r.status === 429)!;
			const retryAfter = Number(limited.headers.get("retry-after"));
			expect(retryAfter).toBeGreaterThanOrEqual(1);
			expect(retryAfter).toBeLessThanOrEqual(60);
			expect(limited.headers.get("access-control-allow-origin")).toBe("*");
			expect((await limited.json<Json>()).error).toMatch(/Too many log events for this project key/);
			// Denied events are not stored: the issue counts the seven.
			const { issues } = await listIssues(owner.token, { project_name: owner.projectName }).then((r) => r.json<Json>());
			expect(issues[0].count).toBe(7);
		});

		it("falls back to 60 per 60 seconds per key", async ({ expect }) => {
			const { rawKey } = await ownerWithLogKey();
			const statuses = await Promise.all(Array.from({ length: 61 }, (_, i) => ingest(rawKey, { message: `m ${i}` }).then((r) => r.status)));
			expect(statuses.filter((s) => s === 200)).toHaveLength(60);
			expect(statuses.filter((s) => s === 429)).toHaveLength(1);
		});

		// The window is per source IP per key (it used to be one per IP for every key): an address
		// busy with one project does not stop it sending to another.
		it("after 120 events per 60 seconds from one source IP to one key; another key from the same IP is still taken", async ({ expect }) => {
			const [a, b] = await Promise.all([ownerWithLogKey(), ownerWithLogKey()]);
			await Promise.all([configureKey(a.token, a.projectName, { logs_rate_limit_per_minute: 1_000 }), configureKey(b.token, b.projectName, { logs_rate_limit_per_minute: 1_000 })]);
			const ip = uniqueIp();
			const responses = await Promise.all(Array.from({ length: 121 }, (_, i) => ingest(a.rawKey, { message: `m ${i}` }, { ip })));
			const statuses = responses.map((r) => r.status);
			expect(statuses.filter((s) => s === 200)).toHaveLength(120);
			expect(statuses.filter((s) => s === 429)).toHaveLength(1);
			const limited = responses.find((r) => r.status === 429)!;
			expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
			expect(await limited.json()).toEqual({ error: expect.stringContaining("Too many log events from this address") });
			// The same address to another key, and another address to the same key, are not affected.
			expect((await ingest(b.rawKey, { message: "other key" }, { ip })).status).toBe(200);
			expect((await ingest(a.rawKey, { message: "elsewhere" })).status).toBe(200);
		});
	});

	it("500 only when storage fails, with the one error shape and nothing half-stored", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const failing = {
			...env,
			PROJECT_COLLECTOR: {
				idFromName: (name: string) => env.PROJECT_COLLECTOR.idFromName(name),
				get: () => ({
					calls: async () => {
						throw new Error("SQLITE_FULL: database or disk is full");
					},
				}),
			},
		} as unknown as Env;
		const request = Object.assign(
			new Request(`${ORIGIN}/api/app-logs-ingest`, {
				method: "POST",
				headers: { "x-svc-key": owner.rawKey, "cf-connecting-ip": uniqueIp() },
				body: JSON.stringify({ message: "m" }),
			}),
			{ query: {}, params: {} },
		);
		await expect(ingestLog(request as any, failing, createExecutionContext())).rejects.toMatchObject({ status: 500, message: "The log event could not be stored; try again" });
		const { issues } = await listIssues(owner.token, { project_name: owner.projectName }).then((r) => r.json<Json>());
		expect(issues).toEqual([]);
	});
});

describe("refused requests do not spend the address's window", () => {
	it("120 events with a wrong key, then the real key from the same address is taken", async ({ expect }) => {
		const { rawKey } = await ownerWithLogKey();
		const ip = uniqueIp();
		for (let i = 0; i < 120; i++) expect((await ingest("svc_wrong", { message: "m" }, { ip })).status).toBe(401);
		expect((await ingest(rawKey, { message: "m" }, { ip })).status).toBe(200);
	}, 120_000);

	it("events refused by the key's own window give the address's hit back", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await configureKey(owner.token, owner.projectName, { logs_rate_limit_per_minute: 1 });
		const ip = uniqueIp();
		expect((await ingest(owner.rawKey, { message: "m" }, { ip })).status).toBe(200);
		for (let i = 0; i < 130; i++) expect((await ingest(owner.rawKey, { message: "m" }, { ip })).status).toBe(429);
		// 1 taken, 130 never counted: with the key's window opened, the address has 119 left.
		await configureKey(owner.token, owner.projectName, { logs_rate_limit_per_minute: 1_000 });
		const statuses = [];
		for (let i = 0; i < 120; i++) statuses.push((await ingest(owner.rawKey, { message: "m" }, { ip })).status);
		expect(statuses.filter((s) => s === 200)).toHaveLength(119);
		expect(statuses.at(-1)).toBe(429);
	}, 120_000);
});

describe("issues opened under the previous grouping rules", () => {
	// A Node exception whose frames carry a module and a line of source: before JavaScript frames
	// counted by source file and function name, these counted too (as they still do elsewhere).
	const nodeError = (fn: string, platform?: string) => ({
		level: "error",
		...(platform ? { platform } : {}),
		exception: {
			type: "TypeError",
			value: "Cannot read properties of undefined (reading 'total')",
			stacktrace: {
				frames: [
					{ filename: "/srv/shop/src/orders.js", module: "src:orders", function: fn, context_line: "return order.total;", lineno: 12, in_app: true },
				],
			},
		},
	});

	it("keep taking the events the new rules would have put into a new issue", async ({ expect }) => {
		const { rawKey } = await ownerWithLogKey();
		// Without a platform the old rules apply: this stands for an issue opened before the change.
		const old = await ingestOk(rawKey, nodeError("orderTotal"));
		const again = await ingestOk(rawKey, nodeError("orderTotal", "node"));
		expect(again).toMatchObject({ group_hash: old.group_hash, is_new: false });
		// A new bug opens its issue under the new rules, which ignore the module and the line.
		const fresh = await ingestOk(rawKey, nodeError("orderCount", "node"));
		expect(fresh.is_new).toBe(true);
		const browser = { ...nodeError("orderCount", "javascript") };
		browser.exception.stacktrace.frames = [{ filename: "https://shop.example/assets/orders-8f3a2c1d.js", function: "orderCount", lineno: 1, in_app: true } as never];
		expect(await ingestOk(rawKey, browser)).toMatchObject({ group_hash: fresh.group_hash, is_new: false });
	});

	it("a Ruby block's issue, opened while the block counted with its nesting, keeps its events", async ({ expect }) => {
		const { rawKey } = await ownerWithLogKey();
		const rubyError = (fn: string, platform?: string, line = "charge!(total)") => ({
			level: "error",
			...(platform ? { platform } : {}),
			exception: {
				type: "Shop::Declined",
				value: "card declined",
				stacktrace: { frames: [{ filename: "app/models/order.rb", function: fn, context_line: line, lineno: 12, in_app: true }] },
			},
		});
		const old = await ingestOk(rawKey, rubyError("block (2 levels) in <class:Order>"));
		expect(await ingestOk(rawKey, rubyError("block (2 levels) in <class:Order>", "ruby"))).toMatchObject({ group_hash: old.group_hash, is_new: false });
		// Under the new rules the nesting no longer counts: a new issue's events join whatever their label.
		const fresh = await ingestOk(rawKey, rubyError("block in <class:Order>", "ruby", "refund!(total)"));
		expect(fresh.is_new).toBe(true);
		expect(await ingestOk(rawKey, rubyError("block (3 levels) in <class:Order>", "ruby", "refund!(total)"))).toMatchObject({ group_hash: fresh.group_hash, is_new: false });
	});
});

describe("a project holds at most 10,000 issues", () => {
	it("the 10,000th issue is taken, a new one past it is 403, events of existing issues still arrive", async ({ expect }) => {
		const { rawKey, keyId } = await ownerWithLogKey();
		await ingestOk(rawKey, { message: "an existing issue" });
		// 9,998 more issues written into the grouper's own storage, as if they had arrived.
		await runInDurableObject(issueGrouper(keyId), (_: ProjectCollector, state: DurableObjectState) => {
			state.storage.sql.exec(
				`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 9998)
				 INSERT INTO groups (hash, title, level, count, first_seen, last_seen, flushed_version) SELECT printf('%032x', i), 'seeded', 'error', 1, 0, 0, 1 FROM n`,
			);
		});
		// Numbers are parametrized away in grouping: the two new issues differ in words.
		expect((await ingest(rawKey, { message: "the last issue that fits" })).status).toBe(200);
		const refused = await ingest(rawKey, { message: "one issue too many" });
		expect(refused.status).toBe(403);
		expect(await refused.json()).toEqual({ error: expect.stringContaining("10000 issues") });
		expect((await ingest(rawKey, { message: "an existing issue" })).status).toBe(200);
		expect((await ingest(rawKey, { message: "the last issue that fits" })).status).toBe(200);
	}, 60_000);
});
