import { and, eq, lt } from "drizzle-orm";
import type { IRequest } from "itty-router";
import { z } from "zod";
import { sessions, users } from "../../schema";
import { DUMMY_PASSWORD_HASH, hashPassword, randomSecret, sha256Hex, timingSafeEqualStrings, verifyPassword } from "../crypto";
import { database } from "../db";
import { bearerToken, clientIp, HttpError, json, jsonWithSecret, readJsonObject } from "../http";
import { enforceRateLimits } from "../rateLimit";
import { parseBody } from "../validation";
import { type OwnerRequest, publicUser, SESSION_LIFETIME_MS, type User } from "./session";

const TRIAL_DAYS = 14;
const DAY_MS = 24 * 60 * 60 * 1000;

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

// Sign-in guesses: per email so one account cannot be brute-forced from many IPs, and per IP so
// one client cannot spray many accounts.
const LOGIN_PER_EMAIL = { name: "login-email", limit: 10, windowSeconds: 15 * 60 };
const LOGIN_PER_IP = { name: "login-ip", limit: 50, windowSeconds: 15 * 60 };
const SIGNUP_PER_IP = { name: "signup", limit: 10, windowSeconds: 60 * 60 };

async function startSession(env: Env, user: User) {
	const token = randomSecret("svcs_");
	const now = Date.now();
	const db = database(env);
	await db.batch([
		db.insert(sessions).values({
			tokenHash: await sha256Hex(token),
			userId: user.id,
			createdAt: new Date(now),
			expiresAt: new Date(now + SESSION_LIFETIME_MS),
		}),
		// Expired sessions are dead already; sweeping the user's own at sign-in keeps the table small.
		db.delete(sessions).where(and(eq(sessions.userId, user.id), lt(sessions.expiresAt, new Date(now)))),
	]);
	return { token, user: publicUser(user) };
}

/** POST /api/auth/signup {email, password} → 201 {token, user} */
export async function signUp(request: IRequest, env: Env): Promise<Response> {
	const input = parseBody(credentialsSchema, await readJsonObject(request));
	await enforceRateLimits(env, [{ subject: `ip:${clientIp(request)}`, windows: [SIGNUP_PER_IP] }], "Too many sign-ups");
	const now = Date.now();
	const [user] = await database(env)
		.insert(users)
		.values({
			id: crypto.randomUUID(),
			email: input.email,
			passwordHash: await hashPassword(input.password),
			trialEndsAt: new Date(now + TRIAL_DAYS * DAY_MS),
			createdAt: new Date(now),
		})
		.onConflictDoNothing({ target: users.email })
		.returning();
	if (!user) throw new HttpError(409, "An account with this email already exists");
	return jsonWithSecret(await startSession(env, user), { status: 201 });
}

/** POST /api/auth/login {email, password} → 200 {token, user} */
export async function signIn(request: IRequest, env: Env): Promise<Response> {
	const input = parseBody(credentialsSchema.extend({ password: z.string().max(1024) }), await readJsonObject(request));
	await enforceRateLimits(
		env,
		[
			{ subject: `login:${input.email}`, windows: [LOGIN_PER_EMAIL] },
			{ subject: `ip:${clientIp(request)}`, windows: [LOGIN_PER_IP] },
		],
		"Too many sign-in attempts",
	);
	const user = await database(env).query.users.findFirst({ where: eq(users.email, input.email) });
	// Verify against a dummy hash for unknown emails so timing does not reveal which exist.
	const valid = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
	if (!user || !valid) throw new HttpError(401, "Wrong email or password");
	return jsonWithSecret(await startSession(env, user));
}

/** GET /api/auth/me → {user} */
export const whoAmI = (request: IRequest) => json({ user: publicUser((request as OwnerRequest).user) });

/** POST /api/auth/logout → 204; the token stops working. */
export async function signOut(request: IRequest, env: Env): Promise<Response> {
	const token = bearerToken(request);
	if (token) await database(env).delete(sessions).where(eq(sessions.tokenHash, await sha256Hex(token)));
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
	const [user] = await database(env)
		.update(users)
		.set({ plan: input.plan, ...(input.trial_ends_at ? { trialEndsAt: new Date(input.trial_ends_at) } : {}) })
		.where(eq(users.email, input.email))
		.returning();
	if (!user) throw new HttpError(404, `No account with email ${input.email}`);
	return json({ user: publicUser(user) });
}
