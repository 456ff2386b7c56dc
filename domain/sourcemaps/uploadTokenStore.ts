/**
 * The upload_tokens table: tokens that upload source maps for one project key, stored as the
 * SHA-256 of the raw token with its last four characters as a hint.
 */
import { and, desc, eq } from "drizzle-orm";
import { projectKeys, uploadTokens, users } from "../../schema";
import type { User } from "../accounts/userStore";
import { database } from "../db";
import type { ProjectKey } from "../keys/keyStore";

export type UploadToken = typeof uploadTokens.$inferSelect;

export async function insertUploadToken(env: Env, token: Pick<UploadToken, "userId" | "keyId" | "tokenHash" | "tokenHint">): Promise<UploadToken> {
	const [row] = await database(env)
		.insert(uploadTokens)
		.values({ id: crypto.randomUUID(), ...token, createdAt: new Date() })
		.returning();
	return row;
}

export const countKeyTokens = (env: Env, keyId: string) => database(env).$count(uploadTokens, eq(uploadTokens.keyId, keyId));

/** Newest first. */
export function listKeyTokens(env: Env, keyId: string): Promise<UploadToken[]> {
	return database(env).select().from(uploadTokens).where(eq(uploadTokens.keyId, keyId)).orderBy(desc(uploadTokens.createdAt));
}

/** The owner's token, deleted; undefined when the owner has no such token. */
export async function deleteOwnToken(env: Env, userId: string, id: string): Promise<UploadToken | undefined> {
	const [row] = await database(env)
		.delete(uploadTokens)
		.where(and(eq(uploadTokens.id, id), eq(uploadTokens.userId, userId)))
		.returning();
	return row;
}

export const deleteToken = async (env: Env, id: string) => {
	await database(env).delete(uploadTokens).where(eq(uploadTokens.id, id));
};

/** A token with its project key and the key's owner, by the token's hash: the lookup of every upload. */
export async function findTokenByHash(env: Env, tokenHash: string): Promise<{ token: UploadToken; key: ProjectKey; owner: User } | undefined> {
	const [row] = await database(env)
		.select({ token: uploadTokens, key: projectKeys, owner: users })
		.from(uploadTokens)
		.innerJoin(projectKeys, eq(projectKeys.id, uploadTokens.keyId))
		.innerJoin(users, eq(users.id, projectKeys.userId))
		.where(eq(uploadTokens.tokenHash, tokenHash))
		.limit(1);
	return row;
}
