// One event of an issue by its id (GET /api/issues/:group_hash/events/:event_id, Sentry's event
// detail): what a link to an event older than the issue's newest 100 opens (docs/api.md#read-issue-event).
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { ProjectCollector } from "../durable-objects/ProjectCollector";
import { OWNER_LIMITS } from "../domain/limits";
import { call } from "./helpers";
import { ingestOk, issueGrouper, issueOf, ownerWithLogKey, raiseLogsLimit, seededHash } from "./logHelpers";
import { mergeOk } from "./mergeHelpers";

type Json = Record<string, any>;
type Project = Awaited<ReturnType<typeof ownerWithLogKey>>;

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

function readEvent(project: Project, groupHash: string, eventId: string, { token = project.token, projectName = project.projectName }: { token?: string | null; projectName?: string } = {}) {
	return call(`/api/issues/${groupHash}/events/${eventId}?${new URLSearchParams({ project_name: projectName })}`, { token: token ?? undefined });
}

async function readEventOk(project: Project, groupHash: string, eventId: string): Promise<Json> {
	const res = await readEvent(project, groupHash, eventId);
	if (res.status !== 200) throw new Error(`event read failed: ${res.status} ${await res.text()}`);
	return res.json();
}

/** A browser's crash in a script no source map was uploaded for: its event says so (`symbolication`). */
const crash = (extra: Json = {}) => ({
	exception: {
		type: "TypeError",
		value: "x is undefined",
		stacktrace: { frames: [{ filename: "https://shop.example/assets/pay-1a2b3c.js", function: "pay", lineno: 1, colno: 420, in_app: true }] },
		mechanism: { type: "onerror", handled: false },
	},
	platform: "javascript",
	release: "web@1.4.2",
	environment: "production",
	user: { id: "u1" },
	tags: { route: "/pay" },
	...extra,
});

describe("one event of an issue by its id (GET /api/issues/:group_hash/events/:event_id)", () => {
	it("answers the event as the issue's events list it: id, received_at, symbolication and all", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const { group_hash } = await ingestOk(project.rawKey, crash({ timestamp: minutesAgo(2) }));
		await ingestOk(project.rawKey, crash({ timestamp: minutesAgo(1), user: { id: "u2" } }));
		const { events } = await issueOf(project, group_hash);
		expect(events).toHaveLength(2);
		for (const listed of events) expect(await readEventOk(project, group_hash, listed.id)).toEqual(listed);
		expect(events[0].symbolication).toMatchObject({ frames: 1, mapped: 0 });
		// The id in any letter case is the same event.
		expect(await readEventOk(project, group_hash, events[1].id.toUpperCase())).toEqual(events[1]);
	});

	it("answers an event by the id its SDK gave it, with or without a UUID's dashes, as the page's `event` link takes it", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const sdkId = "0123456789abcdef0123456789abcdef";
		const { group_hash } = await ingestOk(project.rawKey, crash({ event_id: sdkId }));
		await ingestOk(project.rawKey, crash());
		const listed = (await issueOf(project, group_hash)).events.find((e: Json) => e.event_id === sdkId);
		expect(await readEventOk(project, group_hash, sdkId)).toEqual(listed);
		expect(await readEventOk(project, group_hash, "01234567-89AB-CDEF-0123-456789ABCDEF")).toEqual(listed);
	});

	it("answers an event older than the newest 100 the issue's page holds", async ({ expect }) => {
		const project = await ownerWithLogKey();
		await raiseLogsLimit(project);
		const sent = OWNER_LIMITS.issueEvents + 1;
		// The oldest sent first, each a minute after the one before.
		let groupHash = "";
		for (let i = 0; i < sent; i++) groupHash = (await ingestOk(project.rawKey, crash({ timestamp: minutesAgo(sent - i), tags: { n: String(i) } }))).group_hash;
		const issue = await issueOf(project, groupHash);
		expect({ count: issue.count, listed: issue.events.length }).toEqual({ count: sent, listed: OWNER_LIMITS.issueEvents });
		const oldest = await env.DB.prepare("SELECT id FROM log_events WHERE key_id = ? AND group_hash = ? ORDER BY timestamp LIMIT 1")
			.bind(project.keyId, groupHash)
			.first<{ id: string }>();
		expect(issue.events.map((e: Json) => e.id)).not.toContain(oldest?.id);
		const event = await readEventOk(project, groupHash, oldest?.id ?? "");
		expect(event).toMatchObject({ id: oldest?.id, tags: { n: "0" }, symbolication: { frames: 1, mapped: 0 } });
		// Shaped as the listed ones are.
		expect(Object.keys(event).sort()).toEqual(Object.keys(issue.events.at(-1)).sort());
	});

	it("finds an event the key's object accepted and has not moved to D1 yet: it is moved first, as for the issue's read", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const first = await ingestOk(project.rawKey, crash());
		await issueOf(project, first.group_hash);
		await ingestOk(project.rawKey, crash({ event_id: "f".repeat(32) }));
		// Its move waits for no alarm: only the read can bring it to D1.
		const waiting = await runInDurableObject(issueGrouper(project.keyId), async (_: ProjectCollector, state) => {
			await state.storage.deleteAlarm();
			return state.storage.sql.exec<{ id: string }>("SELECT id FROM outbox").toArray();
		});
		expect(waiting).toHaveLength(1);
		const inD1 = () => env.DB.prepare("SELECT count(*) AS n FROM log_events WHERE id = ?").bind(waiting[0].id).first<{ n: number }>();
		expect(await inD1()).toEqual({ n: 0 });
		const event = await readEventOk(project, first.group_hash, waiting[0].id);
		expect(event).toMatchObject({ id: waiting[0].id, event_id: "f".repeat(32) });
		expect(await inD1()).toEqual({ n: 1 });
		expect(event).toEqual((await issueOf(project, first.group_hash)).events[0]);
	});

	it("404 naming what is unknown: the project, the issue, the event, or that the event is another issue's", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const { group_hash } = await ingestOk(project.rawKey, crash());
		const other = await ingestOk(project.rawKey, { message: "Another failure" });
		const [own] = (await issueOf(project, group_hash)).events;
		const [othersEvent] = (await issueOf(project, other.group_hash)).events;
		const refusal = async (res: Response) => ({ status: res.status, body: await res.json<Json>() });

		expect(await refusal(await readEvent(project, group_hash, othersEvent.id))).toEqual({
			status: 404,
			body: { error: `This event belongs to another issue of this project, ${other.group_hash}` },
		});
		expect(await refusal(await readEvent(project, group_hash, crypto.randomUUID()))).toEqual({ status: 404, body: { error: "No such event in this project" } });
		expect(await refusal(await readEvent(project, seededHash(7), own.id))).toEqual({ status: 404, body: { error: "No such issue in this project" } });
		const unknownProject = await refusal(await readEvent(project, group_hash, own.id, { projectName: "no-such-project" }));
		expect(unknownProject.status).toBe(404);
		expect(unknownProject.body.error).toMatch(/no-such-project/);
		// Another owner's project holds none of this key's events.
		const stranger = await ownerWithLogKey();
		const strangers = await ingestOk(stranger.rawKey, crash());
		expect((await readEvent(stranger, strangers.group_hash, own.id)).status).toBe(404);
	});

	it("404 for the event of an issue merged into another, naming the issue it went into; the merged issue answers it", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const alpha = await ingestOk(project.rawKey, { message: "Alpha" });
		await ingestOk(project.rawKey, { message: "Alpha" });
		const beta = await ingestOk(project.rawKey, { message: "Beta" });
		const [betaEvent] = (await issueOf(project, beta.group_hash)).events;
		await mergeOk(project, [alpha.group_hash, beta.group_hash]);
		const gone = await readEvent(project, beta.group_hash, betaEvent.id);
		expect({ status: gone.status, body: await gone.json() }).toEqual({
			status: 404,
			body: { error: `This issue was merged into ${alpha.group_hash}`, merged_into: alpha.group_hash },
		});
		expect(await readEventOk(project, alpha.group_hash, betaEvent.id)).toMatchObject({ id: betaEvent.id, message: "Beta" });
	});

	it("400 for a malformed hash or id; 401 signed out, before anything else", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const { group_hash } = await ingestOk(project.rawKey, crash());
		const [event] = (await issueOf(project, group_hash)).events;
		for (const id of ["not-an-event", "1234", `${event.id}0`, "g".repeat(32)]) {
			const res = await readEvent(project, group_hash, id);
			expect({ id, status: res.status, body: await res.json() }).toEqual({
				id,
				status: 400,
				body: { error: "Invalid request: event_id: must be an event's id: a UUID, or 32 hexadecimal characters" },
			});
		}
		const badHash = await readEvent(project, "not-a-hash", event.id);
		expect({ status: badHash.status, body: await badHash.json() }).toEqual({ status: 400, body: { error: "Invalid request: group_hash: must be 32 hexadecimal characters" } });
		expect((await call(`/api/issues/${group_hash}/events/${event.id}`, { token: project.token })).status).toBe(400);
		for (const [hash, id] of [
			[group_hash, event.id],
			["not-a-hash", "not-an-event"],
		]) {
			expect((await readEvent(project, hash, id, { token: null })).status).toBe(401);
		}
	});
});
