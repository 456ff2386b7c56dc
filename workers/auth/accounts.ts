import type { IRequest } from "itty-router";
import { z } from "zod";
import type { PasswordChangedView, SessionView, SignedOutView } from "../../domain/api/accounts";
import { changePassword, deleteOtherSessions, deleteSession, findUserByEmail, insertSession, insertUser, setPlan, type User } from "../../domain/accounts/userStore";
import { hashPassword, randomSecret, SECRET_PREFIXES, sha256Hex, timingSafeEqualStrings } from "../../domain/crypto";
import { ACCOUNT_RATE, EMAIL_MAX_CHARS } from "../../domain/limits";
import { bearerToken, clientIp, HttpError, json, jsonWithSecret, readJsonObject } from "../http";
import { listOwnSites } from "../../domain/sites/siteStore";
import { keysChanged, siteCollectorFor } from "../objects";
import { siteChangedHere } from "../sites/siteBuffer";
import { listOwnKeys } from "../../domain/keys/keyStore";
import { enforceRateLimits } from "../rateLimit";
import { bodyMembers, parseBody } from "../validation";
import { checkPassword } from "./passwordCheck";
import { type OwnerRequest, publicUser } from "./session";

const email = z
	.string()
	.trim()
	.max(EMAIL_MAX_CHARS, `must be at most ${EMAIL_MAX_CHARS} characters`)
	.pipe(z.email("must be a valid email address"))
	.transform((value) => value.toLowerCase());

/** A password an account may take; one to check against a stored hash need only be text of at most 1,024 characters. */
const newPassword = z.string().min(8, "must be at least 8 characters").max(1024, "must be at most 1024 characters");
const givenPassword = z.string().max(1024, "must be at most 1024 characters");

const credentialsSchema = z.object({ email, password: newPassword });

async function startSession(env: Env, user: User): Promise<SessionView> {
	const token = randomSecret(SECRET_PREFIXES.sessionToken);
	await insertSession(env, user.id, await sha256Hex(token));
	return { token, user: publicUser(user) };
}

/** POST /api/auth/signup {email, password} → 201 {token, user} */
export async function signUp(request: IRequest, env: Env): Promise<Response> {
	const input = parseBody(credentialsSchema, await readJsonObject(request));
	await enforceRateLimits(env, [{ subject: `ip:${clientIp(request)}`, windows: [ACCOUNT_RATE.signupPerIp] }], "Too many sign-ups");
	const user = await insertUser(env, input.email, await hashPassword(input.password));
	if (!user) throw new HttpError(409, "An account with this email already exists");
	return jsonWithSecret(await startSession(env, user), { status: 201 });
}

/** POST /api/auth/login {email, password} → 200 {token, user} */
export async function signIn(request: IRequest, env: Env): Promise<Response> {
	const input = parseBody(credentialsSchema.extend({ password: givenPassword }), await readJsonObject(request));
	// Checked for an unknown email too: it counts as a failure and takes as long as a wrong password.
	const user = await checkPassword(env, clientIp(request), input.email, input.password, () => findUserByEmail(env, input.email));
	if (!user) throw new HttpError(401, "Wrong email or password");
	return jsonWithSecret(await startSession(env, user));
}

/** GET /api/auth/me → {user} */
export const whoAmI = (request: IRequest) => json({ user: publicUser((request as OwnerRequest).user) });

/** POST /api/auth/logout → 204; the token stops working. */
export async function signOut(request: IRequest, env: Env): Promise<Response> {
	const token = bearerToken(request);
	if (token) await deleteSession(env, await sha256Hex(token));
	return new Response(null, { status: 204 });
}

const passwordChangeSchema = bodyMembers({ current_password: givenPassword, new_password: newPassword }).refine(
	(input) => input.new_password !== input.current_password,
	{ path: ["new_password"], message: "must differ from current_password" },
);

/**
 * POST /api/auth/password {current_password, new_password} → 200 {user, signed_out_sessions}.
 * The current password is checked as a sign-in is, failures counted in the same windows; a wrong
 * one is 403, not 401, because the session itself is good. Every other session ends: whoever
 * learnt the old password is signed out with it.
 */
export async function changeOwnPassword(request: IRequest, env: Env): Promise<Response> {
	const { user, sessionHash } = request as OwnerRequest;
	const input = parseBody(passwordChangeSchema, await readJsonObject(request));
	if (!(await checkPassword(env, clientIp(request), user.email, input.current_password, async () => user))) {
		throw new HttpError(403, "The current password is wrong");
	}
	const signedOut = await changePassword(env, user.id, await hashPassword(input.new_password), sessionHash);
	return jsonWithSecret({ user: publicUser(user), signed_out_sessions: signedOut } satisfies PasswordChangedView);
}

/** POST /api/auth/logout-others → 200 {signed_out_sessions}: every session of the owner but this one ends. */
export async function signOutOthers(request: IRequest, env: Env): Promise<Response> {
	const { user, sessionHash } = request as OwnerRequest;
	return jsonWithSecret({ signed_out_sessions: await deleteOtherSessions(env, user.id, sessionHash) } satisfies SignedOutView);
}

const planSchema = z.object({
	email,
	plan: z.enum(["free", "pro"]),
	trial_ends_at: z.iso.datetime({ offset: true }).optional(),
});

/**
 * POST /api/admin/users/plan {email, plan, trial_ends_at?}: the self-hoster's stand-in for billing.
 * Guarded by the ADMIN_TOKEN secret; without one the endpoint does not exist.
 */
export async function setUserPlan(request: IRequest, env: Env): Promise<Response> {
	if (!env.ADMIN_TOKEN) throw new HttpError(404, "Not found");
	const token = bearerToken(request);
	if (!token || !(await timingSafeEqualStrings(token, env.ADMIN_TOKEN))) {
		throw new HttpError(401, "Admin token required: send Authorization: Bearer <ADMIN_TOKEN>");
	}
	const input = parseBody(planSchema, await readJsonObject(request));
	const user = await setPlan(env, input.email, input.plan, input.trial_ends_at ? new Date(input.trial_ends_at) : undefined);
	if (!user) throw new HttpError(404, `No account with email ${input.email}`);
	// Site collectors and project keys' objects hold the owner's plan: the change must reach
	// them now, not when they next load it.
	const [sites, keys] = await Promise.all([listOwnSites(env, user.id), listOwnKeys(env, user.id)]);
	await Promise.all([
		...sites.map((site) => siteCollectorFor(env, site.trackingId).siteChanged({ deleted: false })),
		keysChanged(env, keys.map((key) => key.id)),
	]);
	for (const site of sites) siteChangedHere(site.trackingId, { deleted: false });
	return json({ user: publicUser(user) });
}
