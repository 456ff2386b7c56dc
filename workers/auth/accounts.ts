import type { IRequest } from "itty-router";
import { z } from "zod";
import type { SessionView } from "../../domain/api/accounts";
import { deleteSession, findUserByEmail, insertSession, insertUser, setPlan, type User } from "../../domain/accounts/userStore";
import { DUMMY_PASSWORD_HASH, hashPassword, randomSecret, sha256Hex, timingSafeEqualStrings, verifyPassword } from "../../domain/crypto";
import { ACCOUNT_RATE } from "../../domain/limits";
import { bearerToken, clientIp, HttpError, json, jsonWithSecret, readJsonObject, tooManyRequests } from "../http";
import { listOwnSites } from "../../domain/sites/siteStore";
import { keysChanged, rateLimiterFor, siteCollectorFor } from "../objects";
import { siteChangedHere } from "../sites/siteBuffer";
import { listOwnKeys } from "../../domain/keys/keyStore";
import { enforceRateLimits, type Refund } from "../rateLimit";
import { parseBody } from "../validation";
import { type OwnerRequest, publicUser } from "./session";

const email = z
	.string()
	.trim()
	.max(254)
	.pipe(z.email("must be a valid email address"))
	.transform((value) => value.toLowerCase());

const credentialsSchema = z.object({
	email,
	password: z.string().min(8, "must be at least 8 characters").max(1024, "must be at most 1024 characters"),
});

async function startSession(env: Env, user: User): Promise<SessionView> {
	const token = randomSecret("svcs_");
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
	const input = parseBody(credentialsSchema.extend({ password: z.string().max(1024) }), await readJsonObject(request));
	const refundAttempt = await throttleSignIn(env, clientIp(request), input.email);
	const user = await findUserByEmail(env, input.email);
	// Verify against a dummy hash for unknown emails so timing does not reveal which exist.
	const valid = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
	if (!user || !valid) {
		await rateLimiterFor(env, `login:${input.email}`).hit([ACCOUNT_RATE.loginFailuresPerAccount]);
		throw new HttpError(401, "Wrong email or password");
	}
	await refundAttempt();
	return jsonWithSecret(await startSession(env, user));
}

/**
 * Sign-in throttling throttles the guesser, not the owner. Each attempt takes a hit from its
 * address's window (50 per 15 minutes) and from its address-and-account window (10), given back
 * when the password is right, so they count failures. Failures for the account from everywhere
 * (100) stop only the addresses that have failed for it themselves: a correct password from a
 * clean address always gets through.
 */
async function throttleSignIn(env: Env, ip: string, email: string): Promise<Refund> {
	const hadFailures = (await rateLimiterFor(env, `login:${ip}:${email}`).peek(ACCOUNT_RATE.loginFailuresPerAddress)).used > 0;
	const refund = await enforceRateLimits(
		env,
		[
			{ subject: `ip:${ip}`, windows: [ACCOUNT_RATE.loginFailuresPerIp] },
			{ subject: `login:${ip}:${email}`, windows: [ACCOUNT_RATE.loginFailuresPerAddress] },
		],
		"Too many failed sign-ins",
	);
	if (hadFailures) {
		const account = await rateLimiterFor(env, `login:${email}`).peek(ACCOUNT_RATE.loginFailuresPerAccount);
		if (account.used >= ACCOUNT_RATE.loginFailuresPerAccount.limit) {
			await refund();
			throw tooManyRequests(account.retryAfterSeconds, "Too many failed sign-ins for this account");
		}
	}
	return refund;
}

/** GET /api/auth/me → {user} */
export const whoAmI = (request: IRequest) => json({ user: publicUser((request as OwnerRequest).user) });

/** POST /api/auth/logout → 204; the token stops working. */
export async function signOut(request: IRequest, env: Env): Promise<Response> {
	const token = bearerToken(request);
	if (token) await deleteSession(env, await sha256Hex(token));
	return new Response(null, { status: 204 });
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
