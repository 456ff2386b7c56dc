// Files attached to Sentry user feedback (the feedback widget's screenshot, captureFeedback's
// attachments) as images of the key's form: which are kept, and their bounds.
import { describe, it } from "vitest";
import { call, configureKey, PNG_1PX } from "./helpers";
import { envelope, sendEnvelope, sentryProject, type SentryProject } from "./sentryHelpers";

type Json = Record<string, any>;

const MiB = 1024 * 1024;
const PNG = Uint8Array.from(atob(PNG_1PX.split(",")[1]), (c) => c.charCodeAt(0));
const JPEG_HEAD = [0xff, 0xd8, 0xff, 0xe0];

/** A file of `bytes` bytes that starts as `head` does (an image is told by its first bytes). */
function fileOf(bytes: number, head: ArrayLike<number> = PNG): Uint8Array {
	const file = new Uint8Array(bytes).fill(0x0a); // newlines: the payload is read by its length
	file.set(Array.from(head).slice(0, bytes));
	return file;
}

const feedbackItem = (message = "The pay button does nothing") => ({
	type: "feedback",
	payload: JSON.stringify({ contexts: { feedback: { message, contact_email: "ana@example.com" } } }),
});

/** An attachment item as @sentry/browser's feedback widget sends its screenshot (`application/png` included). */
const attachment = (payload: Uint8Array, filename = "screenshot.png", content_type = "application/png") => ({
	type: "attachment",
	payload,
	withLength: true,
	headers: { filename, content_type },
});

async function inbox(project: SentryProject): Promise<Json[]> {
	const res = await call(`/api/feedback?project_name=${encodeURIComponent(project.projectName)}`, { token: project.token });
	return (await res.json<Json>()).feedback;
}

async function sendFeedback(project: SentryProject, items: Json[]) {
	const res = await sendEnvelope(project, envelope({ event_id: "0".repeat(32) }, items as any));
	if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
	const [stored] = await inbox(project);
	return stored;
}

describe("files attached to Sentry user feedback", () => {
	it("the widget's screenshot becomes an image of the form's attachment field, told by its bytes; other files are not kept", async ({ expect }) => {
		const project = await sentryProject();
		const stored = await sendFeedback(project, [
			attachment(fileOf(64)), // before the feedback item: an event's file, not the feedback's
			feedbackItem(),
			attachment(PNG),
			attachment(new TextEncoder().encode("console log\n"), "log.txt", "text/plain"),
			attachment(fileOf(32, JPEG_HEAD), "photo.jpg", "image/jpeg"),
		]);
		expect(stored.data).toMatchObject({ title: "The pay button does nothing", email: "ana@example.com" });
		expect(stored.attachments.map((a: Json) => [a.field, a.content_type])).toEqual([
			["screenshots", "image/png"],
			["screenshots", "image/jpeg"],
		]);
		const download = await call(stored.attachments[0].url, { token: project.token });
		expect(download.headers.get("content-type")).toBe("image/png");
		expect(new Uint8Array(await download.arrayBuffer())).toEqual(PNG);
	});

	it.for([
		[5, 5],
		[6, 5],
	])("%i images attached: %i kept, the first ones", async ([sent, kept], { expect }) => {
		const project = await sentryProject();
		// Each file a little different, to tell which were kept.
		const files = Array.from({ length: sent }, (_, i) => fileOf(100 + i));
		const stored = await sendFeedback(project, [feedbackItem(), ...files.map((file) => attachment(file))]);
		expect(stored.attachments).toHaveLength(kept);
		const sizes = await Promise.all(stored.attachments.map(async (a: Json) => (await (await call(a.url, { token: project.token })).arrayBuffer()).byteLength));
		expect(sizes.sort()).toEqual(files.slice(0, kept).map((file) => file.byteLength));
	});

	it.for([
		["exactly 5 MiB together: both kept", MiB, 2],
		["one byte more: the file that passes the bound is not kept", MiB + 1, 1],
	] as const)("%s", async ([, second, kept], { expect }) => {
		const project = await sentryProject();
		const stored = await sendFeedback(project, [feedbackItem(), attachment(fileOf(4 * MiB)), attachment(fileOf(second))]);
		expect(stored.attachments).toHaveLength(kept);
	});

	it("a form without an attachment field stores the feedback without its files", async ({ expect }) => {
		const project = await sentryProject();
		await configureKey(project.token, project.projectName, {
			issue_field_config: [
				{ key: "title", label: "Title", type: "text", required: true },
				{ key: "description", label: "Description", type: "long_text", required: false },
			],
		});
		const stored = await sendFeedback(project, [feedbackItem(), attachment(PNG)]);
		expect(stored.data.title).toBe("The pay button does nothing");
		expect(stored.attachments).toEqual([]);
	});

	it("an error event's attachments are still read past, not kept as feedback", async ({ expect }) => {
		const project = await sentryProject();
		const event = { event_id: "1".repeat(32), message: "boom", level: "error", platform: "javascript" };
		const res = await sendEnvelope(project, envelope({}, [{ type: "event", payload: JSON.stringify(event) }, attachment(PNG)] as any));
		expect(res.status).toBe(200);
		expect(await inbox(project)).toEqual([]);
	});
});
