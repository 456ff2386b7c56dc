// Alerts of new feedback: when the key's object finds one due (feedback alerts on, the hourly bound
// shared with issue alerts), its payload, and its delivery through the Worker from both entry
// points (the submit endpoint and Sentry's user feedback).
import { describe, expect, it } from "vitest";
import { ALERT_LIMITS } from "../domain/limits";
import { call, ORIGIN, submitFeedback } from "./helpers";
import { ownerWithLogKey } from "./logHelpers";
import { envelope, type SentryProject, sendEnvelope, sentryProject } from "./sentryHelpers";
import {
	accepted,
	actionOf,
	alertsSent,
	DEAD_HOOK,
	feedbackToObject,
	hash,
	inObject,
	type Json,
	lastDelivery,
	ownerWithHook,
	putHook,
	readHook,
	toObject,
} from "./alertHelpers";

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

describe("a feedback alert through the Worker", () => {
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
			expect(await lastDelivery(project)).toEqual({ at: expect.any(String), delivered: false, status: null, error: expect.any(String), attempts: 3 });
		}
	});
});
