/** What became of a key's log events, per day (docs/api.md#log-outcomes). Dependency-free: the console bundles it. */

/**
 * As Sentry's project stats count them: stored; dropped by an inbound filter; refused by a rate
 * window (the key's or its address's, 429); refused as unreadable (400, 413); refused because it
 * would open an issue past the project's cap (403); dropped by the Sentry SDK itself (sampled
 * out, backing off after a 429, its queue full), as its client reports say. An SDK's retry of a
 * stored event is none of them, and neither is an event refused for its key (401, 402, App Logs off).
 */
export const LOG_OUTCOMES = ["accepted", "filtered", "rate_limited", "invalid", "over_issue_cap", "client_discard"] as const;
export type LogOutcomeName = (typeof LOG_OUTCOMES)[number];
export type OutcomeCounts = Record<LogOutcomeName, number>;

export const noOutcomes = () => Object.fromEntries(LOG_OUTCOMES.map((outcome) => [outcome, 0])) as OutcomeCounts;

/** GET /api/log-outcomes: every day of the range (UTC, `YYYY-MM-DD`, oldest first, today last) and the range's totals. */
export interface LogOutcomesView {
	days: Array<{ day: string } & OutcomeCounts>;
	totals: OutcomeCounts;
}
