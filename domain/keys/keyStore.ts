/**
 * The project_keys table: one key per owner and project, stored as the SHA-256 of the raw key
 * with its last four characters as a hint, and the key's configuration.
 */
import { and, eq, sql } from "drizzle-orm";
import { projectKeys, users } from "../../schema";
import type { User } from "../accounts/userStore";
import { database } from "../db";
import { DEFAULT_FEATURE_FIELDS, DEFAULT_ISSUE_FIELDS } from "./fieldConfig";

export type ProjectKey = typeof projectKeys.$inferSelect;

/** What an owner may change on a key; undefined members stay as they are. */
export type KeyConfiguration = Partial<
	Pick<ProjectKey, "issueFieldConfig" | "featureFieldConfig" | "rateLimitPerMinute" | "logsRateLimitPerMinute" | "logsEnabled" | "filterBrowserExtensions">
>;

/** The key a hash belongs to, and what symbolication must know of it: the ingestion endpoints' first lookup. */
export async function findKeyIdByHash(env: Env, keyHash: string): Promise<{ id: string; artifactsVersion: number } | undefined> {
	const [row] = await database(env)
		.select({ id: projectKeys.id, artifactsVersion: projectKeys.artifactsVersion })
		.from(projectKeys)
		.where(eq(projectKeys.keyHash, keyHash))
		.limit(1);
	return row;
}

/** A key and its owner's access, by id: what the key's own object loads to answer ingestion alone. */
export async function findKeyWithOwner(env: Env, keyId: string): Promise<{ key: ProjectKey; owner: Pick<User, "plan" | "trialEndsAt"> } | undefined> {
	const [row] = await database(env)
		.select({ key: projectKeys, owner: { plan: users.plan, trialEndsAt: users.trialEndsAt } })
		.from(projectKeys)
		.innerJoin(users, eq(users.id, projectKeys.userId))
		.where(eq(projectKeys.id, keyId))
		.limit(1);
	return row;
}

export function findOwnKey(env: Env, userId: string, projectName: string): Promise<ProjectKey | undefined> {
	return database(env).query.projectKeys.findFirst({
		where: and(eq(projectKeys.userId, userId), eq(projectKeys.projectName, projectName)),
	});
}

export async function countOwnKeys(env: Env, userId: string): Promise<number> {
	return database(env).$count(projectKeys, eq(projectKeys.userId, userId));
}

export function listOwnKeys(env: Env, userId: string): Promise<ProjectKey[]> {
	return database(env).query.projectKeys.findMany({ where: eq(projectKeys.userId, userId), orderBy: projectKeys.projectName });
}

/**
 * A new key with the default feedback forms and the next free DSN id (the statement runs alone,
 * so two inserts never take the same number); undefined when the project already has one.
 */
export async function insertKey(env: Env, userId: string, projectName: string, stored: { keyHash: string; keyHint: string }) {
	const now = new Date();
	const [key] = await database(env)
		.insert(projectKeys)
		.values({
			id: crypto.randomUUID(),
			userId,
			projectName,
			...stored,
			dsnId: sql`(SELECT COALESCE(MAX(${projectKeys.dsnId}), 0) + 1 FROM ${projectKeys})`,
			issueFieldConfig: DEFAULT_ISSUE_FIELDS,
			featureFieldConfig: DEFAULT_FEATURE_FIELDS,
			createdAt: now,
			updatedAt: now,
		})
		.onConflictDoNothing({ target: [projectKeys.userId, projectKeys.projectName] })
		.returning();
	return key as ProjectKey | undefined;
}

/** Changes the configuration, or with `keyHash` and `keyHint` replaces the secret; undefined when there is no such key. */
export async function updateOwnKey(
	env: Env,
	userId: string,
	projectName: string,
	changes: KeyConfiguration | { keyHash: string; keyHint: string },
): Promise<ProjectKey | undefined> {
	const [key] = await database(env)
		.update(projectKeys)
		.set({ ...changes, updatedAt: new Date() })
		.where(and(eq(projectKeys.userId, userId), eq(projectKeys.projectName, projectName)))
		.returning();
	return key;
}

export async function deleteKey(env: Env, keyId: string): Promise<void> {
	await database(env).delete(projectKeys).where(eq(projectKeys.id, keyId));
}
