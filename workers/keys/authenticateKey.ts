import { hasAccess } from "../../domain/accounts/userStore";
import { sha256Hex } from "../../domain/crypto";
import { findKeyByHash } from "../../domain/keys/keyStore";
import { HttpError } from "../http";

/**
 * Resolves a raw project key sent to an ingestion endpoint to its row and owner: 401 when it
 * matches no key, 402 when the owner has neither Pro nor a running trial.
 *
 * The lookup is by SHA-256 of the presented key, so no stored secret is compared byte by byte
 * with attacker input: timing reveals nothing about any stored key.
 */
export async function authenticateProjectKey(env: Env, rawKey: string | null) {
	if (!rawKey) throw new HttpError(401, "Project key required");
	const row = await findKeyByHash(env, await sha256Hex(rawKey));
	if (!row) throw new HttpError(401, "Project key is not valid");
	if (!hasAccess(row.owner)) throw new HttpError(402, "The project owner has neither a Pro subscription nor an active trial");
	return row;
}
