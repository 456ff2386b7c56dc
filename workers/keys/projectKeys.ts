import { and, eq } from "drizzle-orm";
import type { IRequest } from "itty-router";
import { z } from "zod";
import { projectKeys } from "../../schema";
import type { OwnerRequest } from "../auth/session";
import { randomSecret, sha256Hex } from "../crypto";
import { database } from "../db";
import { HttpError, json, jsonWithSecret, readJsonObject } from "../http";
import { purgeKeyLogs } from "../logs/issueGrouper";
import { enforceRateLimits } from "../rateLimit";
import { parseBody } from "../validation";
import { DEFAULT_FEATURE_FIELDS, DEFAULT_ISSUE_FIELDS, fieldConfigSchema } from "./fieldConfig";

type ProjectKey = typeof projectKeys.$inferSelect;

export const projectNameSchema = z.string().trim().min(1, "is required").max(100, "must be at most 100 characters");
const projectQuerySchema = z.object({ project_name: projectNameSchema });

// "5 requests per shared rate-limit window" (spec 4.2): one window per owner across all projects.
const REGENERATE_WINDOW = { name: "key-regenerate", limit: 5, windowSeconds: 60 };

/** The key as every answer shows it: a hint, never the raw key or its hash. */
export function keyView(key: ProjectKey) {
	return {
		project_name: key.projectName,
		key_hint: key.keyHint,
		rate_limit_per_minute: key.rateLimitPerMinute,
		logs_rate_limit_per_minute: key.logsRateLimitPerMinute,
		logs_enabled: key.logsEnabled,
		issue_field_config: key.issueFieldConfig,
		feature_field_config: key.featureFieldConfig,
		created_at: key.createdAt.toISOString(),
	};
}

/** A fresh raw key (returned once) and what is stored of it. */
async function mintKey() {
	const raw = randomSecret("svc_");
	return { raw, keyHash: await sha256Hex(raw), keyHint: raw.slice(-4) };
}

/** The owner's key for a project, else 404: another owner's project is indistinguishable from none. */
export async function findOwnKey(env: Env, userId: string, projectName: string): Promise<ProjectKey> {
	const key = await database(env).query.projectKeys.findFirst({
		where: and(eq(projectKeys.userId, userId), eq(projectKeys.projectName, projectName)),
	});
	if (!key) throw new HttpError(404, `No project key for project "${projectName}"`);
	return key;
}

/** GET /api/feedback-keys → {keys: [...]}, every project key of the owner. */
export async function listKeys(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const keys = await database(env).query.projectKeys.findMany({
		where: eq(projectKeys.userId, user.id),
		orderBy: projectKeys.projectName,
	});
	return json({ keys: keys.map(keyView) });
}

/** GET /api/feedback-key?project_name= */
export async function readKey(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name } = parseBody(projectQuerySchema, request.query);
	return json(keyView(await findOwnKey(env, user.id, project_name)));
}

/** POST /api/feedback-key {project_name} → 201, raw_api_key once, default schemas. */
export async function createKey(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name } = parseBody(projectQuerySchema, await readJsonObject(request));
	const { raw, keyHash, keyHint } = await mintKey();
	const now = new Date();
	const [key] = await database(env)
		.insert(projectKeys)
		.values({
			id: crypto.randomUUID(),
			userId: user.id,
			projectName: project_name,
			keyHash,
			keyHint,
			issueFieldConfig: DEFAULT_ISSUE_FIELDS,
			featureFieldConfig: DEFAULT_FEATURE_FIELDS,
			createdAt: now,
			updatedAt: now,
		})
		.onConflictDoNothing({ target: [projectKeys.userId, projectKeys.projectName] })
		.returning();
	if (!key) throw new HttpError(409, `Project "${project_name}" already has a key: regenerate it instead`);
	return jsonWithSecret({ ...keyView(key), raw_api_key: raw }, { status: 201 });
}

const configurationSchema = z
	.strictObject({
		project_name: projectNameSchema,
		issue_field_config: fieldConfigSchema.optional(),
		feature_field_config: fieldConfigSchema.optional(),
		rate_limit_per_minute: z.number().int().min(1).max(100_000).optional(),
		logs_rate_limit_per_minute: z.number().int().min(1).max(100_000).optional(),
		logs_enabled: z.boolean().optional(),
	})
	.refine(({ project_name, ...configuration }) => Object.values(configuration).some((value) => value !== undefined), {
		message:
			"at least one configuration field is required: issue_field_config, feature_field_config, rate_limit_per_minute, logs_rate_limit_per_minute or logs_enabled",
	});

/** PATCH /api/feedback-key {project_name, ...configuration} */
export async function updateKeyConfiguration(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const input = parseBody(configurationSchema, await readJsonObject(request));
	const [key] = await database(env)
		.update(projectKeys)
		.set({
			issueFieldConfig: input.issue_field_config,
			featureFieldConfig: input.feature_field_config,
			rateLimitPerMinute: input.rate_limit_per_minute,
			logsRateLimitPerMinute: input.logs_rate_limit_per_minute,
			logsEnabled: input.logs_enabled,
			updatedAt: new Date(),
		})
		.where(and(eq(projectKeys.userId, user.id), eq(projectKeys.projectName, input.project_name)))
		.returning();
	if (!key) throw new HttpError(404, `No project key for project "${input.project_name}"`);
	return json(keyView(key));
}

/** DELETE /api/feedback-key?project_name= : the key stops working at once; its feedback stays, its logs and issues go. */
export async function revokeKey(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name } = parseBody(projectQuerySchema, request.query);
	const key = await findOwnKey(env, user.id, project_name);
	await purgeKeyLogs(env, key.id);
	await database(env).delete(projectKeys).where(eq(projectKeys.id, key.id));
	return json({ deleted: true, project_name });
}

/** POST /api/feedback-key/regenerate {project_name}: new raw key once, configuration kept, old key dead. */
export async function regenerateKey(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name } = parseBody(projectQuerySchema, await readJsonObject(request));
	await enforceRateLimits(env, [{ subject: `user:${user.id}`, windows: [REGENERATE_WINDOW] }], "Too many key regenerations");
	const { raw, keyHash, keyHint } = await mintKey();
	const [key] = await database(env)
		.update(projectKeys)
		.set({ keyHash, keyHint, updatedAt: new Date() })
		.where(and(eq(projectKeys.userId, user.id), eq(projectKeys.projectName, project_name)))
		.returning();
	if (!key) throw new HttpError(404, `No project key for project "${project_name}"`);
	return jsonWithSecret({ ...keyView(key), raw_api_key: raw });
}
