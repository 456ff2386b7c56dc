import { and, eq, gt } from "drizzle-orm";
import type { IRequest } from "itty-router";
import { sessions, users } from "../../schema";
import { sha256Hex } from "../crypto";
import { database } from "../db";
import { bearerToken, HttpError } from "../http";

export type User = typeof users.$inferSelect;

/** A request that passed `requireOwner`. */
export type OwnerRequest = IRequest & { user: User };

export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

export const hasAccess = (user: Pick<User, "plan" | "trialEndsAt">, now = Date.now()) => user.plan === "pro" || user.trialEndsAt.getTime() > now;

/** The user as the API shows it (DESIGN.md 5.1). */
export function publicUser(user: User) {
	return {
		id: user.id,
		email: user.email,
		plan: user.plan,
		trial_ends_at: user.trialEndsAt.toISOString(),
		access: hasAccess(user),
	};
}

/** Middleware: resolves the session bearer to its user, else 401. A project key is not a session. */
export async function requireOwner(request: IRequest, env: Env): Promise<void> {
	const token = bearerToken(request);
	if (!token) throw new HttpError(401, "Sign in required: send Authorization: Bearer <session token>");
	const [row] = await database(env)
		.select({ user: users })
		.from(sessions)
		.innerJoin(users, eq(users.id, sessions.userId))
		.where(and(eq(sessions.tokenHash, await sha256Hex(token)), gt(sessions.expiresAt, new Date())))
		.limit(1);
	if (!row) throw new HttpError(401, "Session is invalid or expired: sign in again");
	request.user = row.user;
}

/** Middleware for owner endpoints beyond auth: needs Pro or a running trial. */
export function requireAccess(request: IRequest): void {
	if (!hasAccess((request as OwnerRequest).user)) {
		throw new HttpError(402, "Your trial has ended: upgrade to Pro to use this");
	}
}
