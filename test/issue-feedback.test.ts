// Sentry's user feedback on its issue (GET /api/issues/:group_hash/feedback): what users said about
// the issue's events, through the feedback widget (`associated_event_id`) or the crash-report
// dialog (`event_id`), found by the ids of the events the issue holds.
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { call, ownerWithKey } from "./helpers";
import { issuesOf } from "./logHelpers";
import { envelope, eventEnvelope, nodeEvent, type SentryProject, sendEnvelope, sentryProject } from "./sentryHelpers";

type Json = Record<string, any>;

const readFeedback = (project: { token: string; projectName: string }, groupHash: string) =>
	call(`/api/issues/${groupHash}/feedback?project_name=${encodeURIComponent(project.projectName)}`, { token: project.token });

async function feedbackOf(project: SentryProject, groupHash: string): Promise<Json[]> {
	const res = await readFeedback(project, groupHash);
	if (res.status !== 200) throw new Error(`feedback failed: ${res.status} ${await res.text()}`);
	return (await res.json<Json>()).feedback;
}

async function send(project: SentryProject, body: Uint8Array) {
	const res = await sendEnvelope(project, body);
	if (res.status !== 200) throw new Error(`envelope refused: ${res.status} ${await res.text()}`);
}

const widget = (message: string, about?: string) => ({ type: "feedback", contexts: { feedback: { message, ...(about && { associated_event_id: about }) } } });
const feedbackItem = (payload: Json) => envelope({}, [{ type: payload.type === "feedback" ? "feedback" : "user_report", payload: JSON.stringify(payload) }]);

/** Two issues' events sent as @sentry/node sends them, and their group hashes. */
async function twoIssues(project: SentryProject) {
	const [first, again, other] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()].map((id) => id.replaceAll("-", ""));
	await send(project, eventEnvelope(nodeEvent({ event_id: first })));
	await send(project, eventEnvelope(nodeEvent({ event_id: again })));
	await send(project, eventEnvelope(nodeEvent({ event_id: other, exception: undefined, message: "Another bug" })));
	const issues = await issuesOf(project);
	const hashOf = (title: string) => issues.find((issue) => issue.title.startsWith(title))!.group_hash as string;
	return { ids: { first, again, other }, load: hashOf("Error: load failed"), another: hashOf("Another bug") };
}

describe("GET /api/issues/:group_hash/feedback", () => {
	it("lists the feedback given about the issue's events, whichever event and however its id was written", async ({ expect }) => {
		const project = await sentryProject();
		const { ids, load, another } = await twoIssues(project);
		// The widget's id as a UUID in capitals, the dialog's as stored; one about another issue, one about no stored event, one about none.
		const uuid = `${ids.first.slice(0, 8)}-${ids.first.slice(8, 12)}-${ids.first.slice(12, 16)}-${ids.first.slice(16, 20)}-${ids.first.slice(20)}`.toUpperCase();
		await send(project, feedbackItem(widget("The pay button does nothing\nOn Safari", uuid)));
		await send(project, feedbackItem({ event_id: ids.again, name: "Bo", comments: "It broke again" }));
		await send(project, feedbackItem(widget("Search is slow", ids.other)));
		await send(project, feedbackItem(widget("About nothing stored", "f".repeat(32))));
		await send(project, feedbackItem(widget("About nothing at all")));

		const onLoad = await feedbackOf(project, load);
		expect(onLoad.map((f) => [f.title, f.event_id, f.type, f.status]).sort()).toEqual([
			["It broke again", ids.again, "issue", "open"],
			["The pay button does nothing", uuid, "issue", "open"],
		]);
		expect(onLoad.every((f) => typeof f.id === "string" && !Number.isNaN(Date.parse(f.created_at)))).toBe(true);
		expect((await feedbackOf(project, another)).map((f) => f.title)).toEqual(["Search is slow"]);
	});

	it("answers the newest 100, newest first", async ({ expect }) => {
		const project = await sentryProject();
		const { ids, load } = await twoIssues(project);
		// Feedback rows as the key's object writes them, a minute apart: 101 about one event.
		const insert = (i: number) =>
			env.DB.prepare("INSERT INTO feedback (id, user_id, project_name, type, status, data, created_at) VALUES (?, ?, ?, 'issue', 'open', ?, ?)").bind(
				`f-${String(i).padStart(3, "0")}`,
				project.user.id,
				project.projectName,
				JSON.stringify({ title: `Report ${i}`, sentry_event_id: ids.first }),
				Date.UTC(2026, 10, 1) + i * 60_000,
			);
		await env.DB.batch(Array.from({ length: 100 }, (_, i) => insert(i)));
		const hundred = await feedbackOf(project, load);
		expect(hundred).toHaveLength(100);
		expect([hundred[0].title, hundred.at(-1)?.title]).toEqual(["Report 99", "Report 0"]);
		await insert(100).run();
		const newest = await feedbackOf(project, load);
		expect(newest).toHaveLength(100);
		expect([newest[0].title, newest.at(-1)?.title]).toEqual(["Report 100", "Report 1"]);
	});

	it("404 for another owner's project or an unknown issue, 400 for a hash that is none, 401 signed out", async ({ expect }) => {
		const project = await sentryProject();
		const { load } = await twoIssues(project);
		const stranger = await ownerWithKey();
		expect((await readFeedback({ token: stranger.token, projectName: project.projectName }, load)).status).toBe(404);
		expect((await readFeedback(project, "f".repeat(32))).status).toBe(404);
		const bad = await readFeedback(project, "not-a-hash");
		expect(bad.status).toBe(400);
		expect((await bad.json<Json>()).error).toContain("32 hexadecimal characters");
		expect((await call(`/api/issues/${load}/feedback?project_name=${project.projectName}`)).status).toBe(401);
	});
});
