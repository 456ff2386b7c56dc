/**
 * The users and sessions tables: accounts, their plan and trial, and signed-in sessions (stored
 * only as the SHA-256 of the token).
 */
import { and, eq, gt, lt, ne } from "drizzle-orm";
import { sessions, users } from "../../schema";
import { database, deleteRows, expiredRowsDelete } from "../db";

export type User = typeof users.$inferSelect;

const TRIAL_DAYS = 14;
const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Pro, or a trial that has not ended: what every project-key and owner endpoint requires. */
export const hasAccess = (user: Pick<User, "plan" | "trialEndsAt">, now = Date.now()) => user.plan === "pro" || user.trialEndsAt.getTime() > now;

/** A new account on a fresh trial; undefined when the email is taken. */
export async function insertUser(env: Env, email: string, passwordHash: string): Promise<User | undefined> {
	const now = Date.now();
	const [user] = await database(env)
		.insert(users)
		.values({ id: crypto.randomUUID(), email, passwordHash, trialEndsAt: new Date(now + TRIAL_DAYS * DAY_MS), createdAt: new Date(now) })
		.onConflictDoNothing({ target: users.email })
		.returning();
	return user;
}

export function findUserByEmail(env: Env, email: string): Promise<User | undefined> {
	return database(env).query.users.findFirst({ where: eq(users.email, email) });
}

export async function setPlan(env: Env, email: string, plan: User["plan"], trialEndsAt?: Date): Promise<User | undefined> {
	const [user] = await database(env)
		.update(users)
		.set({ plan, ...(trialEndsAt ? { trialEndsAt } : {}) })
		.where(eq(users.email, email))
		.returning();
	return user;
}

/** Stores a new session; the user's expired ones are dead already and are swept in the same batch. */
export async function insertSession(env: Env, userId: string, tokenHash: string): Promise<void> {
	const now = Date.now();
	const db = database(env);
	await db.batch([
		db.insert(sessions).values({ tokenHash, userId, createdAt: new Date(now), expiresAt: new Date(now + SESSION_LIFETIME_MS) }),
		db.delete(sessions).where(and(eq(sessions.userId, userId), lt(sessions.expiresAt, new Date(now)))),
	]);
}

/** The user of an unexpired session, by the token's hash. */
export async function findSessionUser(env: Env, tokenHash: string): Promise<User | undefined> {
	const [row] = await database(env)
		.select({ user: users })
		.from(sessions)
		.innerJoin(users, eq(users.id, sessions.userId))
		.where(and(eq(sessions.tokenHash, tokenHash), gt(sessions.expiresAt, new Date())))
		.limit(1);
	return row?.user;
}

export async function deleteSession(env: Env, tokenHash: string): Promise<void> {
	await database(env).delete(sessions).where(eq(sessions.tokenHash, tokenHash));
}

/** Deletes every session of the user but `keptTokenHash`'s. */
function otherSessionsDelete(db: ReturnType<typeof database>, userId: string, keptTokenHash: string) {
	return db
		.delete(sessions)
		.where(and(eq(sessions.userId, userId), ne(sessions.tokenHash, keptTokenHash)))
		.returning({ expiresAt: sessions.expiresAt });
}

/** How many of the deleted sessions still signed someone in: expired ones were over already. */
const stillValid = (deleted: { expiresAt: Date }[], now = Date.now()) => deleted.filter((session) => session.expiresAt.getTime() > now).length;

/** Signs the user out everywhere but the session `keptTokenHash`; how many live sessions ended. */
export async function deleteOtherSessions(env: Env, userId: string, keptTokenHash: string): Promise<number> {
	return stillValid(await otherSessionsDelete(database(env), userId, keptTokenHash));
}

/**
 * A new password, and every session but `keptTokenHash`'s ended with it in one batch: a session
 * someone opened with the old password never outlives the change. How many live sessions ended.
 */
export async function changePassword(env: Env, userId: string, passwordHash: string, keptTokenHash: string): Promise<number> {
	const db = database(env);
	const [, deleted] = await db.batch([db.update(users).set({ passwordHash }).where(eq(users.id, userId)), otherSessionsDelete(db, userId, keptTokenHash)]);
	return stillValid(deleted);
}

export const DELETE_EXPIRED_SESSIONS = expiredRowsDelete("sessions", "expires_at");

/** Sessions that no longer sign anyone in (expired at or before `now`), at most `limit`; how many were deleted. */
export const deleteExpiredSessions = (env: Env, now: number, limit: number) => deleteRows(env.DB, DELETE_EXPIRED_SESSIONS, now + 1, limit);
