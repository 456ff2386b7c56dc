import { afterAll, beforeAll, describe, it } from "vitest";
import { api, type Issue, ownerWithSite, startWorker } from "./stack";

/**
 * Feedback and log events of one key sent at once to the real Worker on the local runtime, where a
 * batch's sender wakes the requests waiting on it (workers/keys/projectCalls.ts). The Worker tests'
 * pool turns those wake-ups off, so this is where they run: every request answered as if alone,
 * every accepted one stored once.
 */

let worker: Awaited<ReturnType<typeof startWorker>>;

beforeAll(async () => {
	worker = await startWorker();
});

afterAll(async () => {
	await worker?.close();
});

function post(path: string, key: string, json: unknown, ip: string) {
	return fetch(worker.url + path, {
		method: "POST",
		headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "cf-connecting-ip": ip },
		body: JSON.stringify(json),
	});
}

describe("calls to one key's object sent together, on the local runtime", () => {
	it("120 submissions and 60 log events at once: each answered for itself, each stored once", async ({ expect }) => {
		const { token } = await ownerWithSite(worker.url, "batch.example");
		const project = "batched";
		const { raw_api_key: key } = await api<{ raw_api_key: string }>(worker.url, "/api/feedback-key", { token, json: { project_name: project } });
		await api(worker.url, "/api/feedback-key", { method: "PATCH", token, json: { project_name: project, rate_limit_per_minute: 600 } });

		const titles = Array.from({ length: 120 }, (_, i) => `together ${String(i).padStart(3, "0")}`);
		const messages = ["alpha", "bravo", "charlie"].map((word) => `${word} failed`);
		const [feedback, logs] = await Promise.all([
			Promise.all(titles.map((title, i) => post("/functions/v1/submit-feedback", key, { title, description: "d" }, `198.51.100.${i}`))),
			Promise.all(Array.from({ length: 60 }, (_, i) => post("/api/app-logs-ingest", key, { message: messages[i % 3], level: "error" }, `203.0.113.${i}`))),
		]);
		expect(feedback.map((r) => r.status)).toEqual(titles.map(() => 200));
		expect(logs.map((r) => r.status)).toEqual(logs.map(() => 200));
		const ids = await Promise.all(feedback.map((r) => r.json().then((body) => body.id)));
		expect(new Set(ids).size).toBe(120);
		const answers = await Promise.all(logs.map((r) => r.json()));
		expect(answers.filter((a) => a.is_new)).toHaveLength(3);

		const stored = await api<{ feedback: Array<{ id: string; data: { title: string } }> }>(worker.url, `/api/feedback?project_name=${project}&limit=1000`, { token });
		expect(stored.feedback.map((f) => f.data.title).sort()).toEqual(titles);
		expect(new Set(stored.feedback.map((f) => f.id))).toEqual(new Set(ids));
		const { issues } = await api<{ issues: Issue[] }>(worker.url, `/api/issues?project_name=${project}`, { token });
		expect(issues.map((i) => i.count)).toEqual([20, 20, 20]);
	});
});
