import type { IRequest } from "itty-router";
import { z } from "zod";
import type { NewProjectKeyView, ProjectKeyView } from "../../domain/api/keys";
import { randomSecret, SECRET_PREFIXES, sha256Hex } from "../../domain/crypto";
import { dsnTemplate, sentryDsn } from "../../domain/keys/dsn";
import { fieldConfigSchema } from "../../domain/keys/fieldConfig";
import { countOwnKeys, deleteKey, findOwnKey, insertKey, listOwnKeys, type ProjectKey, updateOwnKey } from "../../domain/keys/keyStore";
import { ACCOUNT_RATE, OWNER_LIMITS } from "../../domain/limits";
import { deleteKeyLogs } from "../../domain/logs/logStore";
import { deleteProjectObjects } from "../../domain/sourcemaps/artifactStore";
import type { OwnerRequest } from "../auth/session";
import { HttpError, json, jsonWithSecret, readJsonObject } from "../http";
import { keysChanged, projectCollectorFor } from "../objects";
import { enforceRateLimits } from "../rateLimit";
import { bodyMembers, parseBody } from "../validation";
import { isNameText, NAME_TEXT_RULE } from "../../domain/text";

export const projectNameSchema = z.string().trim().min(1, "is required").max(100, "must be at most 100 characters").refine(isNameText, NAME_TEXT_RULE);
const projectQuerySchema = z.object({ project_name: projectNameSchema });

/**
 * The key as every answer shows it: a hint, never the raw key or its hash, and the Sentry DSN
 * with the key left out. `origin` is where the request came to, the host SDKs must send to.
 */
function keyView(key: ProjectKey, origin: string): ProjectKeyView {
	return {
		project_name: key.projectName,
		key_hint: key.keyHint,
		rate_limit_per_minute: key.rateLimitPerMinute,
		logs_rate_limit_per_minute: key.logsRateLimitPerMinute,
		logs_enabled: key.logsEnabled,
		filter_browser_extensions: key.filterBrowserExtensions,
		issue_field_config: key.issueFieldConfig,
		feature_field_config: key.featureFieldConfig,
		created_at: key.createdAt.toISOString(),
		dsn_template: key.dsnId === null ? null : dsnTemplate(origin, key.dsnId),
	};
}

const originOf = (request: Request) => new URL(request.url).origin;

/** Create and regenerate answers: the view plus the raw key, shown once, and the DSN holding it. */
function viewWithSecret(key: ProjectKey, origin: string, rawKey: string): NewProjectKeyView {
	return { ...keyView(key, origin), raw_api_key: rawKey, dsn: key.dsnId === null ? null : sentryDsn(origin, rawKey, key.dsnId) };
}

/** A fresh raw key (returned once) and what is stored of it. */
async function mintKey() {
	const raw = randomSecret(SECRET_PREFIXES.projectKey);
	return { raw, stored: { keyHash: await sha256Hex(raw), keyHint: raw.slice(-4) } };
}

const noSuchKey = (projectName: string) => new HttpError(404, `No project key for project "${projectName}"`);

/** The owner's key for a project, else 404: another owner's project is indistinguishable from none. */
export async function requireOwnKey(env: Env, userId: string, projectName: string): Promise<ProjectKey> {
	const key = await findOwnKey(env, userId, projectName);
	if (!key) throw noSuchKey(projectName);
	return key;
}

/** GET /api/feedback-keys → {keys: [...]}, every project key of the owner. */
export async function listKeys(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const origin = originOf(request);
	return json({ keys: (await listOwnKeys(env, user.id)).map((key) => keyView(key, origin)) });
}

/** GET /api/feedback-key?project_name= */
export async function readKey(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name } = parseBody(projectQuerySchema, request.query);
	return json(keyView(await requireOwnKey(env, user.id, project_name), originOf(request)));
}

/** POST /api/feedback-key {project_name} → 201, raw_api_key once, default schemas. */
export async function createKey(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name } = parseBody(projectQuerySchema, await readJsonObject(request));
	const cap = OWNER_LIMITS.keysPerOwner;
	const atCap = () => new HttpError(403, `An account holds at most ${cap} project keys: revoke one to add another`);
	if ((await countOwnKeys(env, user.id)) >= cap) throw atCap();
	const { raw, stored } = await mintKey();
	const key = await insertKey(env, user.id, project_name, stored);
	if (!key) throw new HttpError(409, `Project "${project_name}" already has a key: regenerate it instead`);
	// Two creations at once may both pass the count: whichever finds the cap passed takes its key back.
	if ((await countOwnKeys(env, user.id)) > cap) {
		await deleteKey(env, key.id);
		throw atCap();
	}
	return jsonWithSecret(viewWithSecret(key, originOf(request), raw), { status: 201 });
}

const configurationSchema = bodyMembers({
	project_name: projectNameSchema,
	issue_field_config: fieldConfigSchema.optional(),
	feature_field_config: fieldConfigSchema.optional(),
	rate_limit_per_minute: z.number().int().min(1).max(OWNER_LIMITS.feedbackRatePerMinuteMax).optional(),
	logs_rate_limit_per_minute: z.number().int().min(1).max(OWNER_LIMITS.logsRatePerMinuteMax).optional(),
	logs_enabled: z.boolean().optional(),
	filter_browser_extensions: z.boolean().optional(),
}).refine(({ project_name, ...configuration }) => Object.values(configuration).some((value) => value !== undefined), {
	message:
		"at least one configuration field is required: issue_field_config, feature_field_config, rate_limit_per_minute, logs_rate_limit_per_minute, logs_enabled or filter_browser_extensions",
});

/** PATCH /api/feedback-key {project_name, ...configuration} */
export async function updateKeyConfiguration(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const input = parseBody(configurationSchema, await readJsonObject(request));
	const key = await updateOwnKey(env, user.id, input.project_name, {
		issueFieldConfig: input.issue_field_config,
		featureFieldConfig: input.feature_field_config,
		rateLimitPerMinute: input.rate_limit_per_minute,
		logsRateLimitPerMinute: input.logs_rate_limit_per_minute,
		logsEnabled: input.logs_enabled,
		filterBrowserExtensions: input.filter_browser_extensions,
	});
	if (!key) throw noSuchKey(input.project_name);
	// The key's object answers ingestion from what it loaded: it reloads on its next request.
	await keysChanged(env, [key.id]);
	return json(keyView(key, originOf(request)));
}

/** DELETE /api/feedback-key?project_name= : the key stops working at once; its feedback stays, its logs, issues, upload tokens and source maps go. */
export async function revokeKey(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name } = parseBody(projectQuerySchema, request.query);
	const key = await requireOwnKey(env, user.id, project_name);
	// The key's object goes first: it refuses the key from then on, moves the feedback it
	// accepted to D1 (feedback stays), and forgets the rest; then the D1 rows of its logs (which
	// the key row's deletion would also cascade to).
	await projectCollectorFor(env, key.id).purge();
	await deleteKeyLogs(env, key.id);
	await deleteKey(env, key.id);
	// Its upload tokens and artifact rows went with the key row; the files in R2 go now.
	await deleteProjectObjects(env, key.id);
	return json({ deleted: true, project_name });
}

/** POST /api/feedback-key/regenerate {project_name}: new raw key once, configuration kept, old key dead. */
export async function regenerateKey(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name } = parseBody(projectQuerySchema, await readJsonObject(request));
	// One shared window per owner across all projects.
	await enforceRateLimits(env, [{ subject: `user:${user.id}`, windows: [ACCOUNT_RATE.keyRegeneration] }], "Too many key regenerations");
	const { raw, stored } = await mintKey();
	const key = await updateOwnKey(env, user.id, project_name, stored);
	if (!key) throw noSuchKey(project_name);
	// From the next request on, the key's object knows only the new secret.
	await keysChanged(env, [key.id]);
	return jsonWithSecret(viewWithSecret(key, originOf(request), raw));
}
