// An alert's one line for chat apps: cut on whole characters, escaped for Slack, one line.
import { describe, expect, it } from "vitest";
import { feedbackAlertPayload, issueAlertPayload } from "../domain/logs/alertPayload";

const issue = (title: string, shortId: number | null = null) => ({ groupHash: "a".repeat(32), title, culprit: null, level: "error", count: 1, firstSeen: 0, lastSeen: 0, shortId });
const event = { eventId: null, environment: null, release: null, timestamp: null };

describe("an alert's line", () => {
	it("keeps a title of 150 characters and cuts one of 151 to 149 and an ellipsis, never halving an emoji", () => {
		const line = (title: string) => issueAlertPayload("created", "shop", "https://svc.example", issue(title), event).content;
		expect(line("t".repeat(150))).toBe(`New issue in shop: ${"t".repeat(150)} — https://svc.example/issues/shop/${"a".repeat(32)}`);
		expect(line("t".repeat(151))).toContain(`shop: ${"t".repeat(149)}… —`);
		// The emoji that would be halved at the cut is left out whole.
		const cut = line(`${"t".repeat(148)}\u{1f600}${"t".repeat(10)}`);
		expect(cut).toContain(`shop: ${"t".repeat(148)}… —`);
		expect(cut.isWellFormed()).toBe(true);
	});

	it("ends the issue's line with its short id, which the payload carries too", () => {
		const payload = issueAlertPayload("regressed", "my shop", "https://svc.example", issue("TypeError: x", 33), event);
		expect(payload.content).toBe(`Regression in my shop: TypeError: x · MY-SHOP-11 — https://svc.example/issues/my%20shop/${"a".repeat(32)}`);
		expect(payload.issue.short_id).toBe("MY-SHOP-11");
	});

	it("escapes Slack's markup in text, not in content, and puts a feedback title on one line", () => {
		const payload = feedbackAlertPayload("shop", "https://svc.example", { id: "f-1", type: "feature_request", data: { title: "Dark mode <please>\n& thanks" }, createdAt: 0 });
		expect(payload.text).toBe("New feature request in shop: Dark mode &lt;please&gt; &amp; thanks — <https://svc.example/feedback/shop/f-1>");
		expect(payload.content).toBe("New feature request in shop: Dark mode <please> & thanks — https://svc.example/feedback/shop/f-1");
		expect(payload.feedback.title).toBe("Dark mode <please>\n& thanks");
	});
});
