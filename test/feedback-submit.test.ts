import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { readSubmission } from "../domain/feedback/submission";
import { DEFAULT_FEATURE_FIELDS, DEFAULT_ISSUE_FIELDS } from "../domain/keys/fieldConfig";
import { call, configureKey, ownerWithKey, PNG_1PX, storedFeedback, submitFeedback } from "./helpers";

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

	it("answers a body nested thousands deep as any object or array in its place", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		const deepArray = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
		const deepObject = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;
		const stored = await submitFeedback(rawKey, null, { raw: `{"title":"t","description":"d","list":[${deepArray}],"object":${deepObject}}` });
		expect(stored.status).toBe(200);
		expect((await storedFeedback(token, projectName))[0].data).toEqual({ title: "t", description: "d" });

		const refused = await submitFeedback(rawKey, null, { raw: `{"title":${deepObject},"description":"d"}` });
		expect(refused.status).toBe(400);
		expect(await refused.json()).toEqual({ error: "Invalid submission: title must be text", fields: ["title"] });
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
