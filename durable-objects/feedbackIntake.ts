/**
 * A feedback submission's way into its key's ProjectCollector once the key has let it in: the
 * address's and the key's windows, the submission read against the key's forms, the outbox (its
 * images in R2 first), and the alert new feedback raises.
 */
import { readSubmission } from "../domain/feedback/submission";
import { FEEDBACK_RATE } from "../domain/limits";
import type { FeedbackOutbox } from "./feedbackOutbox";
import type { IntakeCommon } from "./intakeParts";
import type { KnownKey } from "./knownKey";
import { type FeedbackCommand, type FeedbackOutcome, refused } from "./projectCommands";

/** What of its object the feedback intake works with. */
export interface FeedbackIntakeParts extends IntakeCommon {
	feedback: FeedbackOutbox;
}

export class FeedbackIntake {
	readonly #parts: FeedbackIntakeParts;

	constructor(parts: FeedbackIntakeParts) {
		this.#parts = parts;
	}

	/**
	 * Order of answers after the key's: the windows (429), the body the Worker could not read
	 * (413, 400), the submission against the key's forms (400), the project's image storage (413).
	 * Unlike a log event, a submission past the windows keeps its hits whatever it is refused for.
	 */
	async accept(c: FeedbackCommand, key: KnownKey["key"], now: number): Promise<FeedbackOutcome> {
		const { windows: held, feedback, alerts } = this.#parts;
		const windows = [
			{ ...FEEDBACK_RATE.perIp, name: `feedback-ip:${c.ip}` },
			{ name: "feedback", limit: key.rateLimitPerMinute, windowSeconds: FEEDBACK_RATE.perKeyWindowSeconds },
		];
		const decision = held.take(now, windows);
		if (!decision.allowed) return refused(429, "Too many feedback submissions", { retryAfterSeconds: decision.retryAfterSeconds });
		await this.#parts.tookHits(now, windows);

		if ("problem" in c) return { status: "refused", refusal: c.problem };
		const submission = readSubmission(c.body, key, c.files);
		if (!submission.ok) return refused(400, submission.error, { body: { fields: submission.fields } });

		const outcome = await feedback.accept(key, submission);
		if (outcome.status !== "accepted") return outcome;
		// Decided before anything else is awaited, so what the alert notes of its bounds is committed with the record.
		let alert = null;
		try {
			alert = alerts.feedbackDue(outcome.stored, key.projectName);
		} catch (err) {
			// The feedback is stored: an alert that cannot be decided is not sent, and fails nothing.
			console.error("a feedback alert could not be decided:", err);
		}
		await this.#parts.flushSoon();
		return { status: "accepted", id: outcome.stored.id, ...(alert && { alert }) };
	}
}
