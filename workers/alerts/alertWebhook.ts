/**
 * The owner's alerts by webhook (docs/api.md#alerts-owner): one webhook per project, kept in the
 * key's ProjectCollector, which decides on ingestion when an alert is due (an issue opened or
 * reopened; new feedback, unless the owner turned that off). The URL is a secret (a Slack,
 * Discord or Mattermost webhook carries its token): answered to its owner only, never logged.
 */
import type { IRequest } from "itty-router";
import { z } from "zod";
import type { AlertTestView, AlertWebhookAnswer, AlertWebhookView } from "../../domain/api/alerts";
import { issueAlertPayload } from "../../domain/logs/alertPayload";
import { ALERT_LIMITS } from "../../domain/limits";
import type { OwnerRequest } from "../auth/session";
import { HttpError, json, jsonWithSecret, readJsonObject } from "../http";
import { projectNameSchema, requireOwnKey } from "../keys/projectKeys";
import { projectCollectorFor } from "../objects";
import { bodyMembers, parseBody, queryParams } from "../validation";
import { deliverAlert } from "./deliverAlert";

/** Why a webhook URL is refused; null when it is taken. */
function urlProblem(text: string): string | null {
	if (text.length > ALERT_LIMITS.urlChars) return `must be at most ${ALERT_LIMITS.urlChars.toLocaleString("en")} characters`;
	if (!URL.canParse(text)) return "is not a well-formed URL";
	const url = new URL(text);
	if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http or https URL";
	if (url.username || url.password) return "must not carry a user name or password";
	if (!url.hostname) return "must name a host";
	return null;
}

const webhookUrlSchema = z
	.string()
	.trim()
	.min(1)
	.superRefine((text, ctx) => {
		const problem = urlProblem(text);
		if (problem) ctx.addIssue({ code: "custom", message: problem });
	});

const projectQuerySchema = queryParams({ project_name: projectNameSchema });
const setBodySchema = bodyMembers({ project_name: projectNameSchema, url: webhookUrlSchema, feedback: z.boolean().optional() });
const testBodySchema = bodyMembers({ project_name: projectNameSchema });

/** The owner's key's object for the project named, else 404. */
async function ownCollector(request: IRequest, env: Env, projectName: string) {
	const key = await requireOwnKey(env, (request as OwnerRequest).user.id, projectName);
	return { key, collector: projectCollectorFor(env, key.id) };
}

/** PUT /api/alert-webhook {project_name, url, feedback?} → 200 the webhook; `feedback` left out is on for a first webhook, kept for a change. */
export async function setAlertWebhook(request: IRequest, env: Env): Promise<Response> {
	const { project_name, url, feedback } = parseBody(setBodySchema, await readJsonObject(request));
	const { collector } = await ownCollector(request, env, project_name);
	const webhook = await collector.alertWebhook({ url, consoleOrigin: new URL(request.url).origin, feedback });
	return jsonWithSecret(webhook satisfies AlertWebhookView | null);
}

/** GET /api/alert-webhook?project_name= → {webhook: {...} | null}. */
export async function readAlertWebhook(request: IRequest, env: Env): Promise<Response> {
	const { project_name } = parseBody(projectQuerySchema, request.query);
	const { collector } = await ownCollector(request, env, project_name);
	return jsonWithSecret({ webhook: await collector.alertWebhook() } satisfies AlertWebhookAnswer);
}

/** DELETE /api/alert-webhook?project_name= → 204, whether one was set or not. */
export async function removeAlertWebhook(request: IRequest, env: Env): Promise<Response> {
	const { project_name } = parseBody(projectQuerySchema, request.query);
	const { collector } = await ownCollector(request, env, project_name);
	await collector.alertWebhook({ url: null, consoleOrigin: "" });
	return new Response(null, { status: 204 });
}

/**
 * POST /api/alert-webhook/test {project_name} → 200 {delivered, status, error?}: a test alert sent
 * now, the receiver's answer awaited (5 s at most) and kept as the last delivery. A receiver that
 * fails is still a 200 here, with delivered false; 409 when no webhook is set.
 */
export async function testAlertWebhook(request: IRequest, env: Env): Promise<Response> {
	const { project_name } = parseBody(testBodySchema, await readJsonObject(request));
	const { key, collector } = await ownCollector(request, env, project_name);
	const webhook = await collector.alertWebhook();
	if (!webhook) throw new HttpError(409, "No alert webhook is set for this project: set one first");
	const now = Date.now();
	const payload = issueAlertPayload(
		"test",
		project_name,
		new URL(request.url).origin,
		{ groupHash: "0".repeat(32), title: "This is a test alert from svc", culprit: null, level: "info", count: 1, firstSeen: now, lastSeen: now, shortId: null },
		{ eventId: null, environment: null, release: null, timestamp: now },
	);
	const delivery = await deliverAlert(env, key.id, { url: webhook.url, payload });
	const answer: AlertTestView = { delivered: delivery.delivered, status: delivery.status, ...(delivery.error !== null && { error: delivery.error }) };
	return json(answer);
}
