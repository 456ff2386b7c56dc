import type { IRequest } from "itty-router";
import { z } from "zod";
import { hasAccess } from "../../domain/accounts/userStore";
import { sha256Hex } from "../../domain/crypto";
import type { ProjectKey } from "../../domain/keys/keyStore";
import { findTokenByHash } from "../../domain/sourcemaps/uploadTokenStore";
import { type OwnerRequest, requireAccess, requireOwner } from "../auth/session";
import { bearerToken, HttpError } from "../http";
import { requireOwnKey } from "../keys/projectKeys";
import { UPLOAD_TOKEN_PREFIX } from "./uploadTokens";

const NO_ACCESS = "The project owner has neither a Pro subscription nor an active trial";

/**
 * The project an upload token uploads for: 401 without one, for a revoked or unknown one and for
 * any other credential; 402 when the project's owner has no access. The lookup is by the token's
 * SHA-256, so timing reveals nothing about stored tokens.
 */
export async function authenticateUploadToken(request: Request, env: Env): Promise<ProjectKey> {
	const raw = bearerToken(request);
	if (!raw) throw new HttpError(401, "Upload token required: send Authorization: Bearer <upload token>");
	if (!raw.startsWith(UPLOAD_TOKEN_PREFIX)) {
		throw new HttpError(401, `Not an upload token: create one for the project (POST /api/upload-tokens); upload tokens start with ${UPLOAD_TOKEN_PREFIX}`);
	}
	const row = await findTokenByHash(env, await sha256Hex(raw));
	if (!row) throw new HttpError(401, "Upload token is not valid: it was revoked, or never existed");
	if (!hasAccess(row.owner)) throw new HttpError(402, NO_ACCESS);
	return row.key;
}

/**
 * The projects sentry-cli names (`SENTRY_PROJECT`, or the DSN's id as a number from the bundler
 * plugins), as text; anything else is `must be text or a number`, not zod's bare "Invalid input".
 */
export const namedProjects = z.array(z.union([z.string(), z.number()], { error: "must be text or a number" }).transform(String));

/**
 * 403 when `named` (sentry-cli's `projects`, or the project in its path) holds a project other
 * than the token's, by DSN id or name.
 */
export function requireTokenProjects(key: ProjectKey, named: string[]): void {
	const own = String(key.dsnId);
	const others = named.filter((project) => project !== own && project !== key.projectName);
	if (others.length > 0) {
		throw new HttpError(403, `This upload token is for project ${own} (${key.projectName}), not ${others.join(", ")}: set SENTRY_PROJECT to ${own}`);
	}
}

/**
 * The project a plain upload goes to: an upload token's own (a `project_name` naming another
 * project is 403), or with the owner's session the owner's project called `projectName` (404 when
 * there is none, 400 without a name).
 */
export async function authenticateUploader(request: IRequest, env: Env, projectName: string | undefined): Promise<ProjectKey> {
	if (bearerToken(request)?.startsWith(UPLOAD_TOKEN_PREFIX)) {
		const key = await authenticateUploadToken(request, env);
		if (projectName !== undefined && projectName !== key.projectName) {
			throw new HttpError(403, `This upload token is for another project, not "${projectName}"`);
		}
		return key;
	}
	await requireOwner(request, env);
	requireAccess(request);
	if (projectName === undefined) throw new HttpError(400, "Invalid request: project_name: is required with a session token");
	return requireOwnKey(env, (request as OwnerRequest).user.id, projectName);
}
