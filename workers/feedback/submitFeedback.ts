import type { IRequest } from "itty-router";
import { FEEDBACK_LIMITS } from "../../domain/limits";
import { bearerToken, json, parseJsonObject, readTextWithin } from "../http";
import { presentedKey, sourceAddressTag } from "../keys/authenticateKey";
import { answerOf, bodyOrProblem, orStorageFailure } from "../keys/keyAnswers";
import { projectCollectorFor } from "../objects";

/**
 * POST /functions/v1/submit-feedback (docs/api.md#submit-feedback).
 * Order of answers: key (401/402), the IP's and the key's windows (429), body size (413), JSON
 * (400), configured fields (400 with `fields`), image storage (413), then storage (500 only if
 * it fails). The body is read here, within its limit, and everything else is decided in one
 * call to the key's ProjectCollector, which stores an accepted submission before answering.
 */
export async function submitFeedback(request: IRequest, env: Env): Promise<Response> {
	const key = await presentedKey(env, bearerToken(request));
	// Every feedback 400 has the shape {error, fields}; for unreadable JSON no field is to blame.
	const body = await bodyOrProblem(async () => parseJsonObject(await readTextWithin(request, FEEDBACK_LIMITS.bodyChars), { fields: [] }));
	const outcome = await orStorageFailure(
		projectCollectorFor(env, key.keyId).submitFeedback({ keyId: key.keyId, keyHash: key.keyHash, ip: await sourceAddressTag(key, request), ...body }),
		"Feedback",
	);
	const { id } = answerOf(key, outcome);
	return json({ success: true, id });
}
