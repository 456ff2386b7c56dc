import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { call, ownerWithKey, PNG_1PX, signUp, submitFeedback, uniqueIp } from "./helpers";

/** RFC 4180 rows: quoted fields with doubled quotes, commas and line breaks inside them. */
function parseCsv(text: string): string[][] {
	const rows: string[][] = [];
	let row: string[] = [];
	let field = "";
	let quoted = false;
	for (let i = 0; i < text.length; i++) {
		const c = text[i];
		if (quoted && c === '"' && text[i + 1] === '"') {
			field += '"';
			i++;
		} else if (c === '"') {
			quoted = !quoted;
		} else if (quoted || (c !== "," && c !== "\r")) {
			field += c;
		} else {
			row.push(field);
			field = "";
			if (c === "\r") {
				rows.push(row);
				row = [];
				i++;
			}
		}
	}
	return rows;
}

const exportOf = (token: string, query: Record<string, string>) => call(`/api/feedback.csv?${new URLSearchParams(query)}`, { token });

async function exportedRows(token: string, query: Record<string, string>) {
	const res = await exportOf(token, query);
	if (res.status !== 200) throw new Error(`export failed: ${res.status} ${await res.text()}`);
	const [header, ...rows] = parseCsv(await res.text());
	return { header, rows: rows.map((cells) => Object.fromEntries(header.map((name, i) => [name, cells[i]]))) };
}

describe("feedback as CSV (GET /api/feedback.csv)", () => {
	it("every record the filters keep, newest first and whole: its columns, then a column a field of the forms, then the records' own", async ({ expect }) => {
		const { token, rawKey, projectName } = await ownerWithKey();
		const ip = uniqueIp();
		const long = "It crashes, \"every time\",\nafter I save. ".repeat(250);
		for (const body of [
			{ title: "Crash on save", description: long, email: "ann@example.com", screenshots: [PNG_1PX, PNG_1PX] },
			{ type: "feature_request", title: "Dark mode", plan: "pro", seats: 12 },
			{ title: "=HYPERLINK(\"https://evil.example\")", description: "+1 -1 @x" },
		]) {
			expect((await submitFeedback(rawKey, body, { ip })).status).toBe(200);
		}
		const res = await exportOf(token, { project_name: projectName });
		expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
		expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${projectName}-feedback-${new Date().toISOString().slice(0, 10)}.csv"`);
		const { header, rows } = await exportedRows(token, { project_name: projectName });
		expect(header).toEqual(["id", "created_at", "type", "status", "title", "description", "email", "screenshots", "plan", "seats"]);
		expect(rows.map((row) => [row.type, row.status, row.title])).toEqual([
			["issue", "open", "'=HYPERLINK(\"https://evil.example\")"],
			["feature_request", "open", "Dark mode"],
			["issue", "open", "Crash on save"],
		]);
		const crash = rows[2];
		expect(crash).toMatchObject({ description: long, email: "ann@example.com", screenshots: "2 images", plan: "", seats: "" });
		expect(rows[0].description).toBe("'+1 -1 @x");
		expect(rows[1]).toMatchObject({ plan: "pro", seats: "12", description: "", screenshots: "" });
		expect(Date.parse(crash.created_at)).toBeGreaterThan(0);
		// The same records the list answers, by the same ids.
		const listed = await call(`/api/feedback?project_name=${projectName}`, { token }).then((r) => r.json<{ feedback: { id: string }[] }>());
		expect(rows.map((row) => row.id)).toEqual(listed.feedback.map((record) => record.id));
	});

	it("keeps the list's filters: type, status and search", async ({ expect }) => {
		const { token, rawKey, projectName } = await ownerWithKey();
		for (const body of [{ title: "Crash on save", description: "d" }, { type: "feature_request", title: "Dark mode" }, { title: "Login fails", description: "d" }]) {
			await submitFeedback(rawKey, body);
		}
		const { rows: issues } = await exportedRows(token, { project_name: projectName, type: "issue" });
		expect(issues.map((row) => row.title)).toEqual(["Login fails", "Crash on save"]);
		const closed = issues[1].id;
		expect((await call("/api/feedback", { method: "PATCH", token, json: { ids: [closed], status: "closed" } })).status).toBe(200);
		expect((await exportedRows(token, { project_name: projectName, status: "closed" })).rows.map((row) => row.id)).toEqual([closed]);
		expect((await exportedRows(token, { project_name: projectName, q: "dark" })).rows.map((row) => row.title)).toEqual(["Dark mode"]);
	});

	it("holds the newest 1,000 of 1,001 records", async ({ expect }) => {
		const { token, user, projectName } = await ownerWithKey();
		const at = Date.UTC(2026, 10, 1);
		const insert = env.DB.prepare("insert into feedback (id, user_id, project_name, type, status, data, created_at) values (?, ?, ?, 'issue', 'open', ?, ?)");
		await env.DB.batch(Array.from({ length: 1_001 }, (_, i) => insert.bind(`seeded-${i}`, user.id, projectName, JSON.stringify({ title: `Report ${i}` }), at + i)));
		const { rows } = await exportedRows(token, { project_name: projectName });
		expect(rows).toHaveLength(1_000);
		expect([rows[0].title, rows[999].title]).toEqual(["Report 1000", "Report 1"]);
	});

	it("a project without a key (revoked) still exports its feedback; another owner's project exports nothing", async ({ expect }) => {
		const { token, rawKey, projectName } = await ownerWithKey();
		await submitFeedback(rawKey, { title: "Kept after revoking", description: "d", colour: "blue" });
		await call(`/api/feedback?project_name=${projectName}`, { token });
		expect((await call(`/api/feedback-key?project_name=${projectName}`, { method: "DELETE", token })).status).toBe(200);
		const { header, rows } = await exportedRows(token, { project_name: projectName });
		expect(header).toEqual(["id", "created_at", "type", "status", "title", "description", "colour"]);
		expect(rows.map((row) => row.title)).toEqual(["Kept after revoking"]);
		const other = await signUp();
		expect(await exportedRows(other.token, { project_name: projectName })).toEqual({ header: ["id", "created_at", "type", "status"], rows: [] });
	});

	it("a field named as one of the record's columns is told apart by its header", async ({ expect }) => {
		const { token, rawKey, projectName } = await ownerWithKey();
		await submitFeedback(rawKey, { title: "t", description: "d", status: "urgent", id: "mine" });
		const { header, rows } = await exportedRows(token, { project_name: projectName });
		expect(header.slice(-2)).toEqual(["status (field)", "id (field)"]);
		expect(rows[0]).toMatchObject({ status: "open", "status (field)": "urgent", "id (field)": "mine" });
	});

	it("refuses what the list refuses, and a session that is not the owner's", async ({ expect }) => {
		const { token, projectName } = await ownerWithKey();
		expect((await exportOf(token, {})).status).toBe(400);
		expect((await exportOf(token, { project_name: projectName, type: "bug" })).status).toBe(400);
		expect((await exportOf(token, { project_name: projectName, q: "x".repeat(201) })).status).toBe(400);
		expect((await exportOf(token, { project_name: projectName, q: "x".repeat(200) })).status).toBe(200);
		expect((await call(`/api/feedback.csv?project_name=${projectName}`)).status).toBe(401);
	});
});
