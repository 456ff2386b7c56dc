// What a feedback submission is refused for, with which status, and what a refusal leaves behind:
// nothing stored, no window spent, no image over the project's cap.
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { call, configureKey, ownerWithKey, PNG_1PX, setPlan, storedFeedback, submitFeedback, unique, uniqueIp } from "./helpers";

const LIMIT = 5 * 1024 * 1024;

describe("errors", () => {
	it("401 without a key and with an unknown key", async ({ expect }) => {
		const missing = await submitFeedback(null, { title: "t", description: "d" });
		expect(missing.status).toBe(401);
		expect(missing.headers.get("access-control-allow-origin")).toBe("*");
		expect(Object.keys(await missing.json<any>())).toEqual(["error"]);
		expect((await submitFeedback(`svc_${"x".repeat(43)}`, { title: "t" })).status).toBe(401);
	});

	it("402 when the owner's trial has ended, and 200 again with Pro", async ({ expect }) => {
		const { rawKey, email } = await ownerWithKey();
		await setPlan(email, "free", new Date(Date.now() - 60_000).toISOString());
		expect((await submitFeedback(rawKey, { title: "t", description: "d" })).status).toBe(402);
		await setPlan(email, "pro");
		expect((await submitFeedback(rawKey, { title: "t", description: "d" })).status).toBe(200);
	});

	it.for(["GET", "PUT", "PATCH", "DELETE"])("405 for %s", async (method, { expect }) => {
		const res = await call("/functions/v1/submit-feedback", { method });
		expect(res.status).toBe(405);
		expect(res.headers.get("allow")).toBe("POST, OPTIONS");
		expect(res.headers.get("access-control-allow-origin")).toBe("*");
	});

	it("answers OPTIONS with 204 and CORS headers", async ({ expect }) => {
		const res = await call("/functions/v1/submit-feedback", { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "POST" } });
		expect(res.status).toBe(204);
		expect(res.headers.get("access-control-allow-origin")).toBe("*");
		expect(res.headers.get("access-control-allow-methods")).toContain("POST");
		expect(res.headers.get("access-control-allow-headers")).toContain("authorization");
	});

	it.for([
		["invalid JSON", '{"title": '],
		["an empty body", ""],
		["a JSON array", "[]"],
		["a JSON string", '"hello"'],
		["JSON null", "null"],
	])("400 for %s", async ([, raw], { expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		const res = await submitFeedback(rawKey, null, { raw });
		expect(res.status).toBe(400);
		const body = await res.json<any>();
		expect(typeof body.error).toBe("string");
		expect(body.fields).toEqual([]);
		expect(await storedFeedback(token, projectName)).toHaveLength(0);
	});

	it("413 one character past 5 * 1024 * 1024, and accepts exactly that many", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		const skeleton = JSON.stringify({ title: "t", description: "d", padding: "" });
		const exact = skeleton.replace('"padding":""', `"padding":"${"p".repeat(LIMIT - skeleton.length)}"`);
		expect(exact.length).toBe(LIMIT);
		expect((await submitFeedback(rawKey, null, { raw: exact })).status).toBe(200);
		const over = exact.replace('"padding":"', '"padding":"p');
		const res = await submitFeedback(rawKey, null, { raw: over });
		expect(res.status).toBe(413);
		expect(Object.keys(await res.json<any>())).toEqual(["error"]);
		expect(await storedFeedback(token, projectName)).toHaveLength(1);
	});

	it("measures characters, not bytes: 2 M three-byte characters are within the limit", async ({ expect }) => {
		const { rawKey } = await ownerWithKey();
		const raw = JSON.stringify({ title: "t", description: "d", note: "€".repeat(2_000_000) });
		expect(new TextEncoder().encode(raw).length).toBeGreaterThan(LIMIT);
		expect((await submitFeedback(rawKey, null, { raw })).status).toBe(200);
	});

	it("stops reading an endless body soon after the limit", async ({ expect }) => {
		const { rawKey } = await ownerWithKey();
		let produced = 0;
		const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
		const endless = new ReadableStream({
			pull(controller) {
				produced += chunk.length;
				controller.enqueue(chunk);
			},
		});
		const res = await call("/functions/v1/submit-feedback", {
			method: "POST",
			token: rawKey,
			ip: uniqueIp(),
			body: endless,
			// @ts-expect-error: duplex is required for a streaming request body
			duplex: "half",
		});
		expect(res.status).toBe(413);
		expect(produced).toBeLessThan(LIMIT * 2);
	});

	it("429 past 20 submissions per 60 s from one IP: exactly 20 of 40 concurrent are accepted", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		await configureKey(token, projectName, { rate_limit_per_minute: 600 });
		const ip = uniqueIp();
		const responses = await Promise.all(
			Array.from({ length: 40 }, (_, i) => submitFeedback(rawKey, { title: `t${i}`, description: "d" }, { ip })),
		);
		const statuses = responses.map((r) => r.status);
		expect(statuses.filter((s) => s === 200)).toHaveLength(20);
		expect(statuses.filter((s) => s === 429)).toHaveLength(20);
		const limited = responses.find((r) => r.status === 429)!;
		expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
		expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60);
		expect(limited.headers.get("access-control-allow-origin")).toBe("*");
		expect(await storedFeedback(token, projectName)).toHaveLength(20);
		// Another IP is unaffected, and so is the same IP sending to another project: the window
		// is per source IP per key.
		expect((await submitFeedback(rawKey, { title: "t", description: "d" })).status).toBe(200);
		const other = await ownerWithKey();
		expect((await submitFeedback(other.rawKey, { title: "t", description: "d" }, { ip })).status).toBe(200);
	});

	it("429 past the key's rate_limit_per_minute, whatever the IP", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		await configureKey(token, projectName, { rate_limit_per_minute: 5 });
		const statuses = await Promise.all(
			Array.from({ length: 9 }, () => submitFeedback(rawKey, { title: "t", description: "d" }).then((r) => r.status)),
		);
		expect(statuses.filter((s) => s === 200)).toHaveLength(5);
		expect(statuses.filter((s) => s === 429)).toHaveLength(4);
	});

	it("a submission D1 refuses for now is kept by the key's object and stored once, with its images, when D1 takes it", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		await env.DB.prepare(
			`CREATE TRIGGER IF NOT EXISTS refuse_doomed BEFORE INSERT ON feedback WHEN NEW.data LIKE '%doomed%' BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
		).run();
		const res = await submitFeedback(rawKey, { title: "doomed", description: "d", screenshots: [PNG_1PX, PNG_1PX] });
		// Durable in the key's object before the answer: D1 failing later loses nothing.
		expect(res.status).toBe(200);
		const owner = await call(`/api/feedback?project_name=${encodeURIComponent(projectName)}`, { token });
		expect(owner.status).toBe(500);
		await env.DB.prepare("DROP TRIGGER refuse_doomed").run();
		const stored = await storedFeedback(token, projectName);
		expect(stored).toHaveLength(1);
		expect(stored[0].attachments).toHaveLength(2);
	});

	it("never answers 500 to hostile shapes", async ({ expect }) => {
		const { rawKey } = await ownerWithKey();
		const hostile = [
			'{"title": {"$gt": ""}, "description": "d"}',
			`{"title": "t", "description": "d", "${"k".repeat(10_000)}": "v"}`,
			'{"title": 1e999, "description": "d"}',
			'{"title": "\\u0000\\ud800", "description": "d"}',
			`{"title": "t", "description": "d", "deep": ${"[".repeat(1000)}${"]".repeat(1000)}}`,
			'{"title": true, "description": false, "screenshots": {"0": "x"}}',
			"\uFEFF{}",
		];
		for (const raw of hostile) {
			const res = await submitFeedback(rawKey, null, { raw });
			expect(res.status, raw.slice(0, 40)).toBeLessThan(500);
		}
	});
});

it("keeps unique() values distinct", ({ expect }) => {
	expect(unique()).not.toBe(unique());
});

describe("refused submissions do not spend the address's window", () => {
	it("a submission refused by the key's limit takes nothing from the address's 20 per minute", async ({ expect }) => {
		const limited = await ownerWithKey();
		const setRate = (rate: number) =>
			call("/api/feedback-key", { method: "PATCH", token: limited.token, json: { project_name: limited.projectName, rate_limit_per_minute: rate } });
		await setRate(1);
		const ip = uniqueIp();
		const body = { type: "issue", title: "t", description: "d" };
		expect((await submitFeedback(limited.rawKey, body, { ip })).status).toBe(200);
		for (let i = 0; i < 5; i++) expect((await submitFeedback(limited.rawKey, body, { ip })).status).toBe(429);
		// The key's window opened: the address has its 19 left for this key, no more.
		await setRate(600);
		const statuses = [];
		for (let i = 0; i < 20; i++) statuses.push((await submitFeedback(limited.rawKey, body, { ip })).status);
		expect(statuses.filter((s) => s === 200)).toHaveLength(19);
		expect(statuses.at(-1)).toBe(429);
	}, 60_000);
});

describe("a project's image storage is capped at 1 GiB", () => {
	async function seedStoredBytes(userId: string, projectName: string, bytes: number) {
		const feedbackId = crypto.randomUUID();
		await env.DB.batch([
			env.DB.prepare("INSERT INTO feedback (id, user_id, project_name, type, status, data, created_at) VALUES (?, ?, ?, 'issue', 'open', '{}', ?)").bind(
				feedbackId,
				userId,
				projectName,
				Date.now(),
			),
			env.DB.prepare("INSERT INTO feedback_attachments (id, feedback_id, user_id, field, content_type, object_key, size) VALUES (?, ?, ?, 'screenshots', 'image/png', ?, ?)").bind(
				crypto.randomUUID(),
				feedbackId,
				userId,
				`feedback/${userId}/${feedbackId}/seed`,
				bytes,
			),
		]);
	}
	const pngBytes = Uint8Array.from(atob(PNG_1PX.split(",")[1]), (c) => c.charCodeAt(0)).byteLength;

	it("an image that fits exactly is stored; one byte more is 413 with a clear message, and text alone is still taken", async ({ expect }) => {
		const { rawKey, user, projectName } = await ownerWithKey();
		const cap = 1024 * 1024 * 1024;
		await seedStoredBytes(user.id, projectName, cap - pngBytes);
		expect((await submitFeedback(rawKey, { title: "fits", description: "d", screenshots: [PNG_1PX] })).status).toBe(200);
		const full = await submitFeedback(rawKey, { title: "one byte over", description: "d", screenshots: [PNG_1PX] });
		expect(full.status).toBe(413);
		expect(await full.json()).toEqual({ error: expect.stringContaining("image storage is full"), fields: [] });
		expect((await submitFeedback(rawKey, { title: "no image", description: "d" })).status).toBe(200);
	});

	it("the count is served by indexes, never a scan", async ({ expect }) => {
		const { results } = await env.DB.prepare(
			`EXPLAIN QUERY PLAN SELECT coalesce(sum(a.size), 0) AS bytes FROM feedback f JOIN feedback_attachments a ON a.feedback_id = f.id WHERE f.user_id = ? AND f.project_name = ?`,
		)
			.bind("u", "p")
			.all<{ detail: string }>();
		const steps = results.map((r) => r.detail).join("\n");
		expect(steps).toMatch(/SEARCH f USING (COVERING )?INDEX feedback_owner_project_created_idx/);
		expect(steps).toMatch(/SEARCH a USING INDEX feedback_attachments_feedback_idx/);
		expect(steps).not.toMatch(/SCAN/);
	});
});
