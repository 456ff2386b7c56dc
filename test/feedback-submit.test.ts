import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { readSubmission } from "../domain/feedback/submission";
import { DEFAULT_FEATURE_FIELDS, DEFAULT_ISSUE_FIELDS } from "../domain/keys/fieldConfig";
import { call, configureKey, ownerWithKey, PNG_1PX, setPlan, submitFeedback, unique, uniqueIp } from "./helpers";

const LIMIT = 5 * 1024 * 1024;

/** The owner's view of what was stored. */
async function storedFeedback(token: string, projectName: string) {
	const res = await call(`/api/feedback?project_name=${encodeURIComponent(projectName)}&limit=1000`, { token });
	const { feedback } = await res.json<any>();
	// Lists cut long text; each record whole is one request away.
	return Promise.all(feedback.map((record: any) => call(`/api/feedback/${record.id}`, { token }).then((r) => r.json<any>()))) as Promise<any[]>;
}

describe("accepted submissions", () => {
	it("stores an issue and answers {success: true}", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		const res = await submitFeedback(rawKey, { type: "issue", title: "Crash on save", description: "It crashes", email: "me@example.com" });
		expect(res.status).toBe(200);
		expect(await res.json()).toMatchObject({ success: true });
		expect(res.headers.get("access-control-allow-origin")).toBe("*");
		const [row] = await storedFeedback(token, projectName);
		expect(row).toMatchObject({
			project_name: projectName,
			type: "issue",
			status: "open",
			data: { title: "Crash on save", description: "It crashes", email: "me@example.com" },
			attachments: [],
		});
	});

	it.for([
		["a missing type", undefined, "issue"],
		["an unknown type", "bug", "issue"],
		["a numeric type", 7, "issue"],
		["feature_request", "feature_request", "feature_request"],
	])("treats %s as %s", async ([, type, stored], { expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		// The feature schema does not require a description; the issue schema does.
		const res = await submitFeedback(rawKey, { type, title: "t", description: "d" });
		expect(res.status).toBe(200);
		expect((await storedFeedback(token, projectName))[0].type).toBe(stored);
	});

	it("uses the feature schema for feature requests", async ({ expect }) => {
		const { rawKey } = await ownerWithKey();
		expect((await submitFeedback(rawKey, { type: "feature_request", title: "Dark mode" })).status).toBe(200);
		const issue = await submitFeedback(rawKey, { type: "issue", title: "Dark mode" });
		expect(issue.status).toBe(400);
		expect(await issue.json()).toEqual({ error: "Invalid submission: description is required", fields: ["description"] });
	});

	it("handles unicode text and keys", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		const title = "Ошибка 💥 при сохранении — 保存";
		expect((await submitFeedback(rawKey, { title, description: "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "ключ": "значение" })).status).toBe(200);
		const [row] = await storedFeedback(token, projectName);
		expect(row.data).toMatchObject({ title, description: "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "ключ": "значение" });
	});
});

describe("configured fields", () => {
	it("reports every missing required field and every invalid email or URL in one 400", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		await configureKey(token, projectName, {
			issue_field_config: [
				{ key: "title", label: "Title", type: "text", required: true },
				{ key: "email", label: "Email", type: "email", required: false },
				{ key: "site", label: "Site", type: "url", required: false },
			],
		});
		const res = await submitFeedback(rawKey, { title: "   ", email: "nope@", site: "javascript:alert(1)" });
		expect(res.status).toBe(400);
		const body = await res.json<any>();
		expect(body.fields).toEqual(["title", "email", "site"]);
		expect(body.error).toMatch(/title is required; email must be a valid email address; site must be a valid http\(s\) URL/);
		expect(await storedFeedback(token, projectName)).toHaveLength(0);
	});

	it.for([
		["text", 500],
		["long_text", 10_000],
	] as const)("truncates %s at %i characters", async ([type, limit], { expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		await configureKey(token, projectName, {
			issue_field_config: [
				{ key: "exact", label: "E", type, required: true },
				{ key: "over", label: "O", type, required: true },
			],
		});
		expect((await submitFeedback(rawKey, { exact: "a".repeat(limit), over: "b".repeat(limit + 1) })).status).toBe(200);
		const [row] = await storedFeedback(token, projectName);
		expect(row.data.exact).toBe("a".repeat(limit));
		expect(row.data.over).toBe("b".repeat(limit));
	});

	it("checks numbers, booleans and selects, coercing their string forms", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		await configureKey(token, projectName, {
			issue_field_config: [
				{ key: "count", label: "C", type: "number", required: false },
				{ key: "urgent", label: "U", type: "boolean", required: false },
				{ key: "area", label: "A", type: "select", required: false, options: ["ui", "api"] },
			],
		});
		expect((await submitFeedback(rawKey, { count: "12.5", urgent: "true", area: "api" })).status).toBe(200);
		expect((await storedFeedback(token, projectName))[0].data).toEqual({ count: 12.5, urgent: true, area: "api" });

		const bad = await submitFeedback(rawKey, { count: "twelve", urgent: "maybe", area: "db" });
		expect(bad.status).toBe(400);
		expect((await bad.json<any>()).fields).toEqual(["count", "urgent", "area"]);
	});

	it.for([
		["an object", { nested: { deep: true } }],
		["an array", ["a", "b"]],
	])("refuses %s where a text field belongs", async ([, value], { expect }) => {
		const { rawKey } = await ownerWithKey();
		const res = await submitFeedback(rawKey, { title: value, description: "d" });
		expect(res.status).toBe(400);
		expect(await res.json()).toEqual({ error: "Invalid submission: title must be text", fields: ["title"] });
	});

	it("accepts an email and a URL at their usual shapes", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		await configureKey(token, projectName, {
			issue_field_config: [
				{ key: "email", label: "E", type: "email", required: true },
				{ key: "site", label: "S", type: "url", required: true },
			],
		});
		expect((await submitFeedback(rawKey, { email: " first.last+tag@sub.example.co.uk ", site: "https://example.com/a?b=c" })).status).toBe(200);
		expect((await storedFeedback(token, projectName))[0].data).toEqual({ email: "first.last+tag@sub.example.co.uk", site: "https://example.com/a?b=c" });
	});
});

describe("extra fields", () => {
	it("keeps the first 20 scalars, strips HTML, truncates strings at 500 and drops arrays and objects", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		const extras: Record<string, unknown> = {};
		for (let i = 1; i <= 21; i++) extras[`extra${i}`] = i;
		const res = await submitFeedback(rawKey, {
			title: "t",
			description: "d",
			list: [1, 2],
			object: { a: 1 },
			html: "<b>bold</b> <script>alert(1)</script>text",
			exact: "x".repeat(500),
			over: "y".repeat(501),
			flag: false,
			...extras,
		});
		expect(res.status).toBe(200);
		const { data } = (await storedFeedback(token, projectName))[0];
		expect(data.list).toBeUndefined();
		expect(data.object).toBeUndefined();
		expect(data.html).toBe("bold alert(1)text");
		expect(data.exact).toBe("x".repeat(500));
		expect(data.over).toBe("y".repeat(500));
		expect(data.flag).toBe(false);
		// html, exact, over, flag + extra1..extra16 = 20 extra fields
		const extraKeys = Object.keys(data).filter((k) => k !== "title" && k !== "description");
		expect(extraKeys).toHaveLength(20);
		expect(data.extra16).toBe(16);
		expect(data.extra17).toBeUndefined();
	});

	it("drops __proto__ rather than store or follow it", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		const res = await submitFeedback(rawKey, null, { raw: '{"title":"t","description":"d","__proto__":"x","constructor":"y"}' });
		expect(res.status).toBe(200);
		const { data } = (await storedFeedback(token, projectName))[0];
		expect(Object.getOwnPropertyNames(data)).toEqual(["title", "description", "constructor"]);
		expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
		expect(data.constructor).toBe("y");
	});
});

describe("attachments", () => {
	it("stores up to 5 images in R2 and ignores the rest", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		const images = Array.from({ length: 6 }, () => PNG_1PX);
		expect((await submitFeedback(rawKey, { title: "t", description: "d", screenshots: images })).status).toBe(200);
		const [row] = await storedFeedback(token, projectName);
		expect(row.attachments).toHaveLength(5);
		expect(row.data.screenshots).toBeUndefined();
		const image = await call(row.attachments[0].url, { token });
		expect(image.status).toBe(200);
		expect(image.headers.get("content-type")).toBe("image/png");
		const expected = Uint8Array.from(atob(PNG_1PX.split(",")[1]), (c) => c.charCodeAt(0));
		expect(new Uint8Array(await image.arrayBuffer())).toEqual(expected);
		const listed = await env.ATTACHMENTS.list({ prefix: "feedback/" });
		expect(listed.objects.filter((o) => o.key.includes(row.id))).toHaveLength(5);
	});

	it("accepts a single data URI string", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		expect((await submitFeedback(rawKey, { title: "t", description: "d", screenshots: PNG_1PX })).status).toBe(200);
		expect((await storedFeedback(token, projectName))[0].attachments).toHaveLength(1);
	});

	it.for([
		["a GIF", "data:image/gif;base64,R0lGODlhAQABAAAAACw="],
		["an SVG", "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4="],
		["broken base64", "data:image/png;base64,%%%%"],
		["a PNG label on JPEG-less bytes", "data:image/jpeg;base64,iVBORw0KGgo="],
		["a plain URL", "https://example.com/x.png"],
		["a number", 42],
		["an object", { src: "x" }],
	])("skips %s without refusing the report", async ([, value], { expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		expect((await submitFeedback(rawKey, { title: "t", description: "d", screenshots: [value, PNG_1PX] })).status).toBe(200);
		const [row] = await storedFeedback(token, projectName);
		expect(row.attachments).toHaveLength(1);
	});

	it("skips an image whose base64 exceeds 5 * 1024 * 1024 * 1.4 characters and keeps one exactly at it", ({ expect }) => {
		const limit = 5 * 1024 * 1024 * 1.4; // 7,340,032, a multiple of 4
		const bytes = new Uint8Array((limit / 4) * 3);
		bytes.set([0x89, 0x50, 0x4e, 0x47]);
		let binary = "";
		for (let i = 0; i < bytes.length; i += 8192) binary += String.fromCharCode(...bytes.subarray(i, i + 8192));
		const atLimit = `data:image/png;base64,${btoa(binary)}`;
		expect(atLimit.length - "data:image/png;base64,".length).toBe(limit);
		const overLimit = `data:image/png;base64,${btoa(`${binary}\0\0\0`).slice(0, limit + 4)}`;

		const config = { issueFieldConfig: DEFAULT_ISSUE_FIELDS, featureFieldConfig: DEFAULT_FEATURE_FIELDS };
		const result = readSubmission({ title: "t", description: "d", screenshots: [atLimit, overLimit] }, config);
		expect(result.ok && result.images.map((i) => i.bytes.length)).toEqual([bytes.length]);
	});

	it("refuses a required attachment field with no usable image", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		await configureKey(token, projectName, { issue_field_config: [{ key: "shot", label: "Shot", type: "attachment", required: true }] });
		const res = await submitFeedback(rawKey, { shot: ["data:image/gif;base64,R0lGODlhAQABAAAAACw="] });
		expect(res.status).toBe(400);
		expect((await res.json<any>()).fields).toEqual(["shot"]);
	});
});

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
