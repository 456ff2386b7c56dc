import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { cutText, isNameText } from "../domain/text";
import { collect, crawlIngest, ownerWithSite, pageview, storedEvents, storedVisits } from "./analytics-helpers";
import { call, ownerWithKey, signUp, submitFeedback, unique } from "./helpers";
import { ingestOk, issueGrouper, ownerWithLogKey, storedEvents as storedLogEvents } from "./logHelpers";

/**
 * Faults an attack run found, each a rule in domain/text.ts now: numbers are finite, every stored
 * string is well-formed Unicode cut on whole code points and within its limit after storage, and
 * names are text a query string can carry back.
 */

const EMOJI = "😀"; // two UTF-16 units
const LONE = "\ud800"; // half a surrogate pair, which JSON can carry as "\ud800"

/** JSON text with the lone surrogates escaped, as a client would send them. */
const rawJson = (value: unknown) => JSON.stringify(value);

const wellFormedWithin = (text: string, max: number) => text.isWellFormed() && text.length <= max;

describe("cutText and isNameText", () => {
	it.for([
		["ascii at the limit", "a".repeat(10), 10, "a".repeat(10)],
		["ascii one past", "a".repeat(11), 10, "a".repeat(10)],
		["an emoji across the cut is left out whole", `${"a".repeat(9)}${EMOJI}`, 10, "a".repeat(9)],
		["an emoji that fits is kept", `${"a".repeat(8)}${EMOJI}x`, 10, `${"a".repeat(8)}${EMOJI}`],
		["a lone surrogate becomes U+FFFD, one unit", `${LONE}b`, 10, "\ufffdb"],
	] as const)("%s", ([, input, max, expected], { expect }) => {
		expect(cutText(input, max)).toBe(expected);
	});

	it("takes names as typed, refuses lone surrogates and control characters", ({ expect }) => {
		expect(isNameText("Shop 🛒 ストア")).toBe(true);
		expect(isNameText(`shop${LONE}`)).toBe(false);
		expect(isNameText("shop\u0000")).toBe(false);
		expect(isNameText("shop\n")).toBe(false);
	});

	it("refuses characters that reorder or hide a name, and keeps the joiners emoji and scripts need", ({ expect }) => {
		for (const hidden of ["\u202e", "\u2066", "\u200f", "\u200b", "\u2060", "\ufeff", "\u061c"]) expect(isNameText(`shop${hidden}gnp`), hidden).toBe(false);
		expect(isNameText("👩\u200d💻 shop")).toBe(true);
		expect(isNameText("می\u200cخواهم")).toBe(true);
	});
});

describe("feedback", () => {
	it("keeps only finite numbers: an extra 1e309 is not stored, a configured number 1e309 is a 400", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		const res = await submitFeedback(rawKey, null, { raw: '{"type":"issue","title":"t","description":"d","score":1e309,"ok":2}' });
		expect(res.status).toBe(200);
		const list = await call(`/api/feedback?project_name=${encodeURIComponent(projectName)}`, { token }).then((r) => r.json<any>());
		expect(list.feedback[0].data).not.toHaveProperty("score");
		expect(list.feedback[0].data.ok).toBe(2);

		await call("/api/feedback-key", {
			method: "PATCH",
			token,
			json: { project_name: projectName, issue_field_config: [{ key: "rating", label: "Rating", type: "number", required: true }] },
		});
		const bad = await submitFeedback(rawKey, null, { raw: '{"type":"issue","rating":1e309}' });
		expect(bad.status).toBe(400);
		expect(await bad.json()).toMatchObject({ fields: ["rating"] });
	});

	it("cuts text on whole code points and stores lone surrogates as U+FFFD, within every limit", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		const body = {
			type: "issue",
			title: EMOJI.repeat(300), // 600 units for a 500 limit: the cut falls between two halves
			description: LONE.repeat(10_001),
			note: `x${EMOJI.repeat(300)}`, // an extra: 500, cut inside the 250th emoji
		};
		expect((await submitFeedback(rawKey, null, { raw: rawJson(body) })).status).toBe(200);
		const list = await call(`/api/feedback?project_name=${encodeURIComponent(projectName)}`, { token }).then((r) => r.json<any>());
		const { data } = await call(`/api/feedback/${list.feedback[0].id}`, { token }).then((r) => r.json<any>());
		expect(data.title).toBe(EMOJI.repeat(250));
		expect(data.description).toBe("\ufffd".repeat(10_000));
		expect(data.note).toBe(`x${EMOJI.repeat(249)}`);
		for (const value of [data.title, data.description, data.note]) expect(value.isWellFormed()).toBe(true);
	});

	it("leaves out an extra field whose key is not well-formed", async ({ expect }) => {
		const { rawKey, token, projectName } = await ownerWithKey();
		const res = await submitFeedback(rawKey, null, { raw: `{"type":"issue","title":"t","description":"d","k\\ud800":"v","fine":"w"}` });
		expect(res.status).toBe(200);
		const list = await call(`/api/feedback?project_name=${encodeURIComponent(projectName)}`, { token }).then((r) => r.json<any>());
		expect(Object.keys(list.feedback[0].data).sort()).toEqual(["description", "fine", "title"]);
	});
});

describe("analytics and crawler text stays within its limit after the outbox moves it to D1", () => {
	it("a title of 500 lone surrogates is stored as 500 characters, an emoji title cut whole", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const t = site.tracking_id;
		expect((await collect(null, { raw: rawJson(pageview(t, { title: LONE.repeat(500), url_path: `/${EMOJI.repeat(1_000)}` })) })).status).toBe(204);
		const [event] = await storedEvents(t);
		expect(event.title).toBe("\ufffd".repeat(500));
		expect(wellFormedWithin(event.url_path, 2_000)).toBe(true);
		expect(event.url_path).toBe(`/${EMOJI.repeat(999)}`);
	});

	it("a crawler path of lone surrogates is stored one character each", async ({ expect }) => {
		const { site } = await ownerWithSite();
		// Escaped, six characters each: 1,600 is as many as a 10,000-character body carries.
		const body = { tracking_id: site.tracking_id, url_host: "example.com", url_path: LONE.repeat(1_600), ua: "GPTBot/1.2" };
		expect((await crawlIngest(null, { raw: rawJson(body) })).status).toBe(204);
		const [visit] = await storedVisits(site.tracking_id);
		expect(visit.url_path).toBe("\ufffd".repeat(1_600));
	});
});

describe("logs", () => {
	it("cut on whole code points, lone surrogates replaced, tag keys that are not well-formed left out", async ({ expect }) => {
		const { rawKey, keyId } = await ownerWithLogKey();
		await ingestOk(rawKey, { message: `${"a".repeat(8_191)}${EMOJI}`, tags: { [`k${LONE}`]: "x", fine: LONE.repeat(3) } });
		await issueGrouper(keyId).flush();
		const [{ event }] = await storedLogEvents(keyId);
		expect(event.message).toBe("a".repeat(8_191));
		expect(event.tags.fine).toBe("\ufffd".repeat(3));
		expect(Object.keys(event.tags)).not.toContain(`k${LONE}`);
		expect(JSON.stringify(event)).not.toMatch(/\\ud[89ab]/i);
	});
});

describe("names a query string can carry back", () => {
	it("refuses a project or site name that is not well-formed text", async ({ expect }) => {
		const { token } = await signUp();
		const res = await call("/api/feedback-key", { method: "POST", token, body: `{"project_name":"shop${"\\ud800"}"}`, headers: { "content-type": "application/json" } });
		expect(res.status).toBe(400);
		expect(await res.json()).toMatchObject({ error: expect.stringContaining("well-formed") });
		const site = await call("/api/sites", { method: "POST", token, json: { domain: "example.com", name: "tab\there" } });
		expect(site.status).toBe(400);
		expect(await env.DB.prepare("select count(*) as n from project_keys where project_name like 'shop%'").first<{ n: number }>()).toEqual({ n: 0 });
	});

	it("refuses a name that reads as another: a right-to-left override, a zero-width space", async ({ expect }) => {
		const { token } = await signUp();
		for (const name of ["invoice\u202egnp.exe", "\u200b"]) {
			const res = await call("/api/feedback-key", { method: "POST", token, json: { project_name: name } });
			expect(res.status, name).toBe(400);
			expect(await res.json()).toMatchObject({ error: expect.stringContaining("direction or zero-width") });
		}
		expect((await call("/api/sites", { method: "POST", token, json: { domain: "example.com", name: "shop\u2066x" } })).status).toBe(400);
	});

	it("reads and deletes a name of any script through ?project_name=", async ({ expect }) => {
		const { token } = await signUp();
		const name = `${unique("ショップ")} 🛒 & co/?#`;
		expect((await call("/api/feedback-key", { method: "POST", token, json: { project_name: name } })).status).toBe(201);
		const query = `?project_name=${encodeURIComponent(name)}`;
		expect(await call(`/api/feedback-key${query}`, { token }).then((r) => r.json<any>())).toMatchObject({ project_name: name });
		expect((await call(`/api/feedback-key${query}`, { method: "DELETE", token })).status).toBe(200);
		expect((await call(`/api/feedback-key${query}`, { token })).status).toBe(404);
	});
});
