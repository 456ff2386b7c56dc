/**
 * Upload tokens, owner side (docs/api.md#upload-tokens): create (the raw token once), list
 * (hints), revoke. A token uploads source maps for its project and can do nothing else.
 */
import type { IRequest } from "itty-router";
import { z } from "zod";
import type { NewUploadTokenView, UploadTokenView } from "../../domain/api/sourcemaps";
import { randomSecret, sha256Hex } from "../../domain/crypto";
import { ARTIFACT_LIMITS } from "../../domain/limits";
import {
	countKeyTokens,
	deleteOwnToken,
	deleteToken,
	insertUploadToken,
	listKeyTokens,
	type UploadToken,
} from "../../domain/sourcemaps/uploadTokenStore";
import type { OwnerRequest } from "../auth/session";
import { HttpError, json, jsonWithSecret, readJsonObject } from "../http";
import { projectNameSchema, requireOwnKey } from "../keys/projectKeys";
import { parseBody } from "../validation";

/** Raw upload tokens: `svcu_` and 43 letters and digits (256 random bits). */
export const UPLOAD_TOKEN_PREFIX = "svcu_";

const projectSchema = z.object({ project_name: projectNameSchema });

const tokenView = (token: UploadToken, projectName: string): UploadTokenView => ({
	id: token.id,
	project_name: projectName,
	token_hint: token.tokenHint,
	created_at: token.createdAt.toISOString(),
});

/** POST /api/upload-tokens {project_name} → 201 {id, token, token_hint, project_name, created_at}, the raw token once. */
export async function createUploadToken(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name } = parseBody(projectSchema, await readJsonObject(request));
	const key = await requireOwnKey(env, user.id, project_name);
	const cap = ARTIFACT_LIMITS.uploadTokensPerProject;
	const atCap = () => new HttpError(403, `A project holds at most ${cap} upload tokens: revoke one to add another`);
	if ((await countKeyTokens(env, key.id)) >= cap) throw atCap();
	const raw = randomSecret(UPLOAD_TOKEN_PREFIX);
	const token = await insertUploadToken(env, { userId: user.id, keyId: key.id, tokenHash: await sha256Hex(raw), tokenHint: raw.slice(-4) });
	// Two creations at once may both pass the count: whichever finds the cap passed takes its token back.
	if ((await countKeyTokens(env, key.id)) > cap) {
		await deleteToken(env, token.id);
		throw atCap();
	}
	const created: NewUploadTokenView = { ...tokenView(token, project_name), token: raw };
	return jsonWithSecret(created, { status: 201 });
}

/** GET /api/upload-tokens?project_name= → {tokens: [...]}, newest first, hints only. */
export async function listUploadTokens(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name } = parseBody(projectSchema, request.query);
	const key = await requireOwnKey(env, user.id, project_name);
	return json({ tokens: (await listKeyTokens(env, key.id)).map((token) => tokenView(token, project_name)) });
}

/** DELETE /api/upload-tokens/:id → {deleted: true, id}: the token stops working at once. */
export async function revokeUploadToken(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const id = request.params.id ?? "";
	const deleted = z.uuid().safeParse(id).success ? await deleteOwnToken(env, user.id, id) : undefined;
	if (!deleted) throw new HttpError(404, "No such upload token");
	return json({ deleted: true, id });
}
