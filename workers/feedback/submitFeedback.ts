import type { IRequest } from "itty-router";
import { attachmentBytes, insertFeedback } from "../../domain/feedback/feedbackStore";
import { readSubmission } from "../../domain/feedback/submission";
import { FEEDBACK_LIMITS, FEEDBACK_RATE } from "../../domain/limits";
import { bearerToken, clientIp, HttpError, json, parseJsonObject, readTextWithin } from "../http";
import { authenticateProjectKey } from "../keys/authenticateKey";
import { enforceRateLimits } from "../rateLimit";

/**
 * POST /functions/v1/submit-feedback (docs/api.md#submit-feedback).
 * Order of checks: key (401/402), rate windows (429) before the body is read, body size (413),
 * JSON (400), configured fields (400 with `fields`), then storage (500 only if it fails).
 */
export async function submitFeedback(request: IRequest, env: Env): Promise<Response> {
	const { key } = await authenticateProjectKey(env, bearerToken(request));
	await enforceRateLimits(
		env,
		[
			{ subject: `ip:${clientIp(request)}`, windows: [FEEDBACK_RATE.perIp] },
			{ subject: `key:${key.id}`, windows: [{ name: "feedback", limit: key.rateLimitPerMinute, windowSeconds: FEEDBACK_RATE.perKeyWindowSeconds }] },
		],
		"Too many feedback submissions",
	);
	// Every feedback 400 has the shape {error, fields}; for unreadable JSON no field is to blame.
	const body = parseJsonObject(await readTextWithin(request, FEEDBACK_LIMITS.bodyChars), { fields: [] });
	const submission = readSubmission(body, key);
	if (!submission.ok) throw new HttpError(400, submission.error, { fields: submission.fields });

	const incoming = submission.images.reduce((sum, image) => sum + image.bytes.byteLength, 0);
	if (incoming > 0 && (await attachmentBytes(env, key.userId, key.projectName)) + incoming > FEEDBACK_LIMITS.attachmentBytesPerProject) {
		throw new HttpError(413, "The project's image storage is full (1 GiB): delete old feedback with images to make room", { fields: [] });
	}

	const feedbackId = crypto.randomUUID();
	const attachments = submission.images.map((image) => ({
		...image,
		id: crypto.randomUUID(),
		objectKey: `feedback/${key.userId}/${feedbackId}/${crypto.randomUUID()}`,
	}));

	try {
		// Images first: a feedback row must never point at an object that was not written.
		await Promise.all(
			attachments.map((a) => env.ATTACHMENTS.put(a.objectKey, a.bytes, { httpMetadata: { contentType: a.contentType } })),
		);
		await insertFeedback(
			env,
			{ id: feedbackId, userId: key.userId, projectName: key.projectName, type: submission.type, data: submission.data },
			attachments.map((a) => ({ id: a.id, field: a.field, contentType: a.contentType, objectKey: a.objectKey, size: a.bytes.byteLength })),
		);
	} catch (err) {
		console.error(`feedback ${feedbackId} could not be stored:`, err);
		if (attachments.length > 0) await env.ATTACHMENTS.delete(attachments.map((a) => a.objectKey)).catch(() => {});
		throw new HttpError(500, "Feedback could not be stored; try again");
	}
	return json({ success: true, id: feedbackId });
}
