/**
 * What a Sentry SDK says it dropped before sending (a `client_report` envelope item): its
 * `discarded_events`, `[{reason, category, quantity}]`, of which the error and message events
 * (categories `error` and `default`) count, whatever the reason (sampled out, backing off after a
 * 429, a full queue, `beforeSend`). A report is the SDK's word and is never refused: what is not
 * such a list, or not a positive whole number, counts nothing, and one report counts at most
 * MAX_REPORTED_EVENTS, so a made-up one cannot swamp a project's figures.
 */
import { isObject, type Json, member } from "../logs/jsonFields";

const EVENT_CATEGORIES: ReadonlySet<unknown> = new Set(["error", "default"]);
export const MAX_REPORTED_EVENTS = 100_000;

export function discardedEvents(report: Json): number {
	const discarded = member(report, "discarded_events");
	if (!Array.isArray(discarded)) return 0;
	let events = 0;
	for (const entry of discarded) {
		const quantity = isObject(entry) && EVENT_CATEGORIES.has(member(entry, "category")) ? member(entry, "quantity") : 0;
		if (typeof quantity === "number" && Number.isSafeInteger(quantity) && quantity > 0) events += quantity;
	}
	return Math.min(events, MAX_REPORTED_EVENTS);
}
