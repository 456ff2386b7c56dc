// Sentry's size limits on the envelope and store endpoints: the body as sent and decompressed, one
// event, and what streams past unkept (attachments, screenshots).
import { describe, it } from "vitest";
import { call } from "./helpers";
import { issuesOf } from "./logHelpers";
import { envelope, gzip, nodeEvent, post, type SentryProject, sendEnvelope, sentryProject } from "./sentryHelpers";

type Json = Record<string, any>;

const MiB = 1024 * 1024;
const EVENT_BYTES = MiB;
const SENT_BYTES = 20 * MiB;
const ENVELOPE_BYTES = 40 * MiB;
const encoder = new TextEncoder();

/** An event of exactly `bytes` bytes of JSON, its padding a member nothing keeps. */
function eventOfBytes(bytes: number, message = "big"): string {
	const shell = JSON.stringify({ ...nodeEvent({ message, exception: undefined }), pad: "" });
	const text = JSON.stringify({ ...nodeEvent({ message, exception: undefined }), pad: "x".repeat(bytes - shell.length) });
	if (encoder.encode(text).byteLength !== bytes) throw new Error("event size");
	return text;
}

/** An envelope of exactly `bytes` bytes: a small event, then an attachment of zeros filling the rest. */
function envelopeOfBytes(bytes: number): Uint8Array {
	const head = envelope({}, [{ type: "event", payload: JSON.stringify(nodeEvent({ message: "beside a big attachment", exception: undefined })) }]);
	const attachmentHeader = (length: number) => encoder.encode(`${JSON.stringify({ type: "attachment", length, filename: "dump.bin" })}\n`);
	let length = bytes - head.byteLength - attachmentHeader(bytes).byteLength - 1;
	length += bytes - (head.byteLength + attachmentHeader(length).byteLength + length + 1);
	const out = new Uint8Array(bytes);
	out.set(head);
	out.set(attachmentHeader(length), head.byteLength);
	out[bytes - 1] = 0x0a;
	if (head.byteLength + attachmentHeader(length).byteLength + length + 1 !== bytes) throw new Error("envelope size");
	return out;
}

/**
 * The start of a gzip stream of at least `bytes` bytes that does not compress: `prefix`, then zeros,
 * in stored (uncompressed) deflate blocks, without the trailer, which is never reached.
 */
function storedGzip(prefix: Uint8Array, bytes: number): Uint8Array {
	const block = 65_535;
	const out = new Uint8Array(bytes + block);
	out.set([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
	for (let at = 10, first = true; at < bytes; at += 5 + block, first = false) {
		out.set([0, block & 0xff, block >> 8, ~block & 0xff, (~block >> 8) & 0xff], at);
		if (first) out.set(prefix, at + 5);
	}
	return out;
}

async function feedbackInbox(project: SentryProject): Promise<Json[]> {
	return (await call(`/api/feedback?project_name=${encodeURIComponent(project.projectName)}`, { token: project.token }).then((r) => r.json<Json>())).feedback;
}

describe("Sentry envelope limits", () => {
	describe("one event item: 1 MiB, Sentry's max_event_size", () => {
		it.for([
			[EVENT_BYTES, true, 200],
			[EVENT_BYTES + 1, true, 413],
			[EVENT_BYTES, false, 200],
			[EVENT_BYTES + 1, false, 413],
		] as const)("%d bytes (with a length: %s) → %d", async ([bytes, withLength, status], { expect }) => {
			const project = await sentryProject();
			const res = await sendEnvelope(project, envelope({}, [{ type: "event", payload: eventOfBytes(bytes), withLength }]));
			expect(res.status).toBe(status);
			if (status === 200) {
				expect((await issuesOf(project)).map((issue) => issue.title)).toEqual(["big"]);
			} else {
				expect(await res.json()).toEqual({ error: "Item 1 (event) exceeds 1048576 bytes, the most one event may take" });
				expect(await issuesOf(project)).toEqual([]);
			}
		});

		it("an event over the limit refuses the whole envelope, as Sentry does, whatever else it carries", async ({ expect }) => {
			const project = await sentryProject();
			const body = envelope({}, [
				{ type: "session", payload: "{}" },
				{ type: "event", payload: eventOfBytes(EVENT_BYTES + 1), withLength: true },
			]);
			const res = await sendEnvelope(project, await gzip(body), { headers: { "content-encoding": "gzip" } });
			expect(res.status).toBe(413);
			expect((await res.json<Json>()).error).toBe("Item 2 (event) exceeds 1048576 bytes, the most one event may take");
			expect(await issuesOf(project)).toEqual([]);
		});

		it.for([
			[EVENT_BYTES, 200],
			[EVENT_BYTES + 1, 413],
		] as const)("a user feedback item of %d bytes → %d", async ([bytes, status], { expect }) => {
			const project = await sentryProject();
			const shell = JSON.stringify({ comments: "It broke", name: "Ana", pad: "" });
			const payload = JSON.stringify({ comments: "It broke", name: "Ana", pad: "x".repeat(bytes - shell.length) });
			const res = await sendEnvelope(project, envelope({}, [{ type: "user_report", payload, withLength: true }]));
			expect(res.status).toBe(status);
			expect((await feedbackInbox(project)).length).toBe(status === 200 ? 1 : 0);
		});

		it("an item header line over 1 MiB is a 413", async ({ expect }) => {
			const project = await sentryProject();
			const res = await sendEnvelope(project, `{}\n{"type":"attachment","pad":"${"x".repeat(EVENT_BYTES)}"}\n{}\n`);
			expect(res.status).toBe(413);
			expect((await res.json<Json>()).error).toBe("The header of item 1 exceeds 1048576 bytes, the most one event may take");
		});
	});

	describe("attachments are read past, not kept", () => {
		it("an event beside a 5 MiB attachment (with newlines and binary) is stored", async ({ expect }) => {
			const project = await sentryProject();
			const attachment = new Uint8Array(5 * MiB).fill(0xff);
			for (let at = 0; at < attachment.byteLength; at += 4096) attachment.set([0x0a, 0x00, 0x0d, 0x0a], at);
			const event = nodeEvent();
			const res = await sendEnvelope(
				project,
				envelope({ event_id: event.event_id }, [
					{ type: "attachment", payload: attachment, withLength: true },
					{ type: "event", payload: JSON.stringify(event), withLength: true },
					{ type: "attachment", payload: attachment, withLength: true },
				]),
			);
			expect(res.status).toBe(200);
			expect(await res.json()).toEqual({ id: event.event_id });
			expect((await issuesOf(project)).length).toBe(1);
		});

		it("feedback with a 3 MiB screenshot, as captureFeedback sends it, lands in the inbox", async ({ expect }) => {
			const project = await sentryProject();
			const feedback = { type: "feedback", contexts: { feedback: { message: "The pay button does nothing", contact_email: "ana@example.com" } } };
			const screenshot = new Uint8Array(3 * MiB).fill(0x89);
			const body = envelope({}, [
				{ type: "feedback", payload: JSON.stringify(feedback) },
				{ type: "attachment", payload: screenshot, withLength: true },
			]);
			const res = await sendEnvelope(project, await gzip(body), { headers: { "content-encoding": "gzip" } });
			expect(res.status).toBe(200);
			expect((await feedbackInbox(project)).map((f) => f.data.title)).toEqual(["The pay button does nothing"]);
		});

		it("a payload of a dropped type may be longer than an event, even without a length", async ({ expect }) => {
			const project = await sentryProject();
			const event = nodeEvent();
			const res = await sendEnvelope(
				project,
				envelope({}, [
					{ type: "client_report", payload: "x".repeat(2 * MiB) },
					{ type: "event", payload: JSON.stringify(event) },
				]),
			);
			expect(res.status).toBe(200);
			expect((await issuesOf(project)).length).toBe(1);
		});
	});

	describe("the body: 20 MiB as sent, 40 MiB decompressed", () => {
		it.for([
			[ENVELOPE_BYTES, 200],
			[ENVELOPE_BYTES + 1, 413],
		] as const)("%d bytes decompressed from gzip (about 40 KB as sent) → %d", async ([bytes, status], { expect }) => {
			const project = await sentryProject();
			// One byte past is a compression bomb in small: inflating stops there.
			const body = await gzip(envelopeOfBytes(bytes));
			expect(body.byteLength).toBeLessThan(MiB);
			const res = await sendEnvelope(project, body, { headers: { "content-encoding": "gzip" } });
			expect(res.status).toBe(status);
			if (status === 200) expect((await issuesOf(project)).map((issue) => issue.title)).toEqual(["beside a big attachment"]);
			else expect((await res.json<Json>()).error).toBe("Request body exceeds 41943040 bytes decompressed");
		});

		it.for([
			[SENT_BYTES, 200],
			[SENT_BYTES + 1, 413],
		] as const)("%d bytes uncompressed → %d", async ([bytes, status], { expect }) => {
			const project = await sentryProject();
			const res = await sendEnvelope(project, envelopeOfBytes(bytes));
			expect(res.status).toBe(status);
			if (status === 413) expect((await res.json<Json>()).error).toBe("Request body exceeds 20971520 bytes as sent");
			expect((await issuesOf(project)).length).toBe(status === 200 ? 1 : 0);
		});

		it("a body without a Content-Length is counted as it streams in", async ({ expect }) => {
			const project = await sentryProject();
			const bytes = envelopeOfBytes(SENT_BYTES + 1);
			const stream = new ReadableStream<Uint8Array>({
				start(controller) {
					for (let at = 0; at < bytes.byteLength; at += MiB) controller.enqueue(bytes.slice(at, at + MiB));
					controller.close();
				},
			});
			const res = await sendEnvelope(project, stream);
			expect(res.status).toBe(413);
			expect((await res.json<Json>()).error).toBe("Request body exceeds 20971520 bytes as sent");
		});

		it.for([
			["gzip", "gzip"],
			["deflate", "deflate"],
			["deflate", "deflate-raw"],
		] as const)("Content-Encoding %s (%s data) is undone", async ([encoding, format], { expect }) => {
			const project = await sentryProject();
			const body = await gzip(envelope({}, [{ type: "event", payload: eventOfBytes(EVENT_BYTES) }]), format);
			const res = await sendEnvelope(project, body, { headers: { "content-encoding": encoding } });
			expect(res.status).toBe(200);
			expect((await issuesOf(project))[0].title).toBe("big");
		});

		it("a compressed body without a Content-Length stops being read past the limit as sent", async ({ expect }) => {
			const project = await sentryProject();
			const body = storedGzip(encoder.encode(`{}\n${JSON.stringify({ type: "attachment", length: 30 * MiB })}\n`), SENT_BYTES + MiB);
			const stream = new ReadableStream<Uint8Array>({
				start(controller) {
					for (let at = 0; at < body.byteLength; at += MiB) controller.enqueue(body.slice(at, at + MiB));
					controller.close();
				},
			});
			const res = await sendEnvelope(project, stream, { headers: { "content-encoding": "gzip" } });
			expect(res.status).toBe(413);
			expect((await res.json<Json>()).error).toBe("Request body exceeds 20971520 bytes as sent");
		});

		it("a compressed body over the limit as sent is refused unread", async ({ expect }) => {
			const project = await sentryProject();
			const res = await sendEnvelope(project, new Uint8Array(SENT_BYTES + 1), { headers: { "content-encoding": "gzip" } });
			expect(res.status).toBe(413);
			expect((await res.json<Json>()).error).toBe("Request body exceeds 20971520 bytes as sent");
		});

		it.for([
			["a body that is not the gzip it claims", "gzip", "not gzip at all", "Request body is not valid gzip data"],
			["an empty gzip body", "gzip", "", "Request body is not valid gzip data"],
			["a one-byte deflate body", "deflate", "x", "Request body is not valid deflate data"],
		] as const)("400 for %s", async ([, encoding, body, message], { expect }) => {
			const project = await sentryProject();
			const res = await sendEnvelope(project, body, { headers: { "content-encoding": encoding } });
			expect(res.status).toBe(400);
			expect((await res.json<Json>()).error).toBe(message);
		});

		it.for([
			["br", /brotli is not supported/],
			["zstd", /Unsupported Content-Encoding "zstd"/],
		] as const)("415 for Content-Encoding %s", async ([encoding, message], { expect }) => {
			const project = await sentryProject();
			const res = await sendEnvelope(project, envelope({}, [{ type: "event", payload: "{}" }]), { headers: { "content-encoding": encoding } });
			expect(res.status).toBe(415);
			expect((await res.json<Json>()).error).toMatch(message);
			expect(res.headers.get("access-control-allow-origin")).toBe("*");
		});
	});
});

describe("Sentry store limits: the body is one event, 1 MiB decompressed", () => {
	const storeOf = (project: SentryProject, body: BodyInit, headers: Record<string, string> = {}) =>
		post(`/api/${project.dsnId}/store/`, body, { headers: { "x-sentry-auth": `Sentry sentry_version=7, sentry_key=${project.rawKey}`, ...headers } });

	it.for([
		[EVENT_BYTES, "identity", 200],
		[EVENT_BYTES + 1, "identity", 413],
		[EVENT_BYTES, "gzip", 200],
		[EVENT_BYTES + 1, "gzip", 413],
		// As the raven clients send it: zlib data, base64-encoded, with no Content-Encoding.
		[EVENT_BYTES, "base64 zlib", 200],
		[EVENT_BYTES + 1, "base64 zlib", 413],
	] as const)("%d bytes (%s) → %d", async ([bytes, encoding, status], { expect }) => {
		const project = await sentryProject();
		const event = eventOfBytes(bytes);
		const res =
			encoding === "gzip"
				? await storeOf(project, await gzip(event), { "content-encoding": "gzip" })
				: encoding === "base64 zlib"
					? await storeOf(project, btoa(String.fromCharCode(...(await gzip(event, "deflate")))))
					: await storeOf(project, event);
		expect(res.status).toBe(status);
		if (status === 413) expect((await res.json<Json>()).error).toBe(`Request body exceeds 1048576 bytes${encoding === "identity" ? "" : " decompressed"}`);
		expect((await issuesOf(project)).map((issue) => issue.title)).toEqual(status === 200 ? ["big"] : []);
	});
});
