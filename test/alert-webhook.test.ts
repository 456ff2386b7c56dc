// Alerts by webhook: the owner's routes, and when the key's object finds an issue alert due (an
// issue opened, a resolved one regressed, an ignored one came back) within its bounds. What the
// object answers is read from its own call; deliveries go through the Worker for real (to an
// address nothing listens on, whose failure is kept). Feedback alerts: alert-feedback.test.ts;
// deliveries to a listening receiver: e2e.
import { describe, expect, it, vi } from "vitest";
import { ALERT_LIMITS } from "../domain/limits";
import { shortIdOf } from "../domain/logs/shortId";
import { call, ORIGIN, signUp, unique } from "./helpers";
import { ingest, ownerWithLogKey, setIssueStatus } from "./logHelpers";
import {
	actionOf,
	DEAD_HOOK,
	hash,
	hookQuery,
	inObject,
	type Json,
	lastDelivery,
	ownerWithHook,
	putHook,
	readHook,
	toObject,
} from "./alertHelpers";

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
		// The owner's test is tried once: its answer is the receiver's.
		expect(last_delivery).toEqual({ at: expect.any(String), delivered: false, status: null, error: answer.error, attempts: 1 });
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
				short_id: shortIdOf(owner.projectName, 1),
				title: `TypeError: ${hash("a")} is undefined`,
				culprit: "checkout.js",
				level: "error",
				count: 1,
				first_seen: expect.any(String),
				last_seen: expect.any(String),
				url,
			},
			event: { event_id: "c".repeat(32), environment: "production", release: "web@1.2.0", timestamp: expect.any(String) },
			text: `New issue in ${owner.projectName}: TypeError: ${hash("a")} is undefined (checkout.js) · ${shortIdOf(owner.projectName, 1)} — <${url}>`,
			content: `New issue in ${owner.projectName}: TypeError: ${hash("a")} is undefined (checkout.js) · ${shortIdOf(owner.projectName, 1)} — ${url}`,
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

	it("sends nothing without a webhook, to the new URL once it is changed, and nothing once it is removed", async () => {
		const owner = await ownerWithLogKey();
		expect((await toObject(owner, hash("n"))).alert).toBeUndefined();
		await putHook(owner, DEAD_HOOK);
		expect(actionOf(await toObject(owner, hash("m")))).toBe("created");
		// Another URL takes the next alert (the object holds the webhook in memory, and must let it go).
		await putHook(owner, `${DEAD_HOOK}-2`);
		expect((await toObject(owner, hash("p"))).alert?.url).toBe(`${DEAD_HOOK}-2`);
		await call(hookQuery(owner), { method: "DELETE", token: owner.token });
		expect((await toObject(owner, hash("o"))).alert).toBeUndefined();
	});

	it("alerts once per issue and action within 30 minutes: again at 30 minutes, not a millisecond sooner", async () => {
		const owner = await ownerWithHook();
		const regress = async () => {
			expect((await setIssueStatus(owner.token, owner.projectName, hash("b"), "resolved")).status).toBe(200);
			return actionOf(await toObject(owner, hash("b")));
		};
		expect(actionOf(await toObject(owner, hash("b")))).toBe("created");
		expect(await regress()).toBe("regressed");
		expect(await regress()).toBeNull();
		// The object's clock held still (it runs in this isolate), so the bound is met to the millisecond.
		vi.useFakeTimers({ toFake: ["Date"] });
		try {
			const now = Date.now();
			await inObject(owner, `UPDATE alerts_sent SET at = ? WHERE action = 'regressed'`, now - ALERT_LIMITS.perIssueMs + 1);
			expect(await regress()).toBeNull();
			await inObject(owner, `UPDATE alerts_sent SET at = ? WHERE action = 'regressed'`, now - ALERT_LIMITS.perIssueMs);
			expect(await regress()).toBe("regressed");
			expect(await regress()).toBeNull();
		} finally {
			vi.useRealTimers();
		}
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
		// One sent an hour ago to the millisecond is out of the window (the object's clock held still): room for one more.
		vi.useFakeTimers({ toFake: ["Date"] });
		try {
			await inObject(owner, `UPDATE alerts_sent SET at = ? WHERE hash = 'seeded0'`, Date.now() - 3_600_000 + 1);
			expect((await toObject(owner, hash("h63"))).alert).toBeUndefined();
			await inObject(owner, `UPDATE alerts_sent SET at = ? WHERE hash = 'seeded0'`, Date.now() - 3_600_000);
			expect(actionOf(await toObject(owner, hash("h64")))).toBe("created");
			expect((await toObject(owner, hash("h65"))).alert).toBeUndefined();
		} finally {
			vi.useRealTimers();
		}
		expect((await readHook(owner))?.suppressed).toBe(4);
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
		// Nothing listening is no answer, which may pass later: tried three times.
		expect(last).toEqual({ at: expect.any(String), delivered: false, status: null, error: expect.any(String), attempts: 3 });
		expect(last?.error).not.toContain("secret-token");
	});
});
