// Notes the owner leaves on an issue (Sentry's comments), kept in its activity.
import { describe, expect, it } from "vitest";
import { OWNER_LIMITS } from "../domain/limits";
import { call, signUp } from "./helpers";
import { ingestOk, issueOf, ownerWithLogKey } from "./logHelpers";

type Owner = Awaited<ReturnType<typeof ownerWithLogKey>>;

const addNote = (owner: Owner, groupHash: string, body: Record<string, unknown>, token = owner.token) =>
	call(`/api/issues/${groupHash}/notes`, { method: "POST", token, json: { project_name: owner.projectName, ...body } });

describe("notes on an issue (POST /api/issues/:group_hash/notes)", () => {
	it("keeps the note, trimmed, in the issue's activity, newest first among the status changes", async () => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "Checkout failed" });
		const before = Date.now();
		const res = await addNote(owner, group_hash, { text: "  Caused by the card form's new validation.\nFix in #482.  " });
		expect(res.status).toBe(201);
		const note = await res.json<{ kind: string; text: string; at: string }>();
		expect(note).toMatchObject({ kind: "note", text: "Caused by the card form's new validation.\nFix in #482." });
		expect(Date.parse(note.at)).toBeGreaterThanOrEqual(before);
		expect((await call(`/api/issues/${group_hash}`, { method: "PATCH", token: owner.token, json: { project_name: owner.projectName, status: "resolved" } })).status).toBe(200);
		const { activity } = await issueOf(owner, group_hash);
		expect(activity.map(({ kind }: { kind: string }) => kind)).toEqual(["resolved", "note"]);
		expect(activity[1]).toEqual(note);
	});

	it("takes 2,000 characters and refuses 2,001, or none", async () => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "Checkout failed" });
		expect((await addNote(owner, group_hash, { text: "n".repeat(2_000) })).status).toBe(201);
		const long = await addNote(owner, group_hash, { text: "n".repeat(2_001) });
		expect(long.status).toBe(400);
		expect((await long.json<{ error: string }>()).error).toBe("Invalid request: text: must be at most 2,000 characters");
		// A refused field counts code points (docs/limits.md): an emoji is one character.
		expect((await addNote(owner, group_hash, { text: "\u{1f600}".repeat(2_000) })).status).toBe(201);
		expect((await addNote(owner, group_hash, { text: "\u{1f600}".repeat(2_001) })).status).toBe(400);
		for (const text of ["", " \n\t "]) {
			const empty = await addNote(owner, group_hash, { text });
			expect(empty.status).toBe(400);
			expect((await empty.json<{ error: string }>()).error).toBe("Invalid request: text: must not be empty");
		}
		expect((await addNote(owner, group_hash, {})).status).toBe(400);
		expect((await addNote(owner, group_hash, { text: 7 })).status).toBe(400);
		expect((await addNote(owner, group_hash, { text: "x", extra: 1 })).status).toBe(400);
		expect((await issueOf(owner, group_hash)).activity).toHaveLength(2);
	});

	it("stores a lone surrogate as U+FFFD, and a whole emoji as sent", async () => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "Checkout failed" });
		const res = await addNote(owner, group_hash, { text: "cut \ud83d here, whole \ud83d\ude00" });
		expect(res.status).toBe(201);
		expect((await res.json<{ text: string }>()).text).toBe("cut \ufffd here, whole \u{1f600}");
		expect((await issueOf(owner, group_hash)).activity[0].text).toBe("cut \ufffd here, whole \u{1f600}");
	});

	it("404 for no such issue or another owner's project, 400 for a hash of the wrong shape, 401 signed out", async () => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "Checkout failed" });
		expect((await addNote(owner, "0".repeat(32), { text: "x" })).status).toBe(404);
		expect((await addNote(owner, "not-a-hash", { text: "x" })).status).toBe(400);
		const stranger = await signUp();
		expect((await addNote(owner, group_hash, { text: "x" }, stranger.token)).status).toBe(404);
		expect((await call(`/api/issues/${group_hash}/notes`, { method: "POST", json: { project_name: owner.projectName, text: "x" } })).status).toBe(401);
		expect((await issueOf(owner, group_hash)).activity).toEqual([]);
	});

	it("go with an issue merged into another, in their places, and one left on it afterwards is the merged issue's", async () => {
		const owner = await ownerWithLogKey();
		const first = await ingestOk(owner.rawKey, { message: "Checkout failed" });
		await ingestOk(owner.rawKey, { message: "Checkout failed" });
		const second = await ingestOk(owner.rawKey, { message: "Payment failed" });
		expect((await addNote(owner, second.group_hash, { text: "Seen with the new card form" })).status).toBe(201);
		expect((await addNote(owner, first.group_hash, { text: "Checkout: card form" })).status).toBe(201);
		expect((await call(`/api/issues/${second.group_hash}`, { method: "PATCH", token: owner.token, json: { project_name: owner.projectName, status: "resolved" } })).status).toBe(200);
		const merged = await call("/api/issues/merge", { method: "POST", token: owner.token, json: { project_name: owner.projectName, group_hashes: [first.group_hash, second.group_hash] } });
		expect(merged.status).toBe(200);
		expect((await addNote(owner, second.group_hash, { text: "Same root cause" })).status).toBe(201);
		const { activity } = await issueOf(owner, first.group_hash);
		// The merged issue's own status changes stay behind, as before; its notes do not.
		expect(activity.map(({ kind, text }: { kind: string; text?: string }) => text ?? kind)).toEqual(["Same root cause", "merged", "Checkout: card form", "Seen with the new card form"]);
	});

	it(`are kept apart from the status changes: ${OWNER_LIMITS.issueActivity} of each, so a busy issue never pushes a note out`, async () => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "Checkout failed" });
		expect((await addNote(owner, group_hash, { text: "note 0" })).status).toBe(201);
		const statuses = ["resolved", "open"] as const;
		for (let i = 0; i <= OWNER_LIMITS.issueActivity; i++) {
			const res = await call(`/api/issues/${group_hash}`, { method: "PATCH", token: owner.token, json: { project_name: owner.projectName, status: statuses[i % 2] } });
			expect(res.status).toBe(200);
		}
		let activity: { kind: string; text?: string }[] = (await issueOf(owner, group_hash)).activity;
		expect(activity).toHaveLength(OWNER_LIMITS.issueActivity + 1);
		expect(activity.at(-1)).toMatchObject({ kind: "note", text: "note 0" });
		expect(activity.filter((entry) => entry.kind !== "note")).toHaveLength(OWNER_LIMITS.issueActivity);

		for (let i = 1; i <= OWNER_LIMITS.issueActivity; i++) expect((await addNote(owner, group_hash, { text: `note ${i}` })).status).toBe(201);
		activity = (await issueOf(owner, group_hash)).activity;
		const notes = activity.filter((entry) => entry.kind === "note").map((entry) => entry.text);
		expect(notes).toHaveLength(OWNER_LIMITS.issueActivity);
		expect([notes[0], notes.at(-1)]).toEqual([`note ${OWNER_LIMITS.issueActivity}`, "note 1"]);
		expect(activity).toHaveLength(2 * OWNER_LIMITS.issueActivity);
	});
});
