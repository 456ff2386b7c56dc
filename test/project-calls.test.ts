import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { sha256Hex } from "../domain/crypto";
import { FEEDBACK_LIMITS } from "../domain/limits";
import type { ProjectCall } from "../durable-objects/projectCommands";
import { callProjectCollector } from "../workers/keys/projectCalls";
import { call, configureKey, submitFeedback } from "./helpers";
import { ingest, listIssues, ownerWithLogKey, storedEvents } from "./logHelpers";

/*
 * Concurrent requests for one key leave this isolate in batches (workers/keys/projectCalls.ts):
 * each request must still get the answer its own call would have had, and every accepted one
 * must be stored exactly once.
 */

async function storedTitles(token: string, projectName: string): Promise<string[]> {
	const res = await call(`/api/feedback?project_name=${encodeURIComponent(projectName)}&limit=1000`, { token });
	const { feedback } = await res.json<{ feedback: Array<{ data: { title: string } }> }>();
	return feedback.map((record) => record.data.title).sort();
}

const titles = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix} ${String(i).padStart(3, "0")}`);

describe("calls sent together", () => {
	it("150 submissions at once (more than one batch takes): each answered with its own id, each stored once", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await configureKey(owner.token, owner.projectName, { rate_limit_per_minute: 600 });
		const sent = titles(150, "at once");
		const responses = await Promise.all(sent.map((title) => submitFeedback(owner.rawKey, { title, description: "d" })));
		expect(responses.map((r) => r.status)).toEqual(sent.map(() => 200));
		const ids = await Promise.all(responses.map((r) => r.json<{ id: string }>().then((body) => body.id)));
		expect(new Set(ids).size).toBe(150);
		expect(await storedTitles(owner.token, owner.projectName)).toEqual(sent);
	});

	it("refusals in a batch are their own: bad bodies get their 400s, the valid ones beside them are stored", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await configureKey(owner.token, owner.projectName, { rate_limit_per_minute: 600 });
		const bodies = titles(30, "mixed").map((title, i) =>
			i % 3 === 0 ? { raw: "{not json" } : i % 3 === 1 ? { json: { description: "no title" } } : { json: { title, description: "d" } },
		);
		const responses = await Promise.all(bodies.map((b) => submitFeedback(owner.rawKey, "json" in b ? b.json : null, "raw" in b ? { raw: b.raw } : {})));
		expect(responses.map((r) => r.status)).toEqual(bodies.map((_, i) => (i % 3 === 2 ? 200 : 400)));
		const missingTitle = await responses[1].json<{ error: string; fields: string[] }>();
		expect(missingTitle.fields).toEqual(["title"]);
		expect(await storedTitles(owner.token, owner.projectName)).toEqual(titles(30, "mixed").filter((_, i) => i % 3 === 2));
	});

	it("bodies of 20,000 characters at once: more than one batch carries, each answered and stored", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await configureKey(owner.token, owner.projectName, { rate_limit_per_minute: 600 });
		// 60 calls of 20,000 characters pass the 1,000,000 a batch carries at its 50th.
		const sent = titles(60, "twenty thousand");
		const responses = await Promise.all(sent.map((title) => submitFeedback(owner.rawKey, { title, description: "d", note: "n".repeat(20_000) })));
		expect(responses.map((r) => r.status)).toEqual(sent.map(() => 200));
		expect(await storedTitles(owner.token, owner.projectName)).toEqual(sent);
	});

	it("feedback and log events of one key at once: every one answered as if alone", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await configureKey(owner.token, owner.projectName, { rate_limit_per_minute: 600 });
		const feedbackTitles = titles(25, "beside logs");
		const [feedback, logs] = await Promise.all([
			Promise.all(feedbackTitles.map((title) => submitFeedback(owner.rawKey, { title, description: "d" }))),
			Promise.all(Array.from({ length: 25 }, (_, i) => ingest(owner.rawKey, { message: `${["alpha", "bravo", "charlie", "delta", "echo"][i % 5]} failed`, level: "error" }))),
		]);
		expect(feedback.map((r) => r.status)).toEqual(feedbackTitles.map(() => 200));
		expect(logs.map((r) => r.status)).toEqual(logs.map(() => 200));
		// Five messages, five issues: exactly one answer per message says it opened the issue.
		const answers = await Promise.all(logs.map((r) => r.json<{ group_hash: string; is_new: boolean }>()));
		expect(answers.filter((a) => a.is_new)).toHaveLength(5);
		expect(new Set(answers.map((a) => a.group_hash)).size).toBe(5);
		expect(await storedTitles(owner.token, owner.projectName)).toEqual(feedbackTitles);
		const { issues } = await listIssues(owner.token, { project_name: owner.projectName }).then((r) => r.json<{ issues: Array<{ count: number }> }>());
		expect(issues.map((i) => i.count)).toEqual([5, 5, 5, 5, 5]);
		expect(await storedEvents(owner.keyId)).toHaveLength(25);
	});

	it("large bodies at once (each leaves on its own) are each stored", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const descriptions = ["a", "b", "c"].map((letter) => letter.repeat(100_000));
		const responses = await Promise.all(descriptions.map((description, i) => submitFeedback(owner.rawKey, { title: `large ${i}`, description })));
		expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
		for (const [i, res] of responses.entries()) {
			const { id } = await res.json<{ id: string }>();
			const record = await call(`/api/feedback/${id}`, { token: owner.token }).then((r) => r.json<{ data: { title: string; description: string } }>());
			expect(record.data.title).toBe(`large ${i}`);
			// Stored as any submission is: a long text cut at its 10,000 characters.
			expect(record.data.description === descriptions[i].slice(0, FEEDBACK_LIMITS.longText)).toBe(true);
		}
	});
});

describe("how calls are batched", () => {
	/** The real key's object behind a stub that records the size of each batch it is handed. */
	async function recordedCalls() {
		const owner = await ownerWithLogKey();
		await configureKey(owner.token, owner.projectName, { rate_limit_per_minute: 600 });
		const batches: number[] = [];
		const recording = {
			...env,
			PROJECT_COLLECTOR: {
				idFromName: (name: string) => env.PROJECT_COLLECTOR.idFromName(name),
				get: (id: DurableObjectId) => {
					const stub = env.PROJECT_COLLECTOR.get(id);
					return {
						calls: (calls: ProjectCall[]) => {
							batches.push(calls.length);
							return stub.calls(calls);
						},
					};
				},
			},
		} as unknown as Env;
		const keyHash = await sha256Hex(owner.rawKey);
		let n = 0;
		const submit = (chars: number) =>
			callProjectCollector(
				recording,
				createExecutionContext(),
				owner.keyId,
				"submitFeedback",
				{ keyId: owner.keyId, keyHash, ip: `address ${n}`, body: { title: `call ${n++}`, description: "d" } },
				chars,
			);
		return { owner, batches, submit };
	}

	it("calls made while a batch is out leave in the next, at most 100 of them", async ({ expect }) => {
		const { owner, batches, submit } = await recordedCalls();
		// The first leaves at once; the 101 made meanwhile wait for it.
		const outcomes = await Promise.all(Array.from({ length: 102 }, () => submit(0)));
		expect(batches).toEqual([1, 100, 1]);
		expect(outcomes.every((o) => o.status === "accepted")).toBe(true);
		expect(await storedTitles(owner.token, owner.projectName)).toHaveLength(102);
	});

	it.for([
		[20_000, [1, 50]],
		[20_001, [1, 49, 1]],
	] as const)("a batch carries at most 1,000,000 characters of bodies: 49 of 20,000 and one of %i", async ([last, expected], { expect }) => {
		const { batches, submit } = await recordedCalls();
		const outcomes = await Promise.all([submit(0), ...Array.from({ length: 49 }, () => submit(20_000)), submit(last)]);
		expect(batches).toEqual(expected);
		expect(outcomes.every((o) => o.status === "accepted")).toBe(true);
	});

	it("a body over 64,000 characters leaves at once on its own; one of 64,000 waits its turn", async ({ expect }) => {
		const { batches, submit } = await recordedCalls();
		const first = submit(0);
		const waiting = submit(64_000);
		const alone = submit(64_001);
		// Handed over before the first batch is back, and not held for the one waiting.
		expect(batches).toEqual([1, 1]);
		expect((await alone).status).toBe("accepted");
		await Promise.all([first, waiting]);
		expect(batches).toEqual([1, 1, 1]);
	});
});
