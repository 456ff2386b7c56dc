// An issue ignored for a while, or until it occurs so many more times, as Sentry's ignore options:
// the key's ProjectCollector holds the condition, and the event that ends it reopens the issue.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { OWNER_LIMITS } from "../domain/limits";
import { call } from "./helpers";
import { ingestOk, issueGrouper, issueOf, issuesOf, ownerWithLogKey, raiseLogsLimit } from "./logHelpers";

type Json = Record<string, any>;

const patch = (owner: { token: string; projectName: string }, groupHash: string, body: Json) =>
	call(`/api/issues/${groupHash}`, { method: "PATCH", token: owner.token, json: { project_name: owner.projectName, ...body } });

/** The object starts again from its SQLite, as after a deploy: nothing it held in memory is left. */
async function restart(keyId: string, change: string) {
	await runInDurableObject(issueGrouper(keyId), (_, state) => void state.storage.sql.exec(change));
	await runInDurableObject(issueGrouper(keyId), (_, state) => state.abort("restart")).catch(() => {});
}

/** The event that ends the condition: counted, the issue open again and `condition` gone from it. */
async function reopensAt(owner: Awaited<ReturnType<typeof ownerWithLogKey>>, groupHash: string, count: number, condition: string) {
	await ingestOk(owner.rawKey, { message: "m" });
	const reopened = await issueOf(owner, groupHash);
	expect(reopened).toMatchObject({ status: "open", count });
	expect(reopened).not.toHaveProperty(condition);
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A test that waits for the next hour (withinOneHour) may take that minute beyond its own run. */
const HOUR_WAIT_TIMEOUT_MS = 120_000;

/** Waits out the end of the hour when it is less than a minute away: the test's events all fall in one hour. */
async function withinOneHour() {
	const left = HOUR_MS - (Date.now() % HOUR_MS);
	if (left < 60_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

describe("ignoring an issue for a while or until it occurs again", () => {
	it("ignore_until_events: N more events: the Nth reopens it, the one before does not", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m" });
		await ingestOk(owner.rawKey, { message: "m" });

		const res = await patch(owner, group_hash, { status: "ignored", ignore_until_events: 3 });
		expect(res.status).toBe(200);
		expect(await res.json<Json>()).toMatchObject({ status: "ignored", count: 2, ignored_until_count: 5 });
		expect((await issuesOf(owner, { status: "ignored" }))[0]).toMatchObject({ group_hash, ignored_until_count: 5 });

		await ingestOk(owner.rawKey, { message: "m" });
		await ingestOk(owner.rawKey, { message: "m" });
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "ignored", count: 4, ignored_until_count: 5 });
		await reopensAt(owner, group_hash, 5, "ignored_until_count");
	});

	it("ignore_until_users: N more users: the event of the Nth new one reopens it; people it affected before do not count", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const send = (user?: string) => ingestOk(owner.rawKey, { message: "m", ...(user && { user: { id: user } }) });
		const { group_hash } = await send("u1");
		const res = await patch(owner, group_hash, { status: "ignored", ignore_until_users: 2 });
		expect(await res.json<Json>()).toMatchObject({ status: "ignored", users: 1, ignored_until_users: 3 });

		await send("u1");
		await send();
		await send("u2");
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "ignored", count: 4, users: 2, ignored_until_users: 3 });
		await ingestOk(owner.rawKey, { message: "m", user: { id: "u3" } });
		const reopened = await issueOf(owner, group_hash);
		expect(reopened).toMatchObject({ status: "open", count: 5, users: 3 });
		expect(reopened).not.toHaveProperty("ignored_until_users");
	});

	it("ignore_until_escalating: a young issue's limit is ten times its busiest hour; the event past it in one hour reopens it", { timeout: HOUR_WAIT_TIMEOUT_MS }, async ({ expect }) => {
		await withinOneHour();
		const owner = await ownerWithLogKey();
		await raiseLogsLimit(owner);
		const send = () => ingestOk(owner.rawKey, { message: "m" });
		const { group_hash } = await send();
		await send();
		await issueOf(owner, group_hash); // these two in D1
		await send(); // this one perhaps still in the key's object: counted either way

		const res = await patch(owner, group_hash, { status: "ignored", ignore_until_escalating: true });
		expect(res.status).toBe(200);
		expect(await res.json<Json>()).toMatchObject({ status: "ignored", count: 3, ignored_until_escalating: { events_per_hour: 30 } });
		expect((await issuesOf(owner, { status: "ignored" }))[0]).toMatchObject({ group_hash, ignored_until_escalating: { events_per_hour: 30 } });

		for (let i = 0; i < 27; i++) await send(); // the hour's 30th
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "ignored", count: 30 });
		expect(await issuesOf(owner, { q: "is:escalating" })).toEqual([]);
		const before = Date.now();
		await reopensAt(owner, group_hash, 31, "ignored_until_escalating");

		// Escalating (Sentry's substatus) for a week, or until the owner changes its status.
		const escalated = await issueOf(owner, group_hash);
		expect(Date.parse(escalated.escalated_at)).toBeGreaterThanOrEqual(before);
		expect((await issuesOf(owner, { q: "is:escalating" })).map((i) => i.group_hash)).toEqual([group_hash]);
		expect(await issuesOf(owner, { q: "is:regressed" })).toEqual([]);
		await restart(owner.keyId, `UPDATE groups SET escalated_at = ${Date.now() - 7 * DAY_MS + 60_000}, version = version + 1`);
		expect(await issuesOf(owner, { q: "is:escalating" })).toHaveLength(1);
		await restart(owner.keyId, `UPDATE groups SET escalated_at = ${Date.now() - 7 * DAY_MS - 60_000}, version = version + 1`);
		expect(await issuesOf(owner, { q: "is:escalating" })).toEqual([]);
		await restart(owner.keyId, `UPDATE groups SET escalated_at = ${Date.now()}, version = version + 1`);
		await patch(owner, group_hash, { status: "open" });
		expect(await issueOf(owner, group_hash)).not.toHaveProperty("escalated_at");
		expect(await issuesOf(owner, { q: "is:escalating" })).toEqual([]);
	});

	it("is:regressed lists the open issues that came back after they were resolved; neither substatus searches events", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const regressed = await ingestOk(owner.rawKey, { message: "back", release: "1.0.0" });
		const resolved = await ingestOk(owner.rawKey, { message: "fixed", release: "1.0.0" });
		await ingestOk(owner.rawKey, { message: "open" });
		for (const { group_hash } of [regressed, resolved]) await patch(owner, group_hash, { status: "resolved" });
		await ingestOk(owner.rawKey, { message: "back", release: "1.1.0" });
		expect((await issuesOf(owner, { q: "is:regressed" })).map((i) => i.group_hash)).toEqual([regressed.group_hash]);
		expect(await issuesOf(owner, { q: "is:regressed is:resolved" })).toEqual([]);
		for (const q of ["is:regressed", "is:escalating"]) {
			const res = await call(`/api/issues/${regressed.group_hash}?project_name=${owner.projectName}&q=${q}`, { token: owner.token });
			expect(res.status, q).toBe(400);
		}
	});

	it("ignore_until_escalating: the events of one hour count; a later hour starts again, an earlier one counts in none", { timeout: HOUR_WAIT_TIMEOUT_MS }, async ({ expect }) => {
		await withinOneHour();
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m" });
		await patch(owner, group_hash, { status: "ignored", ignore_until_escalating: true });
		const hour = Math.floor(Date.now() / HOUR_MS);

		// The hour before held its 10: this one starts at 1.
		await restart(owner.keyId, `UPDATE groups SET escalation_hour = ${hour - 1}, escalation_events = 10`);
		await ingestOk(owner.rawKey, { message: "m" });
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "ignored", count: 2 });

		// This hour holds 10 already: an event dated two hours ago (sent late) does not count in it.
		await restart(owner.keyId, `UPDATE groups SET escalation_events = 10`);
		await ingestOk(owner.rawKey, { message: "m", timestamp: new Date(Date.now() - 2 * HOUR_MS).toISOString() });
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "ignored", count: 3 });
		await reopensAt(owner, group_hash, 4, "ignored_until_escalating");
	});

	it("ignore_until_escalating: a week-old issue's limit is drawn from its week of events (a burst of 30: bursty, 60)", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await raiseLogsLimit(owner);
		const at = (ms: number) => ingestOk(owner.rawKey, { message: "m", timestamp: new Date(ms).toISOString() });
		const { group_hash } = await at(Date.now() - 8 * DAY_MS);
		const burst = Math.floor((Date.now() - 3 * DAY_MS) / HOUR_MS) * HOUR_MS;
		for (let i = 0; i < 30; i++) await at(burst + i * 1_000);

		const res = await patch(owner, group_hash, { status: "ignored", ignore_until_escalating: true });
		expect(await res.json<Json>()).toMatchObject({ count: 31, ignored_until_escalating: { events_per_hour: 60 } });
	});

	it("ignore_until_escalating: the limit is drawn again from the latest week once it is a week old, at the object's alarm", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await raiseLogsLimit(owner);
		const at = (ms: number) => ingestOk(owner.rawKey, { message: "m", timestamp: new Date(ms).toISOString() });
		const { group_hash } = await at(Date.now() - 6 * DAY_MS);
		const burst = Math.floor((Date.now() - 3 * DAY_MS) / HOUR_MS) * HOUR_MS;
		for (let i = 0; i < 30; i++) await at(burst + i * 1_000);
		// Six days old: ten times its busiest hour.
		const ignored = await patch(owner, group_hash, { status: "ignored", ignore_until_escalating: true });
		expect(await ignored.json<Json>()).toMatchObject({ ignored_until_escalating: { events_per_hour: 300 } });

		// A week on (the issue first seen two days earlier, as it would be by then), the week-old rule draws it: bursty, 60.
		const drawnAgo = async (ms: number) => {
			await restart(owner.keyId, `UPDATE groups SET escalation_drawn_at = ${Date.now() - ms}, first_seen = ${Date.now() - 8 * DAY_MS}`);
			expect(await runDurableObjectAlarm(issueGrouper(owner.keyId))).toBe(true);
			return (await issueOf(owner, group_hash)).ignored_until_escalating.events_per_hour;
		};
		expect(await drawnAgo(7 * DAY_MS - 60_000)).toBe(300);
		expect(await drawnAgo(7 * DAY_MS + 60_000)).toBe(60);
		// Drawn again, it waits another week.
		const drawnAt = await runInDurableObject(issueGrouper(owner.keyId), (_, state) =>
			state.storage.sql.exec<{ escalation_drawn_at: number }>(`SELECT escalation_drawn_at FROM groups`).one().escalation_drawn_at,
		);
		expect(drawnAt).toBeGreaterThan(Date.now() - 60_000);
		expect(await drawnAgo(7 * DAY_MS - 60_000)).toBe(60);
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "ignored", count: 31 });
	});

	it("ignore_until_escalating: a limit drawn before its time was kept is drawn again at the next alarm; an issue no longer ignored is left alone", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m" });
		const other = await ingestOk(owner.rawKey, { message: "other" });
		await patch(owner, group_hash, { status: "ignored", ignore_until_escalating: true });
		await patch(owner, other.group_hash, { status: "ignored", ignore_until_escalating: true });
		await patch(owner, other.group_hash, { status: "open" });
		await restart(owner.keyId, `UPDATE groups SET escalation_drawn_at = NULL, ignored_until_escalating = 99, version = version + 1 WHERE hash = '${group_hash}'`);
		expect(await issueOf(owner, group_hash)).toMatchObject({ ignored_until_escalating: { events_per_hour: 99 } });
		expect(await runDurableObjectAlarm(issueGrouper(owner.keyId))).toBe(true);
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "ignored", ignored_until_escalating: { events_per_hour: 10 } });
		expect(await issueOf(owner, other.group_hash)).toMatchObject({ status: "open" });
		expect(await issueOf(owner, other.group_hash)).not.toHaveProperty("ignored_until_escalating");
	});

	it(`ignore_until_escalating: an alarm draws ${OWNER_LIMITS.issueMutationHashes} due limits again; one more waits for the next alarm`, async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await raiseLogsLimit(owner);
		const hashes: string[] = [];
		// Names of letters alone: the grouping reads digits in a message as the same issue.
		const name = (i: number) => String.fromCharCode(97 + Math.floor(i / 26), 97 + (i % 26));
		for (let i = 0; i <= OWNER_LIMITS.issueMutationHashes; i++) hashes.push((await ingestOk(owner.rawKey, { exception: { type: `Error${name(i)}`, value: "v" } })).group_hash);
		expect(new Set(hashes).size).toBe(OWNER_LIMITS.issueMutationHashes + 1);
		for (const batch of [hashes.slice(0, OWNER_LIMITS.issueMutationHashes), hashes.slice(OWNER_LIMITS.issueMutationHashes)]) {
			const res = await call("/api/issues", {
				method: "PATCH",
				token: owner.token,
				json: { project_name: owner.projectName, group_hashes: batch, status: "ignored", ignore_until_escalating: true },
			});
			expect(res.status).toBe(200);
		}
		await restart(owner.keyId, `UPDATE groups SET escalation_drawn_at = NULL, ignored_until_escalating = 99`);
		const undrawn = () =>
			runInDurableObject(issueGrouper(owner.keyId), (_, state) =>
				state.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM groups WHERE ignored_until_escalating = 99`).one().n,
			);
		expect(await undrawn()).toBe(OWNER_LIMITS.issueMutationHashes + 1);
		expect(await runDurableObjectAlarm(issueGrouper(owner.keyId))).toBe(true);
		expect(await undrawn()).toBe(1);
		expect(await runDurableObjectAlarm(issueGrouper(owner.keyId))).toBe(true);
		expect(await undrawn()).toBe(0);
	});

	it("ignore_until_escalating: while D1 cannot answer, the limit drawn is kept and the alarm comes again to draw it", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m" });
		await patch(owner, group_hash, { status: "ignored", ignore_until_escalating: true });
		await restart(owner.keyId, `UPDATE groups SET escalation_drawn_at = NULL, ignored_until_escalating = 99`);
		const limitHere = () =>
			runInDurableObject(issueGrouper(owner.keyId), (_, state) => state.storage.sql.exec<{ n: number }>(`SELECT ignored_until_escalating AS n FROM groups`).one().n);

		await env.DB.prepare("ALTER TABLE log_events RENAME TO log_events_away").run();
		const before = Date.now();
		try {
			expect(await runDurableObjectAlarm(issueGrouper(owner.keyId))).toBe(true);
			expect(await limitHere()).toBe(99);
			const alarm = await runInDurableObject(issueGrouper(owner.keyId), (_, state) => state.storage.getAlarm());
			expect(alarm).toBeGreaterThanOrEqual(before);
			expect(alarm).toBeLessThanOrEqual(Date.now() + 10_000);
		} finally {
			await env.DB.prepare("ALTER TABLE log_events_away RENAME TO log_events").run();
		}
		// Still due (not marked drawn): the next alarm after the retry's time, here after a restart, draws it.
		await restart(owner.keyId, "SELECT 1");
		expect(await runDurableObjectAlarm(issueGrouper(owner.keyId))).toBe(true);
		expect(await limitHere()).toBe(10);
	});

	it("ignore_until_escalating: the week is the 168 hours up to the current one; a burst an hour before it counts for nothing", { timeout: HOUR_WAIT_TIMEOUT_MS }, async ({ expect }) => {
		await withinOneHour();
		const limitWithBurstAt = async (hoursAgo: number) => {
			const owner = await ownerWithLogKey();
			await raiseLogsLimit(owner);
			const at = (ms: number) => ingestOk(owner.rawKey, { message: "m", timestamp: new Date(ms).toISOString() });
			const { group_hash } = await at(Date.now() - 9 * DAY_MS);
			const burst = (Math.floor(Date.now() / HOUR_MS) - hoursAgo) * HOUR_MS;
			for (let i = 0; i < 30; i++) await at(burst + i * 1_000);
			const res = await patch(owner, group_hash, { status: "ignored", ignore_until_escalating: true });
			return (await res.json<Json>()).ignored_until_escalating.events_per_hour;
		};
		expect(await limitWithBurstAt(167)).toBe(60);
		expect(await limitWithBurstAt(168)).toBe(10);
	});

	it("ignore_for_minutes: events within the time keep it ignored; the first after reopens it", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m" });
		const before = Date.now();
		const ignored = await (await patch(owner, group_hash, { status: "ignored", ignore_for_minutes: 30 })).json<Json>();
		const until = Date.parse(ignored.ignored_until);
		expect(until).toBeGreaterThanOrEqual(before + 30 * 60_000);
		expect(until).toBeLessThanOrEqual(Date.now() + 30 * 60_000);

		await ingestOk(owner.rawKey, { message: "m" });
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "ignored", count: 2, ignored_until: ignored.ignored_until });

		// The half hour passes.
		await restart(owner.keyId, `UPDATE groups SET ignored_until = ${Date.now() - 1}`);
		await reopensAt(owner, group_hash, 3, "ignored_until");
	});

	it("ignoring without a condition lasts; any other status, or ignoring again, replaces the condition", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m" });
		await patch(owner, group_hash, { status: "ignored", ignore_until_events: 1 });
		const forever = await (await patch(owner, group_hash, { status: "ignored" })).json<Json>();
		expect(forever).not.toHaveProperty("ignored_until_count");
		for (let i = 0; i < 3; i++) await ingestOk(owner.rawKey, { message: "m" });
		expect((await issueOf(owner, group_hash)).status).toBe("ignored");

		await patch(owner, group_hash, { status: "ignored", ignore_for_minutes: 5 });
		const resolved = await (await patch(owner, group_hash, { status: "resolved" })).json<Json>();
		expect(resolved).not.toHaveProperty("ignored_until");
		expect(await issuesOf(owner, { status: "resolved" })).toEqual([expect.not.objectContaining({ ignored_until: expect.anything() })]);
	});

	it("applies to every issue of a bulk change, each from its own count", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const once = await ingestOk(owner.rawKey, { message: "once" });
		const twice = await ingestOk(owner.rawKey, { message: "twice" });
		await ingestOk(owner.rawKey, { message: "twice" });
		const res = await call("/api/issues", {
			method: "PATCH",
			token: owner.token,
			json: { project_name: owner.projectName, group_hashes: [once.group_hash, twice.group_hash], status: "ignored", ignore_until_events: 10 },
		});
		expect((await res.json<Json>()).issues.map((i: Json) => i.ignored_until_count)).toEqual([11, 12]);

		const busier = await ingestOk(owner.rawKey, { message: "busier" });
		for (let i = 0; i < 2; i++) await ingestOk(owner.rawKey, { message: "busier" });
		const escalating = await call("/api/issues", {
			method: "PATCH",
			token: owner.token,
			json: { project_name: owner.projectName, group_hashes: [once.group_hash, busier.group_hash], status: "ignored", ignore_until_escalating: true },
		});
		// Three events in one hour, or in two when the hour turned between them: 30, or 20.
		const [first, second] = (await escalating.json<Json>()).issues.map((i: Json) => i.ignored_until_escalating.events_per_hour);
		expect(first).toBe(10);
		expect([20, 30]).toContain(second);
	});

	it(`takes 1 to ${OWNER_LIMITS.ignoreMinutesMax.toLocaleString("en")} minutes, 1 to ${OWNER_LIMITS.ignoreEventsMax.toLocaleString("en")} events or 1 to ${OWNER_LIMITS.ignoreUsersMax.toLocaleString("en")} users, one of them, with ignored only`, async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m" });
		const taken: Json[] = [
			{ ignore_for_minutes: OWNER_LIMITS.ignoreMinutesMax },
			{ ignore_for_minutes: 1 },
			{ ignore_until_users: OWNER_LIMITS.ignoreUsersMax },
			{ ignore_until_users: 1 },
			{ ignore_until_events: OWNER_LIMITS.ignoreEventsMax },
			{ ignore_until_events: 1 },
			{ ignore_until_escalating: true },
		];
		for (const body of taken) {
			expect((await patch(owner, group_hash, { status: "ignored", ...body })).status, JSON.stringify(body)).toBe(200);
		}
		const refused: Json[] = [
			{ status: "ignored", ignore_for_minutes: OWNER_LIMITS.ignoreMinutesMax + 1 },
			{ status: "ignored", ignore_for_minutes: 0 },
			{ status: "ignored", ignore_for_minutes: 1.5 },
			{ status: "ignored", ignore_for_minutes: "5" },
			{ status: "ignored", ignore_until_events: OWNER_LIMITS.ignoreEventsMax + 1 },
			{ status: "ignored", ignore_until_events: 0 },
			{ status: "ignored", ignore_until_events: null },
			{ status: "ignored", ignore_until_users: OWNER_LIMITS.ignoreUsersMax + 1 },
			{ status: "ignored", ignore_until_users: 0 },
			{ status: "ignored", ignore_until_escalating: false },
			{ status: "ignored", ignore_until_escalating: "yes" },
			{ status: "ignored", ignore_until_escalating: true, ignore_until_events: 5 },
			{ status: "resolved", ignore_until_escalating: true },
			{ status: "ignored", ignore_for_minutes: 5, ignore_until_events: 5 },
			{ status: "ignored", ignore_until_users: 5, ignore_until_events: 5 },
			{ status: "resolved", ignore_until_users: 5 },
			{ status: "resolved", ignore_for_minutes: 5 },
			{ status: "open", ignore_until_events: 5 },
		];
		for (const body of refused) {
			const res = await patch(owner, group_hash, body);
			expect(res.status, JSON.stringify(body)).toBe(400);
			expect((await res.json<Json>()).error).toEqual(expect.any(String));
		}
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "ignored", ignored_until_escalating: { events_per_hour: 10 } });
	});

	it("an object from before the conditions gains their columns and keeps its issues", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m" });
		await restart(
			owner.keyId,
			["ignored_until", "ignored_until_count", "ignored_until_users", "ignored_until_escalating", "escalation_hour", "escalation_events", "escalation_drawn_at", "escalated_at", "resolved_in_next_release"]
				.map((column) => `ALTER TABLE groups DROP COLUMN ${column}`)
				.join("; "),
		);
		const escalating = await patch(owner, group_hash, { status: "ignored", ignore_until_escalating: true });
		expect(await escalating.json<Json>()).toMatchObject({ ignored_until_escalating: { events_per_hour: 10 } });
		expect(await (await patch(owner, group_hash, { status: "ignored", ignore_until_events: 1 })).json<Json>()).toMatchObject({ count: 1, ignored_until_count: 2 });
		await ingestOk(owner.rawKey, { message: "m" });
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "open", count: 2 });
	});
});
