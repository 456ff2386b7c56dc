import type { IRequest } from "itty-router";
import { readableBody } from "../../domain/feedback/submission";
import { FEEDBACK_LIMITS } from "../../domain/limits";
import { sendAlertLater } from "../alerts/deliverAlert";
import { bearerToken, json, parseJsonObject, readTextWithin } from "../http";
import { presentedKey, sourceAddressTag } from "../keys/authenticateKey";
import { answerOf, bodyOrProblem, orStorageFailure } from "../keys/keyAnswers";
import { callProjectCollector } from "../keys/projectCalls";

/**
 * POST /functions/v1/submit-feedback (docs/api.md#submit-feedback).
 * Order of answers: key (401/402), the IP's and the key's windows (429), body size (413), JSON
 * (400), configured fields (400 with `fields`), image storage (413), then storage (500 only if
 * it fails). The body is read here, within its limit, and everything else is decided in one
 * call to the key's ProjectCollector (sent with the isolate's other calls to it meanwhile),
 * which stores an accepted submission before answering. A feedback alert it finds due goes to the
 * webhook after the answer.
 */
export async function submitFeedback(request: IRequest, env: Env, ctx: ExecutionContext): Promise<Response> {
	const key = await presentedKey(env, bearerToken(request));
	let chars = 0;
	const body = await bodyOrProblem(async () => {
		const text = await readTextWithin(request, FEEDBACK_LIMITS.bodyChars);
		chars = text.length;
		// Every feedback 400 has the shape {error, fields}; for unreadable JSON no field is to blame.
		return readableBody(parseJsonObject(text, { fields: [] }));
	});
	const command = { keyId: key.keyId, keyHash: key.keyHash, ip: await sourceAddressTag(key, request), ...body };
	const outcome = await orStorageFailure(callProjectCollector(env, ctx, key.keyId, "submitFeedback", command, chars), "Feedback");
	const { id, alert } = answerOf(key, outcome);
	if (alert) sendAlertLater(env, ctx, key.keyId, alert);
	return json({ success: true, id });
}
