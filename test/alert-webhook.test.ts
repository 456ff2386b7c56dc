// Alerts by webhook: the owner's routes, and when the key's object finds an alert due (an issue
// opened, a resolved one regressed, an ignored one came back; new feedback) within its bounds.
// What the object answers is read from its own call; deliveries go through the Worker for real (to
// an address nothing listens on, whose failure is kept). Deliveries to a listening receiver: e2e.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ProjectCollector } from "../durable-objects/ProjectCollector";
import type { FeedbackOutcome, LogOutcome } from "../durable-objects/projectCommands";
import { sha256Hex } from "../domain/crypto";
import { ALERT_LIMITS } from "../domain/limits";
import { call, ORIGIN, signUp, submitFeedback, unique, uniqueIp } from "./helpers";
import { ingest, issueGrouper, ownerWithLogKey, setIssueStatus } from "./logHelpers";
import { envelope, type SentryProject, sendEnvelope, sentryProject } from "./sentryHelpers";

type Json = Record<string, any>;
type Owner = Awaited<ReturnType<typeof ownerWithLogKey>>;

/** Nothing listens there: a delivery fails at once, and its failure is kept. */
const DEAD_HOOK = "http://127.0.0.1:9/hooks/T000/B000/secret-token";
const MINUTE = 60_000;

const putHook = (owner: { token: string; projectName: string }, url: unknown, token: string | undefined = owner.token, more: Json = {}) =>
	call("/api/alert-webhook", { method: "PUT", token, json: { project_name: owner.projectName, url, ...more } });
const hookQuery = (owner: { projectName: string }) => `/api/alert-webhook?${new URLSearchParams({ project_name: owner.projectName })}`;
const readHook = async (owner: { token: string; projectName: string }): Promise<Json | null> => {
	const res = await call(hookQuery(owner), { token: owner.token });
	expect(res.status).toBe(200);
	return (await res.json<Json>()).webhook;
};

async function ownerWithHook(): Promise<Owner> {
	const owner = await ownerWithLogKey();
	expect((await putHook(owner, DEAD_HOOK)).status).toBe(200);
	return owner;
}

/** An event handed to the key's object as the Worker hands it, and the object's answer (alert and all). */
async function toObject(owner: Owner, groupHash: string, extra: Json = {}): Promise<Extract<LogOutcome, { status: "accepted" }>> {
	const now = Date.now();
	const command = {
		keyId: owner.keyId,
		keyHash: await sha256Hex(owner.rawKey),
		ip: uniqueIp(),
		artifactsVersion: 0,
		body: {
			groupHash,
			previousGroupHash: null,
			title: `TypeError: ${groupHash} is undefined`,
			culprit: "checkout.js",
			level: "error",
			environment: "production",
			release: null,
			userKey: null,
			unhandled: false,
			eventId: crypto.randomUUID(),
			clientEventId: null,
			receivedAt: now,
			timestamp: now,
			eventJson: "{}",
			...extra,
		},
	};
	const [result] = await issueGrouper(owner.keyId).calls([{ method: "ingestLog", command }]);
	if (!("outcome" in result) || result.outcome.status !== "accepted") throw new Error(`not accepted: ${JSON.stringify(result)}`);
	return result.outcome as Extract<LogOutcome, { status: "accepted" }>;
}

const actionOf = (outcome: { alert?: { payload: { action: string } } }) => outcome.alert?.payload.action ?? null;
/** A group hash (32 hex digits, as the grouping makes them) named after `name`. */
const hash = (name: string) => [...name].map((c) => c.charCodeAt(0).toString(16)).join("").padEnd(32, "0");

/** Runs SQL in the key's object (to age what its bounds noted). */
const inObject = (owner: Owner, sql: string, ...params: SqlStorageValue[]) =>
	runInDurableObject(issueGrouper(owner.keyId), (_: ProjectCollector, state) => void state.storage.sql.exec(sql, ...params));

/** Feedback handed to the key's object as the Worker hands it, and the object's answer (alert and all). */
async function feedbackToObject(owner: Owner, body: Json): Promise<FeedbackOutcome> {
	const command = { keyId: owner.keyId, keyHash: await sha256Hex(owner.rawKey), ip: uniqueIp(), body };
	const [result] = await issueGrouper(owner.keyId).calls([{ method: "submitFeedback", command }]);
	if (!("outcome" in result)) throw new Error(`failed: ${result.failed}`);
	return result.outcome as FeedbackOutcome;
}
const accepted = (outcome: FeedbackOutcome) => (outcome.status === "accepted" ? outcome : expect.unreachable(`not accepted: ${JSON.stringify(outcome)}`));

/** What the bounds noted in the key's object: the alerts sent in the last hour. */
const alertsSent = (owner: Owner) =>
	runInDurableObject(issueGrouper(owner.keyId), (_: ProjectCollector, state) => state.storage.sql.exec(`SELECT hash, action FROM alerts_sent`).toArray());

/** The webhook's last delivery, once the alert sent after an answer has been tried. */
async function lastDelivery(owner: { token: string; projectName: string }): Promise<Json | null> {
	for (let i = 0; i < 200; i++, await new Promise((resolve) => setTimeout(resolve, 25))) {
		const last = (await readHook(owner))?.last_delivery;
		if (last) return last;
	}
	return null;
}

describe("the owner's alert webhook routes", () => {
	it("sets, reads, replaces and removes the webhook; no webhook reads as null", async () => {
		const owner = await ownerWithLogKey();
		expect(await readHook(owner)).toBeNull();
		const before = Date.now();
		const put = await putHook(owner, "https://hooks.slack.com/services/T0/B0/xyz");
		expect(put.status).toBe(200);
		expect(put.headers.get("cache-control")).toBe("no-store");
		const body = await put.json<Json>();
		expect(body).toEqual({ url: "https://hooks.slack.com/services/T0/B0/xyz", created_at: expect.any(String), last_delivery: null, suppressed: 0, feedback: true });
		expect(Date.parse(body.created_at)).toBeGreaterThanOrEqual(before);
		expect(await readHook(owner)).toEqual(body);

		expect(await (await putHook(owner, "  https://discord.com/api/webhooks/1/abc  ")).json<Json>()).toMatchObject({ url: "https://discord.com/api/webhooks/1/abc" });
		const removed = await call(hookQuery(owner), { method: "DELETE", token: owner.token });
		expect(removed.status).toBe(204);
		expect(await readHook(owner)).toBeNull();
		// Removing none is done as well.
		expect((await call(hookQuery(owner), { method: "DELETE", token: owner.token })).status).toBe(204);
	});

	it("refuses each kind of bad URL with a 400 naming the problem; 2,000 characters are taken, 2,001 are not", async () => {
		const owner = await ownerWithLogKey();
		const refused = async (url: unknown, problem: string) => {
			const res = await putHook(owner, url);
			expect(res.status, String(url).slice(0, 40)).toBe(400);
			const { error } = await res.json<Json>();
			expect(error).toMatch(/^Invalid request: url: /);
			expect(error).toContain(problem);
		};
		await refused("ftp://example.com/hook", "must be an http or https URL");
		await refused("javascript:alert(1)", "must be an http or https URL");
		await refused("https://user:pass@example.com/hook", "must not carry a user name or password");
		await refused("https://user@example.com/hook", "must not carry a user name or password");
		await refused("example.com/hook", "is not a well-formed URL");
		await refused("http://exa mple.com/", "is not a well-formed URL");
		await refused("", "must not be empty");
		await refused(42, "must be text");
		await refused(undefined, "is required");
		const base = "https://example.com/";
		const exactly = base + "a".repeat(ALERT_LIMITS.urlChars - base.length);
		expect(exactly.length).toBe(2_000);
		expect((await putHook(owner, exactly)).status).toBe(200);
		await refused(`${exactly}a`, "must be at most 2,000 characters");
		expect((await readHook(owner))?.url).toBe(exactly);

		const unknownMember = await call("/api/alert-webhook", { method: "PUT", token: owner.token, json: { project_name: owner.projectName, url: base, urls: [] } });
		expect(unknownMember.status).toBe(400);
		expect((await call("/api/alert-webhook", { method: "PUT", token: owner.token, body: "not json" })).status).toBe(400);
		expect((await call("/api/alert-webhook", { token: owner.token })).status).toBe(400);
		expect((await call("/api/alert-webhook/test", { method: "POST", token: owner.token, json: {} })).status).toBe(400);
	});

	it("alerts feedback too: on for a first webhook, kept when a PUT leaves it out, set when one gives it; anything but a boolean is a 400", async () => {
		const owner = await ownerWithLogKey();
		const feedbackAfter = async (url: string, more: Json = {}) => {
			const res = await putHook(owner, url, owner.token, more);
			expect(res.status).toBe(200);
			const { feedback } = await res.json<Json>();
			expect((await readHook(owner))?.feedback).toBe(feedback);
			return feedback;
		};
		expect(await feedbackAfter(DEAD_HOOK)).toBe(true);
		expect(await feedbackAfter(DEAD_HOOK, { feedback: false })).toBe(false);
		expect(await feedbackAfter(DEAD_HOOK)).toBe(false);
		// Another URL replaces the webhook and keeps the setting as well.
		expect(await feedbackAfter("https://example.com/other")).toBe(false);
		expect(await feedbackAfter("https://example.com/other", { feedback: true })).toBe(true);
		expect(await feedbackAfter("https://example.com/other", { feedback: false })).toBe(false);
		// Removed, then set again: a first webhook.
		await call(hookQuery(owner), { method: "DELETE", token: owner.token });
		expect(await feedbackAfter(DEAD_HOOK)).toBe(true);
		for (const bad of ["false", 0, null]) {
			const res = await putHook(owner, DEAD_HOOK, owner.token, { feedback: bad });
			expect(res.status, String(bad)).toBe(400);
			expect((await res.json<Json>()).error).toBe("Invalid request: feedback: must be true or false");
		}
		expect((await readHook(owner))?.feedback).toBe(true);
	});

	it("answers 401 signed out and 404 for a project that is not the owner's", async () => {
		const owner = await ownerWithLogKey();
		const stranger = await signUp();
		const routes = [
			{ path: "/api/alert-webhook", method: "PUT", json: { project_name: owner.projectName, url: "https://example.com/h" } },
			{ path: hookQuery(owner), method: "GET" },
			{ path: hookQuery(owner), method: "DELETE" },
			{ path: "/api/alert-webhook/test", method: "POST", json: { project_name: owner.projectName } },
		];
		for (const route of routes) {
			expect((await call(route.path, route)).status, `${route.method} signed out`).toBe(401);
			const res = await call(route.path, { ...route, token: stranger.token });
			expect(res.status, `${route.method} another's`).toBe(404);
			expect(await res.json<Json>()).toEqual({ error: `No project key for project "${owner.projectName}"` });
		}
		expect((await call(hookQuery({ projectName: unique("none") }), { token: owner.token })).status).toBe(404);
	});

	it("sends a test alert: 409 without a webhook; a receiver that cannot be reached is delivered false, kept as the last delivery", async () => {
		const owner = await ownerWithLogKey();
		const test = () => call("/api/alert-webhook/test", { method: "POST", token: owner.token, json: { project_name: owner.projectName } });
		const none = await test();
		expect(none.status).toBe(409);
		expect((await none.json<Json>()).error).toMatch(/No alert webhook/);

		await putHook(owner, DEAD_HOOK);
		const res = await test();
		expect(res.status).toBe(200);
		const answer = await res.json<Json>();
		expect(answer).toEqual({ delivered: false, status: null, error: expect.any(String) });
		expect(answer.error.length).toBeLessThanOrEqual(200);
		expect(answer.error).not.toContain("secret-token");
		const { last_delivery } = (await readHook(owner))!;
		expect(last_delivery).toEqual({ at: expect.any(String), delivered: false, status: null, error: answer.error });
	});
});

describe("when the key's object finds an alert due", () => {
	it("alerts on an issue's first event only, with the payload chat apps read", async () => {
		const owner = await ownerWithHook();
		const first = await toObject(owner, hash("a"), { release: "web@1.2.0", clientEventId: "c".repeat(32) });
		expect(first.isNew).toBe(true);
		expect(first.alert?.url).toBe(DEAD_HOOK);
		const url = `${ORIGIN}/issues/${encodeURIComponent(owner.projectName)}/${hash("a")}`;
		expect(first.alert?.payload).toEqual({
			action: "created",
			project: owner.projectName,
			issue: {
				group_hash: hash("a"),
				title: `TypeError: ${hash("a")} is undefined`,
				culprit: "checkout.js",
				level: "error",
				count: 1,
				first_seen: expect.any(String),
				last_seen: expect.any(String),
				url,
			},
			event: { event_id: "c".repeat(32), environment: "production", release: "web@1.2.0", timestamp: expect.any(String) },
			text: `New issue in ${owner.projectName}: TypeError: ${hash("a")} is undefined (checkout.js) — <${url}>`,
			content: `New issue in ${owner.projectName}: TypeError: ${hash("a")} is undefined (checkout.js) — ${url}`,
			allowed_mentions: { parse: [] },
		});
		// Not the bound: with what the bounds noted forgotten, a second event of the issue is still none.
		await inObject(owner, `DELETE FROM alerts_sent`);
		const second = await toObject(owner, hash("a"));
		expect(second.alert).toBeUndefined();
	});

	it("alerts when a resolved issue regresses, and when an ignore ends on its event (once)", async () => {
		const owner = await ownerWithHook();
		expect(actionOf(await toObject(owner, hash("r")))).toBe("created");
		expect((await setIssueStatus(owner.token, owner.projectName, hash("r"), "resolved")).status).toBe(200);
		const regressed = await toObject(owner, hash("r"));
		expect(actionOf(regressed)).toBe("regressed");
		expect(regressed.alert?.payload.text).toMatch(/^Regression in /);
		expect(regressed.alert?.payload.issue.count).toBe(2);

		const ignore = await call(`/api/issues/${hash("r")}`, {
			method: "PATCH",
			token: owner.token,
			json: { project_name: owner.projectName, status: "ignored", ignore_until_events: 1 },
		});
		expect(ignore.status).toBe(200);
		const [a, b] = [await toObject(owner, hash("r")), await toObject(owner, hash("r"))];
		expect([actionOf(a), actionOf(b)]).toEqual(["unignored", null]);
		expect(a.alert?.payload.text).toMatch(/^Ignored issue is back in /);
	});

	it("sends nothing without a webhook, and nothing once it is removed", async () => {
		const owner = await ownerWithLogKey();
		expect((await toObject(owner, hash("n"))).alert).toBeUndefined();
		await putHook(owner, DEAD_HOOK);
		expect(actionOf(await toObject(owner, hash("m")))).toBe("created");
		await call(hookQuery(owner), { method: "DELETE", token: owner.token });
		expect((await toObject(owner, hash("o"))).alert).toBeUndefined();
	});

	it("alerts once per issue and action within 30 minutes", async () => {
		const owner = await ownerWithHook();
		const regress = async () => {
			expect((await setIssueStatus(owner.token, owner.projectName, hash("b"), "resolved")).status).toBe(200);
			return actionOf(await toObject(owner, hash("b")));
		};
		expect(actionOf(await toObject(owner, hash("b")))).toBe("created");
		expect(await regress()).toBe("regressed");
		expect(await regress()).toBeNull();
		// 29 minutes later: still within the bound.
		await inObject(owner, `UPDATE alerts_sent SET at = ? WHERE action = 'regressed'`, Date.now() - ALERT_LIMITS.perIssueMs + MINUTE);
		expect(await regress()).toBeNull();
		// 30 minutes later: due again.
		await inObject(owner, `UPDATE alerts_sent SET at = ? WHERE action = 'regressed'`, Date.now() - ALERT_LIMITS.perIssueMs);
		expect(await regress()).toBe("regressed");
		expect(await regress()).toBeNull();
	});

	it("sends at most 60 alerts per project per hour; those past it are counted as suppressed", async () => {
		const owner = await ownerWithHook();
		const now = Date.now();
		for (let i = 0; i < ALERT_LIMITS.perHour - 1; i++) await inObject(owner, `INSERT INTO alerts_sent (hash, action, at) VALUES (?, 'created', ?)`, `seeded${i}`, now);
		// The 60th of the hour is sent, the 61st is not.
		expect(actionOf(await toObject(owner, hash("h60")))).toBe("created");
		expect((await toObject(owner, hash("h61"))).alert).toBeUndefined();
		expect((await toObject(owner, hash("h62"))).alert).toBeUndefined();
		expect((await readHook(owner))?.suppressed).toBe(2);
		// One sent an hour ago is out of the window: room for one more.
		await inObject(owner, `UPDATE alerts_sent SET at = ? WHERE hash = 'seeded0'`, Date.now() - 3_600_000);
		expect(actionOf(await toObject(owner, hash("h63")))).toBe("created");
		expect((await toObject(owner, hash("h64"))).alert).toBeUndefined();
		expect((await readHook(owner))?.suppressed).toBe(3);
	});
});

describe("when new feedback raises an alert", () => {
	it("alerts accepted feedback with the payload chat apps read, noted under the feedback's id; (no title) without one", async () => {
		const owner = await ownerWithHook();
		const bug = accepted(await feedbackToObject(owner, { type: "issue", title: "The pay button does nothing", description: "On Safari" }));
		expect(bug.alert?.url).toBe(DEAD_HOOK);
		const url = `${ORIGIN}/feedback/${encodeURIComponent(owner.projectName)}/${bug.id}`;
		expect(bug.alert?.payload).toEqual({
			action: "feedback",
			project: owner.projectName,
			feedback: { id: bug.id, type: "issue", title: "The pay button does nothing", url, created_at: expect.stringMatching(/^20\d\d-\d\d-\d\dT.*Z$/) },
			text: `New bug report in ${owner.projectName}: The pay button does nothing — <${url}>`,
			content: `New bug report in ${owner.projectName}: The pay button does nothing — ${url}`,
			allowed_mentions: { parse: [] },
		});
		expect(await alertsSent(owner)).toEqual([{ hash: bug.id, action: "feedback" }]);

		// A feature request says so; its line is escaped for Slack, its title whole in `feedback`.
		const feature = accepted(await feedbackToObject(owner, { type: "feature_request", title: "Pay <b>& go</b>" }));
		expect(feature.alert?.payload.feedback).toMatchObject({ type: "feature_request", title: "Pay <b>& go</b>" });
		expect(feature.alert?.payload.text).toMatch(/^New feature request in .*: Pay &lt;b&gt;&amp; go&lt;\/b&gt; — <https:/);
		expect(feature.alert?.payload.content).toMatch(/^New feature request in .*: Pay <b>& go<\/b> — https:/);

		// Feedback of a form without a title field: "(no title)", as the console shows it.
		const fields = [{ key: "description", label: "Description", type: "long_text", required: true }];
		expect((await call("/api/feedback-key", { method: "PATCH", token: owner.token, json: { project_name: owner.projectName, issue_field_config: fields } })).status).toBe(200);
		const untitled = accepted(await feedbackToObject(owner, { description: "It crashes" }));
		expect(untitled.alert?.payload.feedback.title).toBe("(no title)");
		expect(untitled.alert?.payload.content).toMatch(/^New bug report in .*: \(no title\) — /);
	});

	it("sends none with feedback off, without a webhook, or for a refused submission", async () => {
		const owner = await ownerWithLogKey();
		const valid = { title: "Crash on save", description: "It crashes" };
		const none = async (body: Json, status: string) => {
			const outcome = await feedbackToObject(owner, body);
			expect(outcome.status).toBe(status);
			expect("alert" in outcome && outcome.alert).toBeFalsy();
			expect(await alertsSent(owner)).toEqual([]);
		};
		await none(valid, "accepted");
		await putHook(owner, DEAD_HOOK, owner.token, { feedback: false });
		await none(valid, "accepted");
		await putHook(owner, DEAD_HOOK, owner.token, { feedback: true });
		// Refused (400: the description is required): nothing of the bounds noted either.
		await none({ title: "Crash on save" }, "refused");
		expect((await readHook(owner))?.suppressed).toBe(0);
	});

	it("shares the hourly bound with issue alerts: feedback past it is suppressed, and uses up room issues would have", async () => {
		const owner = await ownerWithHook();
		const now = Date.now();
		for (let i = 0; i < ALERT_LIMITS.perHour - 1; i++) await inObject(owner, `INSERT INTO alerts_sent (hash, action, at) VALUES (?, 'created', ?)`, `seeded${i}`, now);
		const feedback = () => feedbackToObject(owner, { title: "Crash on save", description: "It crashes" });
		// The 60th of the hour is sent, the 61st (feedback, then an issue) is not.
		expect(actionOf((await feedback()) as Json)).toBe("feedback");
		expect(actionOf((await feedback()) as Json)).toBeNull();
		expect((await toObject(owner, hash("f62"))).alert).toBeUndefined();
		expect((await readHook(owner))?.suppressed).toBe(2);
	});
});

describe("an alert through the Worker", () => {
	it("is sent after the ingestion answer, which it never changes; its failure is kept as the last delivery", async () => {
		const owner = await ownerWithHook();
		const res = await ingest(owner.rawKey, { message: `boom ${unique()}` });
		expect(res.status).toBe(200);
		const answer = await res.json<Json>();
		expect(Object.keys(answer).sort()).toEqual(["group_hash", "is_new", "ok"]);
		expect(JSON.stringify(answer)).not.toContain("secret-token");
		const last = await lastDelivery(owner);
		expect(last).toEqual({ at: expect.any(String), delivered: false, status: null, error: expect.any(String) });
		expect(last?.error).not.toContain("secret-token");
	});

	it("is sent for feedback from either entry point, whose answer it never changes", async () => {
		const sentryFeedback = JSON.stringify({ type: "feedback", contexts: { feedback: { message: "The pay button does nothing" } } });
		const submissions = [
			(project: SentryProject) => submitFeedback(project.rawKey, { title: "The pay button does nothing", description: "On Safari" }),
			(project: SentryProject) => sendEnvelope(project, envelope({}, [{ type: "feedback", payload: sentryFeedback }])),
		];
		for (const submit of submissions) {
			const project = await sentryProject();
			expect((await putHook(project, DEAD_HOOK)).status).toBe(200);
			const res = await submit(project);
			expect(res.status).toBe(200);
			expect(JSON.stringify(await res.json())).not.toContain("secret-token");
			expect(await lastDelivery(project)).toEqual({ at: expect.any(String), delivered: false, status: null, error: expect.any(String) });
		}
	});
});
