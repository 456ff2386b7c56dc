// An event's own id (a Sentry SDK's event_id): kept with the event, and a repeat within a day (an
// SDK's retry from its offline queue) answered as the first was but counted once.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, it } from "vitest";
import type { ProjectCollector } from "../durable-objects/ProjectCollector";
import { ingest, ingestOk, issueGrouper, listIssues, ownerWithLogKey, raiseLogsLimit, storedEvents } from "./logHelpers";
import { eventEnvelope, nodeEvent, sendEnvelope, sentryProject } from "./sentryHelpers";

type Json = Record<string, any>;

const ID = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const DAY = 24 * 60 * 60 * 1000;

describe("an event's own id", () => {
	it("a Sentry envelope sent again with its event_id: answered with that id each time, stored and counted once", async ({ expect }) => {
		const project = await sentryProject();
		const event = nodeEvent({ event_id: ID });
		for (let i = 0; i < 3; i++) {
			const res = await sendEnvelope(project, eventEnvelope(event));
			expect(res.status).toBe(200);
			expect(await res.json()).toEqual({ id: ID });
		}
		const { issues } = await (await listIssues(project.token, { project_name: project.projectName })).json<Json>();
		expect(issues.map((issue: Json) => issue.count)).toEqual([1]);
		const stored = await storedEvents(project.keyId);
		expect(stored).toHaveLength(1);
		expect(stored[0].event.event_id).toBe(ID);
	});

	it("the issue list's search finds an event's issue by its id, written as 32 hex digits or as a UUID", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const other = "0123456789abcdef0123456789abcdef";
		await ingestOk(owner.rawKey, { message: "first issue", event_id: ID });
		const { group_hash } = await ingestOk(owner.rawKey, { message: "second issue", event_id: other });
		for (const q of [other, "01234567-89AB-CDEF-0123-456789ABCDEF"]) {
			const { issues } = await (await listIssues(owner.token, { project_name: owner.projectName, q })).json<Json>();
			expect(issues.map((issue: Json) => issue.group_hash)).toEqual([group_hash]);
		}
		const { issues } = await (await listIssues(owner.token, { project_name: owner.projectName, q: "f".repeat(32) })).json<Json>();
		expect(issues).toEqual([]);
	});

	it.for([
		["32 hex digits", ID, ID],
		["a UUID in capitals", "AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA", ID],
		["31 hex digits", ID.slice(1), undefined],
		["not hex", "z".repeat(32), undefined],
		["a number", 5, undefined],
	] as const)("event_id as %s", async ([, given, stored], { expect }) => {
		const owner = await ownerWithLogKey();
		await ingestOk(owner.rawKey, { message: "m", event_id: given });
		await listIssues(owner.token, { project_name: owner.projectName });
		expect((await storedEvents(owner.keyId))[0].event.event_id).toBe(stored);
	});

	it("the nil UUID is no event's id: `sentry-cli send-event --raw` sends every event under it, and each is stored", async ({ expect }) => {
		const project = await sentryProject();
		const nil = "00000000-0000-0000-0000-000000000000";
		const answers = [];
		for (const message of ["raw event one", "raw event two"]) {
			const { event_id: _, ...event } = nodeEvent({ message, exception: undefined });
			const res = await sendEnvelope(project, eventEnvelope(event, { event_id: nil }));
			expect(res.status).toBe(200);
			answers.push((await res.json<Json>()).id);
		}
		expect(answers.every((id) => /^[0-9a-f]{32}$/.test(id) && !/^0+$/.test(id))).toBe(true);
		expect(new Set(answers).size).toBe(2);
		const { issues } = await (await listIssues(project.token, { project_name: project.projectName })).json<Json>();
		expect(issues.map((issue: Json) => issue.title).sort()).toEqual(["raw event one", "raw event two"]);
		const owner = await ownerWithLogKey();
		for (const event_id of [nil, "0".repeat(32)]) await ingestOk(owner.rawKey, { message: "m", event_id });
		await listIssues(owner.token, { project_name: owner.projectName });
		expect((await storedEvents(owner.keyId)).map((row) => row.event.event_id)).toEqual([undefined, undefined]);
	});

	it("a repeat uses up no slot of the key's window; events without an id are never repeats", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await raiseLogsLimit(owner, 3);
		for (let i = 0; i < 4; i++) expect((await ingest(owner.rawKey, { message: "retried", event_id: ID })).status).toBe(200);
		expect((await ingest(owner.rawKey, { message: "no id" })).status).toBe(200);
		expect((await ingest(owner.rawKey, { message: "no id" })).status).toBe(200);
		expect((await ingest(owner.rawKey, { message: "no id" })).status).toBe(429);
		await listIssues(owner.token, { project_name: owner.projectName });
		expect(await storedEvents(owner.keyId)).toHaveLength(3);
	});

	it("is remembered for a day: the alarm forgets ids older than that, and their repeat counts again", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const old = "b".repeat(32);
		const recent = "c".repeat(32);
		for (const event_id of [old, recent]) await ingestOk(owner.rawKey, { message: "m", event_id });
		const stub = issueGrouper(owner.keyId);
		await runInDurableObject(stub, (_: ProjectCollector, state) => {
			state.storage.sql.exec("UPDATE client_event_ids SET received_at = ? WHERE id = ?", Date.now() - DAY - 1_000, old);
			state.storage.sql.exec("UPDATE client_event_ids SET received_at = ? WHERE id = ?", Date.now() - DAY + 60_000, recent);
		});
		await runDurableObjectAlarm(stub);
		const ids = await runInDurableObject(stub, (_: ProjectCollector, state) => state.storage.sql.exec<{ id: string }>("SELECT id FROM client_event_ids").toArray().map((r) => r.id));
		expect(ids).toEqual([recent]);
		for (const event_id of [old, recent]) await ingestOk(owner.rawKey, { message: "m", event_id });
		await listIssues(owner.token, { project_name: owner.projectName });
		expect(await storedEvents(owner.keyId)).toHaveLength(3);
	});
});
