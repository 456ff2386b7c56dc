// Alerts by webhook, as the tests reach them: the owner's routes, and the key's object's answers
// to an event or feedback handed to it as the Worker hands them.
import { runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import type { ProjectCollector } from "../durable-objects/ProjectCollector";
import type { FeedbackOutcome, LogOutcome } from "../durable-objects/projectCommands";
import { sha256Hex } from "../domain/crypto";
import { call, uniqueIp } from "./helpers";
import { issueGrouper, ownerWithLogKey } from "./logHelpers";

export type Json = Record<string, any>;
export type Owner = Awaited<ReturnType<typeof ownerWithLogKey>>;

/** Nothing listens there: a delivery fails at once, and its failure is kept. */
export const DEAD_HOOK = "http://127.0.0.1:9/hooks/T000/B000/secret-token";

export const putHook = (owner: { token: string; projectName: string }, url: unknown, token: string | undefined = owner.token, more: Json = {}) =>
	call("/api/alert-webhook", { method: "PUT", token, json: { project_name: owner.projectName, url, ...more } });
export const hookQuery = (owner: { projectName: string }) => `/api/alert-webhook?${new URLSearchParams({ project_name: owner.projectName })}`;
export const readHook = async (owner: { token: string; projectName: string }): Promise<Json | null> => {
	const res = await call(hookQuery(owner), { token: owner.token });
	expect(res.status).toBe(200);
	return (await res.json<Json>()).webhook;
};

export async function ownerWithHook(): Promise<Owner> {
	const owner = await ownerWithLogKey();
	expect((await putHook(owner, DEAD_HOOK)).status).toBe(200);
	return owner;
}

/** An event handed to the key's object as the Worker hands it, and the object's answer (alert and all). */
export async function toObject(owner: Owner, groupHash: string, extra: Json = {}): Promise<Extract<LogOutcome, { status: "accepted" }>> {
	const now = Date.now();
	const command = {
		keyId: owner.keyId,
		keyHash: await sha256Hex(owner.rawKey),
		ip: uniqueIp(),
		artifactsVersion: 0,
		body: {
			groupHash,
			previousGroupHash: null,
			title: `TypeError: ${groupHash} is undefined`,
			culprit: "checkout.js",
			level: "error",
			environment: "production",
			release: null,
			userKey: null,
			unhandled: false,
			eventId: crypto.randomUUID(),
			clientEventId: null,
			receivedAt: now,
			timestamp: now,
			eventJson: "{}",
			...extra,
		},
	};
	const [result] = await issueGrouper(owner.keyId).calls([{ method: "ingestLog", command }]);
	if (!("outcome" in result) || result.outcome.status !== "accepted") throw new Error(`not accepted: ${JSON.stringify(result)}`);
	return result.outcome as Extract<LogOutcome, { status: "accepted" }>;
}

export const actionOf = (outcome: { alert?: { payload: { action: string } } }) => outcome.alert?.payload.action ?? null;
/** A group hash (32 hex digits, as the grouping makes them) named after `name`. */
export const hash = (name: string) => [...name].map((c) => c.charCodeAt(0).toString(16)).join("").padEnd(32, "0");

/** Runs SQL in the key's object (to age what its bounds noted). */
export const inObject = (owner: Owner, sql: string, ...params: SqlStorageValue[]) =>
	runInDurableObject(issueGrouper(owner.keyId), (_: ProjectCollector, state) => void state.storage.sql.exec(sql, ...params));

/** Feedback handed to the key's object as the Worker hands it, and the object's answer (alert and all). */
export async function feedbackToObject(owner: Owner, body: Json): Promise<FeedbackOutcome> {
	const command = { keyId: owner.keyId, keyHash: await sha256Hex(owner.rawKey), ip: uniqueIp(), body };
	const [result] = await issueGrouper(owner.keyId).calls([{ method: "submitFeedback", command }]);
	if (!("outcome" in result)) throw new Error(`failed: ${result.failed}`);
	return result.outcome as FeedbackOutcome;
}
export const accepted = (outcome: FeedbackOutcome) => (outcome.status === "accepted" ? outcome : expect.unreachable(`not accepted: ${JSON.stringify(outcome)}`));

/** What the bounds noted in the key's object: the alerts sent in the last hour. */
export const alertsSent = (owner: Owner) =>
	runInDurableObject(issueGrouper(owner.keyId), (_: ProjectCollector, state) => state.storage.sql.exec(`SELECT hash, action FROM alerts_sent`).toArray());

/** The webhook's last delivery, once the alert sent after an answer has been tried. */
export async function lastDelivery(owner: { token: string; projectName: string }): Promise<Json | null> {
	// Up to 15 s: a failing receiver is tried again after 1 and 4 s before the outcome is kept.
	for (let i = 0; i < 600; i++, await new Promise((resolve) => setTimeout(resolve, 25))) {
		const last = (await readHook(owner))?.last_delivery;
		if (last) return last;
	}
	return null;
}

