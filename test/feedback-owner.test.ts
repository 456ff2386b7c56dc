import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { call, ownerWithKey, PNG_1PX, submitFeedback } from "./helpers";

async function list(token: string, query: string) {
	const res = await call(`/api/feedback?${query}`, { token });
	return { status: res.status, body: await res.json<any>() };
}

async function submitMany(rawKey: string, count: number, extra: Record<string, unknown> = {}) {
	const ids: string[] = [];
	for (let i = 0; i < count; i++) {
		const res = await submitFeedback(rawKey, { title: `#${i}`, description: "d", ...extra });
		ids.push((await res.json<any>()).id);
	}
	return ids;
}

/** Writes rows straight into D1: enough rows to test the caps without the submission rate limits. */
async function seedRows(userId: string, projectName: string, count: number) {
	const base = Date.now() - count * 1000;
	const statements = Array.from({ length: count }, (_, i) =>
		env.DB.prepare("INSERT INTO feedback (id, user_id, project_name, type, status, data, created_at) VALUES (?, ?, ?, 'issue', 'open', ?, ?)").bind(
			crypto.randomUUID(),
			userId,
			projectName,
			JSON.stringify({ title: `seed ${i}` }),
			base + i * 1000,
		),
	);
	await env.DB.batch(statements);
}

describe("list", () => {
	it("lists newest first with the documented record shape", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		await submitFeedback(rawKey, { title: "first", description: "d" });
		await submitFeedback(rawKey, { type: "feature_request", title: "second", screenshots: "ignored for features" });
		await submitFeedback(rawKey, { title: "third", description: "d", screenshots: [PNG_1PX] });

		const { status, body } = await list(token, `project_name=${projectName}`);
		expect(status).toBe(200);
		expect(body.feedback.map((f: any) => f.data.title)).toEqual(["third", "second", "first"]);
		const [third] = body.feedback;
		expect(Object.keys(third).sort()).toEqual(["attachments", "created_at", "data", "id", "project_name", "status", "truncated_fields", "type"]);
		expect(third.truncated_fields).toEqual([]);
		expect(third.attachments).toEqual([
			{ id: expect.any(String), field: "screenshots", content_type: "image/png", url: `/api/feedback/attachments/${third.attachments[0].id}` },
		]);
		expect(new Date(third.created_at).toISOString()).toBe(third.created_at);
	});

	it("filters by type and status", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		await submitFeedback(rawKey, { title: "bug", description: "d" });
		await submitFeedback(rawKey, { type: "feature_request", title: "idea" });
		const features = await list(token, `project_name=${projectName}&type=feature_request`);
		expect(features.body.feedback.map((f: any) => f.data.title)).toEqual(["idea"]);
		const issues = await list(token, `project_name=${projectName}&type=issue`);
		expect(issues.body.feedback.map((f: any) => f.data.title)).toEqual(["bug"]);
		const closed = await list(token, `project_name=${projectName}&status=closed`);
		expect(closed.body.feedback).toEqual([]);
	});

	it.for([
		["no project_name", ""],
		["an unknown type", "project_name=p&type=question"],
		["an unknown status", "project_name=p&status=done"],
	])("answers 400 for %s", async ([, query], { expect }) => {
		const { token } = await ownerWithKey();
		const { status, body } = await list(token, query);
		expect(status).toBe(400);
		expect(Object.keys(body)).toEqual(["error"]);
	});

	it("pages the list: 100 by default, limit up to 1,000 (1,001 is 400), next_cursor walks every record once", async ({ expect }) => {
		const { token, user, projectName } = await ownerWithKey();
		await seedRows(user.id, projectName, 1001);
		const first = (await list(token, `project_name=${projectName}`)).body;
		expect(first.feedback).toHaveLength(100);
		expect(first.feedback[0].data.title).toBe("seed 1000");
		const full = (await list(token, `project_name=${projectName}&limit=1000`)).body;
		expect(full.feedback).toHaveLength(1000);
		expect(full.next_cursor).toEqual(expect.any(String));
		const rest = (await list(token, `project_name=${projectName}&limit=1000&cursor=${full.next_cursor}`)).body;
		expect(rest.feedback.map((r: any) => r.data.title)).toEqual(["seed 0"]);
		expect(rest.next_cursor).toBeNull();
		expect((await list(token, `project_name=${projectName}&limit=1001`)).status).toBe(400);

		const seen = new Set<string>();
		let cursor = "";
		do {
			const page = (await list(token, `project_name=${projectName}&limit=300${cursor ? `&cursor=${cursor}` : ""}`)).body;
			for (const record of page.feedback) seen.add(record.id);
			cursor = page.next_cursor ?? "";
		} while (cursor);
		expect(seen.size).toBe(1001);
	}, 60_000);

	it.for(["0", "-1", "1e3", "0x10", "%205", "12.0", "abc", "99999999999999999999"])("refuses limit=%s with a 400, as the other lists do", async (limit, { expect }) => {
		const { token, projectName } = await ownerWithKey();
		const res = await list(token, `project_name=${projectName}&limit=${limit}`);
		expect(res.status).toBe(400);
		expect(res.body.error).toBe("Invalid request: limit: must be a whole number from 1 to 1000");
	});

	it.for(["not-a-cursor!", "bm90IGEgY3Vyc29y", "x".repeat(201)])("refuses the cursor %s with a 400", async (cursor, { expect }) => {
		const { token, projectName } = await ownerWithKey();
		const { status, body } = await list(token, `project_name=${projectName}&cursor=${encodeURIComponent(cursor)}`);
		expect(status).toBe(400);
		expect(body.error).toContain("cursor");
	});

	it("keeps a page of the largest records within about 2 MB: long text cut and named, the whole record one request away", async ({ expect }) => {
		const { token, user, projectName } = await ownerWithKey();
		// 1,000 records each as large as the rules allow: a long_text of 10,000 and 20 extras of 500.
		const data = { title: "t".repeat(500), description: "d".repeat(10_000), ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`x${i}`, "x".repeat(500)])) };
		const base = Date.now() - 1_000_000;
		for (let chunk = 0; chunk < 10; chunk++) {
			await env.DB.batch(
				Array.from({ length: 100 }, (_, i) =>
					env.DB.prepare("INSERT INTO feedback (id, user_id, project_name, type, status, data, created_at) VALUES (?, ?, ?, 'issue', 'open', ?, ?)").bind(
						crypto.randomUUID(),
						user.id,
						projectName,
						JSON.stringify(data),
						base + chunk * 100 + i,
					),
				),
			);
		}
		const res = await call(`/api/feedback?project_name=${projectName}&limit=1000`, { token });
		const text = await res.text();
		expect(text.length).toBeLessThanOrEqual(2_000_000);
		const page = JSON.parse(text);
		expect(page.next_cursor).toEqual(expect.any(String));
		const [record] = page.feedback;
		expect(record.data.description).toHaveLength(500);
		expect(record.truncated_fields).toEqual(["description"]);
		const whole = await call(`/api/feedback/${record.id}`, { token }).then((r) => r.json<any>());
		expect(whole.data.description).toHaveLength(10_000);
		expect(whole).not.toHaveProperty("truncated_fields");
	}, 60_000);

	it("reads one record to its owner only: another owner's id is 404", async ({ expect }) => {
		const a = await ownerWithKey();
		const b = await ownerWithKey();
		const { id } = await submitFeedback(a.rawKey, { title: "a's", description: "d" }).then((r) => r.json<any>());
		expect((await call(`/api/feedback/${id}`, { token: a.token })).status).toBe(200);
		expect((await call(`/api/feedback/${id}`, { token: b.token })).status).toBe(404);
	});

	it("never shows another owner's feedback, even under the same project name", async ({ expect }) => {
		const a = await ownerWithKey();
		const b = await ownerWithKey();
		await submitFeedback(a.rawKey, { title: "a's", description: "d" });
		expect((await list(b.token, `project_name=${a.projectName}`)).body.feedback).toEqual([]);
	});

	it("needs a session", async ({ expect }) => {
		expect((await call("/api/feedback?project_name=x")).status).toBe(401);
	});
});

describe("status updates", () => {
	it("updates one row by ?id= and many by body ids", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		const [one, two, three] = await submitMany(rawKey, 3);
		const single = await call(`/api/feedback?id=${one}`, { method: "PATCH", token, json: { status: "in_progress" } });
		expect(single.status).toBe(200);
		expect(await single.json()).toEqual({ updated: 1 });
		const many = await call("/api/feedback", { method: "PATCH", token, json: { status: "human_review", ids: [two, three, "no-such-id"] } });
		expect(await many.json()).toEqual({ updated: 2 });
		const statuses = Object.fromEntries((await list(token, `project_name=${projectName}`)).body.feedback.map((f: any) => [f.id, f.status]));
		expect(statuses).toEqual({ [one]: "in_progress", [two]: "human_review", [three]: "human_review" });
	});

	it.for(["open", "in_progress", "human_review", "closed", "ignored"])("accepts status %s", async (status, { expect }) => {
		const { rawKey, token } = await ownerWithKey();
		const [id] = await submitMany(rawKey, 1);
		expect(await call(`/api/feedback?id=${id}`, { method: "PATCH", token, json: { status } }).then((r) => r.json())).toEqual({ updated: 1 });
	});

	it("accepts 500 ids and refuses 501", async ({ expect }) => {
		const { token, user, projectName } = await ownerWithKey();
		await seedRows(user.id, projectName, 500);
		const ids = (await list(token, `project_name=${projectName}&limit=1000`)).body.feedback.map((f: any) => f.id);
		const ok = await call("/api/feedback", { method: "PATCH", token, json: { status: "closed", ids } });
		expect(await ok.json()).toEqual({ updated: 500 });
		const tooMany = await call("/api/feedback", { method: "PATCH", token, json: { status: "open", ids: [...ids, "one-more"] } });
		expect(tooMany.status).toBe(400);
		expect((await tooMany.json<any>()).error).toContain("at most 500 ids");
		expect((await list(token, `project_name=${projectName}&status=closed&limit=1000`)).body.feedback).toHaveLength(500);
	});

	it.for([
		["an unknown status", { status: "done", ids: ["x"] }],
		["no status", { ids: ["x"] }],
		["no ids", { status: "open" }],
		["an empty id list", { status: "open", ids: [] }],
		["ids that are not strings", { status: "open", ids: [1, 2] }],
		["ids as a string", { status: "open", ids: "x" }],
	])("answers 400 for %s", async ([, body], { expect }) => {
		const { token } = await ownerWithKey();
		const res = await call("/api/feedback", { method: "PATCH", token, json: body });
		expect(res.status).toBe(400);
	});

	it("never touches another owner's rows", async ({ expect }) => {
		const a = await ownerWithKey();
		const b = await ownerWithKey();
		const [id] = await submitMany(a.rawKey, 1);
		const res = await call("/api/feedback", { method: "PATCH", token: b.token, json: { status: "ignored", ids: [id] } });
		expect(await res.json()).toEqual({ updated: 0 });
		expect((await list(a.token, `project_name=${a.projectName}`)).body.feedback[0].status).toBe("open");
	});
});

describe("delete", () => {
	it("deletes by ?id= and by body ids, removing images from R2", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		const [one, two, three] = await submitMany(rawKey, 3, { screenshots: [PNG_1PX, PNG_1PX] });
		const objects = async () => (await env.ATTACHMENTS.list({ prefix: "feedback/" })).objects.filter((o) => [one, two, three].some((id) => o.key.includes(id)));
		expect(await objects()).toHaveLength(6);

		const single = await call(`/api/feedback?id=${one}`, { method: "DELETE", token });
		expect(await single.json()).toEqual({ deleted: 1 });
		const many = await call("/api/feedback", { method: "DELETE", token, json: { ids: [two, three] } });
		expect(await many.json()).toEqual({ deleted: 2 });

		expect((await list(token, `project_name=${projectName}`)).body.feedback).toEqual([]);
		expect(await objects()).toHaveLength(0);
		const rows = await env.DB.prepare("SELECT count(*) AS n FROM feedback_attachments WHERE feedback_id IN (?, ?, ?)").bind(one, two, three).first();
		expect(rows).toEqual({ n: 0 });
	});

	it("accepts 500 ids and refuses 501", async ({ expect }) => {
		const { token, user, projectName } = await ownerWithKey();
		await seedRows(user.id, projectName, 500);
		const ids = (await list(token, `project_name=${projectName}&limit=1000`)).body.feedback.map((f: any) => f.id);
		const tooMany = await call("/api/feedback", { method: "DELETE", token, json: { ids: [...ids, "x"] } });
		expect(tooMany.status).toBe(400);
		expect((await list(token, `project_name=${projectName}&limit=1000`)).body.feedback).toHaveLength(500);
		expect(await call("/api/feedback", { method: "DELETE", token, json: { ids } }).then((r) => r.json())).toEqual({ deleted: 500 });
	});

	it("never deletes another owner's rows or images", async ({ expect }) => {
		const a = await ownerWithKey();
		const b = await ownerWithKey();
		const [id] = await submitMany(a.rawKey, 1, { screenshots: [PNG_1PX] });
		expect(await call(`/api/feedback?id=${id}`, { method: "DELETE", token: b.token }).then((r) => r.json())).toEqual({ deleted: 0 });
		const [row] = (await list(a.token, `project_name=${a.projectName}`)).body.feedback;
		expect(row.id).toBe(id);
		expect((await call(row.attachments[0].url, { token: a.token })).status).toBe(200);
	});

	it("answers 400 without ids", async ({ expect }) => {
		const { token } = await ownerWithKey();
		expect((await call("/api/feedback", { method: "DELETE", token })).status).toBe(400);
		expect((await call("/api/feedback", { method: "DELETE", token, json: {} })).status).toBe(400);
	});
});

describe("attachment download", () => {
	it("serves the image to its owner only", async ({ expect }) => {
		const a = await ownerWithKey();
		const b = await ownerWithKey();
		await submitFeedback(a.rawKey, { title: "t", description: "d", screenshots: [PNG_1PX] });
		const [row] = (await list(a.token, `project_name=${a.projectName}`)).body.feedback;
		const url = row.attachments[0].url;

		const own = await call(url, { token: a.token });
		expect(own.status).toBe(200);
		expect(own.headers.get("x-content-type-options")).toBe("nosniff");
		expect((await call(url, { token: b.token })).status).toBe(404);
		expect((await call(url)).status).toBe(401);
		expect((await call("/api/feedback/attachments/nope", { token: a.token })).status).toBe(404);
	});
});
