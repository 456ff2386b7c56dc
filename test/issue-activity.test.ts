// An issue's activity, as Sentry's issue page lists it: the owner's status changes and merges, and
// what its events did to its status (a regression, an ignore that ended, an escalation).
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { OWNER_LIMITS } from "../domain/limits";
import { call } from "./helpers";
import { ingestOk, issueGrouper, issueOf, ownerWithLogKey, raiseLogsLimit, setIssueStatus } from "./logHelpers";

type Json = Record<string, any>;
type Owner = Awaited<ReturnType<typeof ownerWithLogKey>>;

const patch = async (owner: Owner, groupHash: string, body: Json) => {
	const res = await call(`/api/issues/${groupHash}`, { method: "PATCH", token: owner.token, json: { project_name: owner.projectName, ...body } });
	expect(res.status).toBe(200);
};
/** The issue's activity, newest first, without the times. */
const activityOf = async (owner: Owner, groupHash: string) => (await issueOf(owner, groupHash)).activity.map(({ at, ...entry }: Json) => entry);

describe("an issue's activity", () => {
	it("notes each status change of the owner's, newest first, with when and what ends an ignore", async () => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m", release: "web@1.0.0" });
		expect((await issueOf(owner, group_hash)).activity).toEqual([]);

		const before = Date.now();
		await patch(owner, group_hash, { status: "resolved" });
		await patch(owner, group_hash, { status: "ignored", ignore_until_events: 5 });
		await patch(owner, group_hash, { status: "ignored", ignore_until_escalating: true });
		await patch(owner, group_hash, { status: "ignored" });
		await patch(owner, group_hash, { status: "open" });
		const { activity } = await issueOf(owner, group_hash);
		expect(activity.map(({ at, ...entry }: Json) => entry)).toEqual([
			{ kind: "reopened" },
			{ kind: "ignored" },
			{ kind: "ignored", ignored_until_escalating: { events_per_hour: 10 } },
			{ kind: "ignored", ignored_until_count: 6 },
			{ kind: "resolved", release: "web@1.0.0" },
		]);
		for (const { at } of activity) {
			expect(Date.parse(at)).toBeGreaterThanOrEqual(before);
			expect(Date.parse(at)).toBeLessThanOrEqual(Date.now());
		}
		// The bulk change notes each issue's own.
		const other = await ingestOk(owner.rawKey, { message: "other" });
		const bulk = await call("/api/issues", {
			method: "PATCH",
			token: owner.token,
			json: { project_name: owner.projectName, group_hashes: [group_hash, other.group_hash], status: "ignored", ignore_for_minutes: 60 },
		});
		const [first, second] = (await bulk.json<Json>()).issues.map((issue: Json) => issue.ignored_until);
		expect((await activityOf(owner, group_hash))[0]).toEqual({ kind: "ignored", ignored_until: first });
		expect(await activityOf(owner, other.group_hash)).toEqual([{ kind: "ignored", ignored_until: second }]);
	});

	it("notes no change where there is none: the status it has, on the same terms, set again", async () => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m", release: "web@1.0.0" });
		await patch(owner, group_hash, { status: "open" });
		expect(await activityOf(owner, group_hash)).toEqual([]);
		await patch(owner, group_hash, { status: "resolved" });
		await patch(owner, group_hash, { status: "resolved" });
		await patch(owner, group_hash, { status: "ignored" });
		await patch(owner, group_hash, { status: "ignored" });
		// The same status on other terms is a change.
		await patch(owner, group_hash, { status: "ignored", ignore_until_events: 5 });
		await patch(owner, group_hash, { status: "open" });
		await patch(owner, group_hash, { status: "open" });
		expect(await activityOf(owner, group_hash)).toEqual([
			{ kind: "reopened" },
			{ kind: "ignored", ignored_until_count: 6 },
			{ kind: "ignored" },
			{ kind: "resolved", release: "web@1.0.0" },
		]);
	});

	it("notes the event that reopened it: a regression with its release, an ignore's end, an escalation", async () => {
		const owner = await ownerWithLogKey();
		await raiseLogsLimit(owner);
		const send = (body: Json = {}) => ingestOk(owner.rawKey, { message: "m", ...body });
		const { group_hash } = await send({ release: "2.0.0" });

		await setIssueStatus(owner.token, owner.projectName, group_hash, "resolved");
		await send({ release: "1.9.0" }); // an older release: no regression
		await send({ release: "2.1.0" });
		await patch(owner, group_hash, { status: "ignored", ignore_until_events: 1 });
		await send();
		await patch(owner, group_hash, { status: "ignored", ignore_until_users: 1 });
		await send({ user: { id: "u1" } });
		await patch(owner, group_hash, { status: "ignored", ignore_for_minutes: 1 });
		await runInDurableObject(issueGrouper(owner.keyId), (_, state) => void state.storage.sql.exec(`UPDATE groups SET ignored_until = 0`));
		await send();
		await patch(owner, group_hash, { status: "ignored", ignore_until_escalating: true });
		await runInDurableObject(issueGrouper(owner.keyId), (_, state) => {
			state.storage.sql.exec(`UPDATE groups SET escalation_hour = ?, escalation_events = ignored_until_escalating`, Math.floor(Date.now() / 3_600_000));
		});
		// The object read the issue's state before: as after a restart, it reads it again.
		await runInDurableObject(issueGrouper(owner.keyId), (_, state) => state.abort("restart")).catch(() => {});
		await send();

		const automatic = (await activityOf(owner, group_hash)).filter((entry: Json) => !["resolved", "ignored"].includes(entry.kind));
		expect(automatic).toEqual([
			{ kind: "escalated", events_per_hour: 60 },
			{ kind: "ignore_ended", by: "time" },
			{ kind: "ignore_ended", by: "users" },
			{ kind: "ignore_ended", by: "events" },
			{ kind: "regressed", release: "2.1.0" },
		]);
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "open", count: 7 });
	});

	it("notes a merge on the merged issue; a deleted issue's goes with it", async () => {
		const owner = await ownerWithLogKey();
		const big = await ingestOk(owner.rawKey, { message: "big" });
		await ingestOk(owner.rawKey, { message: "big" });
		const small = await ingestOk(owner.rawKey, { message: "small" });
		const third = await ingestOk(owner.rawKey, { message: "third" });
		await patch(owner, small.group_hash, { status: "resolved" });
		const merged = await call("/api/issues/merge", {
			method: "POST",
			token: owner.token,
			json: { project_name: owner.projectName, group_hashes: [small.group_hash, big.group_hash, third.group_hash] },
		});
		expect((await merged.json<Json>()).group_hash).toBe(big.group_hash);
		expect(await activityOf(owner, big.group_hash)).toEqual([{ kind: "merged", issues: 2 }]);

		const deleted = await call(`/api/issues/${big.group_hash}?project_name=${owner.projectName}`, { method: "DELETE", token: owner.token });
		expect(deleted.status).toBe(200);
		// Its fingerprint's next event opens it anew, with nothing of before.
		const again = await ingestOk(owner.rawKey, { message: "big" });
		expect(again).toMatchObject({ group_hash: big.group_hash, is_new: true });
		expect(await activityOf(owner, big.group_hash)).toEqual([]);
		const rows = await runInDurableObject(issueGrouper(owner.keyId), (_, state) => state.storage.sql.exec(`SELECT count(*) AS n FROM group_activity`).one().n);
		expect(rows).toBe(0);
	});

	it("goes with the issues the clean-up deletes, and only theirs", async () => {
		const owner = await ownerWithLogKey();
		const old = await ingestOk(owner.rawKey, { message: "old", timestamp: new Date(Date.now() - 10 * 24 * 3_600_000).toISOString() });
		const recent = await ingestOk(owner.rawKey, { message: "recent" });
		for (const { group_hash } of [old, recent]) await patch(owner, group_hash, { status: "resolved" });
		await issueGrouper(owner.keyId).forgetIssuesBefore(owner.keyId, Date.now() - 24 * 3_600_000, 100);
		const kept = await runInDurableObject(issueGrouper(owner.keyId), (_, state) => state.storage.sql.exec(`SELECT DISTINCT hash FROM group_activity`).toArray());
		expect(kept).toEqual([{ hash: recent.group_hash }]);
	});

	it(`keeps an issue's newest ${OWNER_LIMITS.issueActivity} entries`, async () => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m" });
		const statuses = ["resolved", "open"] as const;
		for (let i = 0; i < OWNER_LIMITS.issueActivity; i++) await patch(owner, group_hash, { status: statuses[i % 2] });
		let activity = await activityOf(owner, group_hash);
		expect(activity).toHaveLength(OWNER_LIMITS.issueActivity);
		expect(activity.at(-1)).toEqual({ kind: "resolved", release: null });

		await patch(owner, group_hash, { status: "ignored" });
		activity = await activityOf(owner, group_hash);
		expect(activity).toHaveLength(OWNER_LIMITS.issueActivity);
		expect(activity[0]).toEqual({ kind: "ignored" });
		expect(activity.at(-1)).toEqual({ kind: "reopened" });
		const rows = await runInDurableObject(issueGrouper(owner.keyId), (_, state) => state.storage.sql.exec(`SELECT count(*) AS n FROM group_activity`).one().n);
		expect(rows).toBe(OWNER_LIMITS.issueActivity);
	});

	it("an object from before the activity gains its table and keeps its issues", async () => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "m" });
		await runInDurableObject(issueGrouper(owner.keyId), (_, state) => void state.storage.sql.exec(`DROP TABLE group_activity`));
		await runInDurableObject(issueGrouper(owner.keyId), (_, state) => state.abort("restart")).catch(() => {});
		await patch(owner, group_hash, { status: "resolved" });
		expect(await activityOf(owner, group_hash)).toEqual([{ kind: "resolved", release: null }]);
		expect(await issueOf(owner, group_hash)).toMatchObject({ status: "resolved", count: 1 });
	});
});
