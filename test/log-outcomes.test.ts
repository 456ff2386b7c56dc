// What became of a key's log events, per UTC day, as Sentry's project stats count them: accepted,
// filtered by an inbound filter, rate limited, invalid, over the issue cap. Counted by the key's
// ProjectCollector as it answers each event, read by the owner at GET /api/log-outcomes.
import { runInDurableObject } from "cloudflare:test";
import { describe, it } from "vitest";
import { LOG_LIMITS, LOG_RATE, OWNER_LIMITS, SENTRY_LIMITS } from "../domain/limits";
import { MAX_REPORTED_EVENTS } from "../domain/sentry/clientReport";
import { call, configureKey, signUp } from "./helpers";
import { ingest, ingestOk, issueGrouper, issuesOf, ownerWithLogKey } from "./logHelpers";
import { envelope, eventEnvelope, nodeEvent, post, sendEnvelope, sentryProject } from "./sentryHelpers";

type Json = Record<string, any>;
const DAY_MS = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);

function readOutcomes(token: string, query: Record<string, string>) {
	return call(`/api/log-outcomes?${new URLSearchParams(query)}`, { token });
}

async function outcomesOf(project: { token: string; projectName: string }, days?: number): Promise<Json> {
	const res = await readOutcomes(project.token, { project_name: project.projectName, ...(days ? { days: String(days) } : {}) });
	if (res.status !== 200) throw new Error(`log outcomes: ${res.status} ${await res.text()}`);
	return res.json();
}

const crash = (value: string) => ({ level: "error", exception: { type: "TypeError", value, stacktrace: null } });
const extensionCrash = {
	level: "error",
	exception: { type: "TypeError", value: "x is undefined", stacktrace: { frames: [{ abs_path: "chrome-extension://abc/content.js", function: "inject", lineno: 1 }] } },
};
const none = { accepted: 0, filtered: 0, rate_limited: 0, invalid: 0, over_issue_cap: 0, client_discard: 0 };

describe("GET /api/log-outcomes", () => {
	it("counts each event the key's checks let through by what became of it, and nothing refused for the key", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await configureKey(owner.token, owner.projectName, { logs_rate_limit_per_minute: 3 });
		const repeated = { ...crash("a"), event_id: "0123456789abcdef0123456789abcdef" };
		await ingestOk(owner.rawKey, repeated);
		await ingestOk(owner.rawKey, repeated); // an SDK's retry: answered, counted once
		await ingestOk(owner.rawKey, crash("b"));
		await ingestOk(owner.rawKey, extensionCrash); // dropped by the filter, on for a new key
		expect((await ingest(owner.rawKey, { level: "loud" })).status).toBe(400);
		expect((await ingest(owner.rawKey, null, { raw: "x".repeat(LOG_LIMITS.bodyChars + 1) })).status).toBe(413);
		await ingestOk(owner.rawKey, crash("c"));
		expect((await ingest(owner.rawKey, crash("d"))).status).toBe(429); // the key's window of 3
		expect((await ingest(`${owner.rawKey}x`, crash("e"))).status).toBe(401);

		const outcomes = await outcomesOf(owner);
		expect(outcomes.days).toHaveLength(30);
		expect(outcomes.days.at(-1)).toEqual({ day: today(), accepted: 3, filtered: 1, rate_limited: 1, invalid: 2, over_issue_cap: 0, client_discard: 0 });
		expect(outcomes.days[0].day).toBe(new Date(Date.now() - 29 * DAY_MS).toISOString().slice(0, 10));
		expect(outcomes.days.slice(0, -1).every((day: Json) => Object.values({ ...day, day: 0 }).every((n) => n === 0))).toBe(true);
		expect(outcomes.totals).toEqual({ accepted: 3, filtered: 1, rate_limited: 1, invalid: 2, over_issue_cap: 0, client_discard: 0 });

		// With the filter off the extension's error is an event like any other; App Logs off count nothing.
		await configureKey(owner.token, owner.projectName, { filter_browser_extensions: false, logs_rate_limit_per_minute: 100 });
		await ingestOk(owner.rawKey, extensionCrash);
		await configureKey(owner.token, owner.projectName, { logs_enabled: false });
		expect((await ingest(owner.rawKey, crash("f"))).status).toBe(403);
		expect((await outcomesOf(owner)).totals).toEqual({ accepted: 4, filtered: 1, rate_limited: 1, invalid: 2, over_issue_cap: 0, client_discard: 0 });
	});

	it("an address's window counts as rate limited", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await configureKey(owner.token, owner.projectName, { logs_rate_limit_per_minute: 6_000 });
		for (let i = 0; i < LOG_RATE.perIp.limit; i++) await ingestOk(owner.rawKey, crash(`ip ${i % 3}`), "10.9.9.9");
		expect((await ingest(owner.rawKey, crash("one more"), { ip: "10.9.9.9" })).status).toBe(429);
		expect((await outcomesOf(owner)).totals).toEqual({ ...none, accepted: LOG_RATE.perIp.limit, rate_limited: 1 });
	});

	it("through the Sentry endpoints: a filtered event, an unreadable envelope, an envelope without an event", async ({ expect }) => {
		const project = await sentryProject();
		expect((await sendEnvelope(project, eventEnvelope(nodeEvent()))).status).toBe(200);
		const fromExtension = nodeEvent({ exception: { values: [{ type: "Error", value: "Extension context invalidated." }] } });
		expect((await sendEnvelope(project, eventEnvelope(fromExtension))).status).toBe(200);
		expect((await sendEnvelope(project, "{not an envelope")).status).toBe(400);
		const sessionOnly = envelope({ sent_at: new Date().toISOString() }, [{ type: "session", payload: JSON.stringify({ sid: crypto.randomUUID(), status: "ok" }) }]);
		expect((await sendEnvelope(project, sessionOnly)).status).toBe(200);
		expect((await outcomesOf(project)).totals).toEqual({ ...none, accepted: 1, filtered: 1, invalid: 1 });
	});

	it(`the events a Sentry SDK's client reports say it dropped count as client_discard: errors and messages only, at most ${MAX_REPORTED_EVENTS} a report`, async ({ expect }) => {
		const project = await sentryProject();
		const clientReport = (report: unknown) =>
			envelope({ sent_at: new Date().toISOString() }, [{ type: "client_report", payload: typeof report === "string" ? report : JSON.stringify(report) }]);
		const discarded = (quantity: unknown, category = "error") => ({ timestamp: Date.now() / 1000, discarded_events: [{ reason: "ratelimit_backoff", category, quantity }] });
		const send = async (body: Uint8Array, key = project.rawKey) => (await post(`/api/${project.dsnId}/envelope/?sentry_key=${key}`, body)).status;
		expect(
			await send(
				clientReport({
					discarded_events: [
						{ reason: "ratelimit_backoff", category: "error", quantity: 3 },
						{ reason: "sample_rate", category: "transaction", quantity: 50 },
						{ reason: "queue_overflow", category: "default", quantity: 2 },
					],
				}),
			),
		).toBe(200);
		// Beside an event, both count; reports that are no such list, or hold no whole number, count nothing and refuse nothing.
		expect(await send(envelope({}, [{ type: "event", payload: JSON.stringify(nodeEvent()) }, { type: "client_report", payload: JSON.stringify(discarded(1)) }]))).toBe(200);
		for (const report of ["{not json", { discarded_events: "many" }, discarded(-4), discarded(1.5), discarded("7"), discarded(9, "span")]) expect(await send(clientReport(report))).toBe(200);
		expect((await outcomesOf(project)).totals).toEqual({ ...none, accepted: 1, client_discard: 6 });
		expect(await send(clientReport(discarded(MAX_REPORTED_EVENTS)))).toBe(200);
		expect(await send(clientReport(discarded(MAX_REPORTED_EVENTS + 1)))).toBe(200);
		expect(await send(clientReport(discarded(5)), "svc_nothing")).toBe(401);
		// A report over an event's size is read past, with or without its length: the event beside it is stored.
		const oversized = JSON.stringify({ ...discarded(7), padding: "x".repeat(SENTRY_LIMITS.eventBytes) });
		for (const withLength of [true, false]) {
			expect(await send(envelope({}, [{ type: "client_report", payload: oversized, withLength }, { type: "event", payload: JSON.stringify(nodeEvent()) }]))).toBe(200);
		}
		expect((await outcomesOf(project)).totals).toEqual({ ...none, accepted: 3, client_discard: 6 + 2 * MAX_REPORTED_EVENTS });
	});

	it("a new issue past the project's cap counts as over the cap; events of its issues are still accepted", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const first = await ingestOk(owner.rawKey, crash("the first issue"));
		// The project's other issues, straight into its object (moved to D1 already, as far as it knows).
		await runInDurableObject(issueGrouper(owner.keyId), (_, state) => {
			state.storage.sql.exec(
				`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
				INSERT INTO groups (hash, title, level, count, first_seen, last_seen, flushed_version) SELECT printf('%032x', i), 'seeded', 'error', 1, 0, 0, 1 FROM n`,
				LOG_LIMITS.issuesPerProject - 2,
			);
		});
		expect(await ingestOk(owner.rawKey, crash("the last issue there is room for"))).toMatchObject({ is_new: true });
		const refused = await ingest(owner.rawKey, crash("one issue too many"));
		expect(refused.status).toBe(403);
		expect(((await refused.json()) as Json).error).toContain(`${LOG_LIMITS.issuesPerProject} issues`);
		expect(await ingestOk(owner.rawKey, crash("the first issue"))).toEqual({ ok: true, group_hash: first.group_hash, is_new: false });
		expect((await outcomesOf(owner)).totals).toEqual({ ...none, accepted: 3, over_issue_cap: 1 });
		expect((await issuesOf(owner)).length).toBe(2);
	});

	it("keeps 90 days: a day's counts stay on its day, and older days are deleted", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await ingestOk(owner.rawKey, crash("today"));
		const day = Math.floor(Date.now() / DAY_MS);
		await runInDurableObject(issueGrouper(owner.keyId), (_, state) => {
			const insert = (d: number, outcome: string, count: number) => state.storage.sql.exec(`INSERT INTO log_outcomes (day, outcome, count) VALUES (?, ?, ?)`, d, outcome, count);
			insert(day - 1, "accepted", 7);
			insert(day - OWNER_LIMITS.logOutcomeDays + 1, "rate_limited", 5);
			insert(day - OWNER_LIMITS.logOutcomeDays, "accepted", 11);
		});
		await restartObject(owner.keyId);

		const all = await outcomesOf(owner, OWNER_LIMITS.logOutcomeDays);
		expect(all.days).toHaveLength(OWNER_LIMITS.logOutcomeDays);
		expect(all.days[0]).toMatchObject({ rate_limited: 5 });
		expect(all.days.at(-2)).toMatchObject({ accepted: 7 });
		expect(all.days.at(-1)).toMatchObject({ day: today(), accepted: 1 });
		expect(all.totals).toEqual({ ...none, accepted: 8, rate_limited: 5 });
		expect((await outcomesOf(owner, 1)).totals).toEqual({ ...none, accepted: 1 });
		await runInDurableObject(issueGrouper(owner.keyId), (_, state) => {
			expect(state.storage.sql.exec(`SELECT count(*) AS n FROM log_outcomes WHERE day < ?`, day - OWNER_LIMITS.logOutcomeDays + 1).one().n).toBe(0);
		});
	});

	it("answers 400 for days out of 1–90, 404 for another owner's project, 401 without a session", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		for (const days of ["0", "91", "1.5", "x"]) {
			const res = await readOutcomes(owner.token, { project_name: owner.projectName, days });
			expect(res.status).toBe(400);
			expect(((await res.json()) as Json).error).toContain("days: must be a whole number from 1 to 90");
		}
		expect((await outcomesOf(owner, 90)).days).toHaveLength(90);
		expect((await outcomesOf(owner, 1)).days).toEqual([{ day: today(), ...none }]);
		const stranger = await signUp();
		expect((await readOutcomes(stranger.token, { project_name: owner.projectName })).status).toBe(404);
		expect((await readOutcomes("", { project_name: owner.projectName })).status).toBe(401);
		expect((await readOutcomes(owner.token, {})).status).toBe(400);
	});
});

/** The object restarts, as after a deploy: it reads what it counted back from its SQLite. */
async function restartObject(keyId: string) {
	await runInDurableObject(issueGrouper(keyId), (_, state) => state.abort("restart")).catch(() => {});
}
