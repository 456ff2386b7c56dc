// An issue is "Unhandled", as Sentry marks it in its list, once any of its events was: an exception
// of the event's chain said `mechanism.handled: false`. Set by the key's ProjectCollector as the
// event is grouped, moved to D1 with the issue, never cleared; migration 0018 set it for the issues
// whose stored events said so.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { UNHANDLED_BACKFILL } from "../domain/logs/logStore";
import { withoutComments } from "./helpers";
import { ingestOk, issueGrouper, issueOf, issuesOf, ownerWithLogKey, setIssueStatus } from "./logHelpers";
import { eventEnvelope, nodeEvent, sendEnvelope, sentryProject } from "./sentryHelpers";

type Json = Record<string, any>;

const crash = (handled?: boolean) => ({
	exception: { type: "TypeError", value: "x is undefined", stacktrace: null, ...(handled === undefined ? {} : { mechanism: { type: "onerror", handled } }) },
});
/** Sentry's chain, the reported exception last: `handled` on the cause only. */
const chained = (causeHandled: boolean) => ({
	exception: {
		values: [
			{ type: "DbError", value: "db down", mechanism: { type: "chained", source: "cause", handled: causeHandled, exception_id: 1, parent_id: 0 } },
			{ type: "LoadError", value: "load failed", mechanism: { type: "generic", exception_id: 0 } },
		],
	},
});

/** The issue's flag as the list and its detail both give it (they must agree). */
async function unhandledOf(project: { token: string; projectName: string }, groupHash: string): Promise<boolean> {
	const listed = (await issuesOf(project)).find((i: Json) => i.group_hash === groupHash);
	const detail = await issueOf(project, groupHash);
	if (listed?.unhandled !== detail.unhandled) throw new Error(`list says ${listed?.unhandled}, detail ${detail.unhandled}`);
	return detail.unhandled;
}

describe("an issue's unhandled flag", () => {
	it("is set by its first unhandled event, stays set after handled ones and a status change, and never by handled events alone", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash: crashed } = await ingestOk(owner.rawKey, crash(true));
		const { group_hash: caught } = await ingestOk(owner.rawKey, { message: "retrying", exception: { type: "Timeout", value: "slow", stacktrace: null } });
		expect(await unhandledOf(owner, crashed)).toBe(false);

		expect((await ingestOk(owner.rawKey, crash(false))).group_hash).toBe(crashed);
		expect(await unhandledOf(owner, crashed)).toBe(true);
		await ingestOk(owner.rawKey, crash(true));
		await ingestOk(owner.rawKey, crash());
		expect(await unhandledOf(owner, crashed)).toBe(true);
		const resolved = await setIssueStatus(owner.token, owner.projectName, crashed, "resolved");
		expect(await resolved.json()).toMatchObject({ status: "resolved", unhandled: true });
		await ingestOk(owner.rawKey, crash(true)); // reopens it
		expect(await issueOf(owner, crashed)).toMatchObject({ status: "open", count: 5, unhandled: true });

		await ingestOk(owner.rawKey, { message: "retrying", exception: { type: "Timeout", value: "slow", stacktrace: null, mechanism: { handled: true } } });
		expect(await unhandledOf(owner, caught)).toBe(false);
	});

	it("an unhandled cause in the chain marks it; an issue opened by an unhandled event is unhandled from the start", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash: handled } = await ingestOk(owner.rawKey, chained(true));
		expect(await unhandledOf(owner, handled)).toBe(false);
		const { group_hash: again } = await ingestOk(owner.rawKey, chained(false));
		expect(again).toBe(handled);
		expect(await unhandledOf(owner, handled)).toBe(true);

		const { group_hash: fresh, is_new } = await ingestOk(owner.rawKey, { ...crash(false), exception: { ...crash(false).exception, type: "RangeError" } });
		expect(is_new).toBe(true);
		expect(await unhandledOf(owner, fresh)).toBe(true);
	});

	it("through a Sentry envelope: handled: true leaves it handled, handled: false marks it", async ({ expect }) => {
		const project = await sentryProject();
		expect((await sendEnvelope(project, eventEnvelope(nodeEvent()))).status).toBe(200);
		const [issue] = await issuesOf(project);
		expect(issue.unhandled).toBe(false);

		const event = nodeEvent();
		event.exception.values[1].mechanism = { type: "onunhandledrejection", handled: false, exception_id: 0 };
		expect((await sendEnvelope(project, eventEnvelope(event))).status).toBe(200);
		expect(await issuesOf(project)).toMatchObject([{ group_hash: issue.group_hash, count: 2, unhandled: true }]);
		expect((await sendEnvelope(project, eventEnvelope(nodeEvent()))).status).toBe(200);
		expect(await issuesOf(project)).toMatchObject([{ group_hash: issue.group_hash, count: 3, unhandled: true }]);
	});

	it("migration 0018 marks the issues whose stored events were unhandled; an object from before the flag gains it and never clears D1's", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const timeout = (handled: boolean) => ({ exception: { type: "Timeout", value: "slow", stacktrace: null, mechanism: { handled } } });
		const { group_hash: top } = await ingestOk(owner.rawKey, crash(false));
		const { group_hash: cause } = await ingestOk(owner.rawKey, chained(false));
		const { group_hash: handled } = await ingestOk(owner.rawKey, timeout(true));
		const { group_hash: plain } = await ingestOk(owner.rawKey, { message: "no exception" });
		await issuesOf(owner); // moves them to D1

		// The migration's last statement is the backfill, as written in logStore.ts.
		const migration = env.TEST_MIGRATIONS.find((m) => m.name.endsWith("_issue_unhandled.sql"));
		expect(withoutComments(migration?.queries.at(-1) ?? "")).toBe(UNHANDLED_BACKFILL);
		// The key as it was before: no flag in D1, no column in its collector.
		await env.DB.prepare("UPDATE log_issues SET unhandled = 0 WHERE key_id = ?").bind(owner.keyId).run();
		await runInDurableObject(issueGrouper(owner.keyId), (_, state) => {
			state.storage.sql.exec("ALTER TABLE groups DROP COLUMN unhandled");
		});
		await env.DB.prepare(UNHANDLED_BACKFILL).run();
		const flags = async () =>
			Object.fromEntries(
				(await env.DB.prepare("SELECT group_hash, unhandled FROM log_issues WHERE key_id = ?").bind(owner.keyId).all<Json>()).results.map((r) => [
					r.group_hash,
					r.unhandled,
				]),
			);
		expect(await flags()).toEqual({ [top]: 1, [cause]: 1, [handled]: 0, [plain]: 0 });
		await runInDurableObject(issueGrouper(owner.keyId), (_, state) => state.abort("restart as the new version")).catch(() => {});

		// A status change answers as the list does: the object learns the flag D1 found, and keeps it.
		const patched = async (groupHash: string, status: string) => {
			const res = await setIssueStatus(owner.token, owner.projectName, groupHash, status);
			expect(res.status).toBe(200);
			return ((await res.json()) as Json).unhandled;
		};
		expect(await patched(top, "resolved")).toBe(true);
		expect(await patched(plain, "resolved")).toBe(false);
		await env.DB.prepare("UPDATE log_issues SET unhandled = 0 WHERE key_id = ? AND group_hash = ?").bind(owner.keyId, top).run();
		expect(await patched(top, "open")).toBe(true);
		expect(await unhandledOf(owner, top)).toBe(true);
		expect(await unhandledOf(owner, plain)).toBe(false);

		// A handled event of a marked issue leaves it marked (its object holds it unset); an unhandled one marks a handled issue.
		await ingestOk(owner.rawKey, crash(true));
		await ingestOk(owner.rawKey, timeout(false));
		await ingestOk(owner.rawKey, { message: "no exception" });
		expect(await unhandledOf(owner, top)).toBe(true);
		expect(await unhandledOf(owner, handled)).toBe(true);
		expect(await unhandledOf(owner, plain)).toBe(false);
		expect(await flags()).toEqual({ [top]: 1, [cause]: 1, [handled]: 1, [plain]: 0 });
	});
});
