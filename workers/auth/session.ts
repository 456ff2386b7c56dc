import type { IRequest } from "itty-router";
import type { UserView } from "../../domain/api/accounts";
import { findSessionUser, hasAccess, type User } from "../../domain/accounts/userStore";
import { sha256Hex } from "../../domain/crypto";
import { bearerToken, HttpError } from "../http";

/** A request that passed `requireOwner`: its user, and the SHA-256 of the session token it came with. */
export type OwnerRequest = IRequest & { user: User; sessionHash: string };

/** The user as the API shows it (docs/api.md#accounts). */
export function publicUser(user: User): UserView {
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
	const sessionHash = await sha256Hex(token);
	const user = await findSessionUser(env, sessionHash);
	if (!user) throw new HttpError(401, "Session is invalid or expired: sign in again");
	request.user = user;
	request.sessionHash = sessionHash;
}

/** Middleware for owner endpoints beyond auth: needs Pro or a running trial. */
export function requireAccess(request: IRequest): void {
	if (!hasAccess((request as OwnerRequest).user)) {
		throw new HttpError(402, "Your trial has ended: upgrade to Pro to use this");
	}
}
