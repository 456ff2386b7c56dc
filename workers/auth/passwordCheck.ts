import { DUMMY_PASSWORD_HASH, verifyPassword } from "../../domain/crypto";
import { ACCOUNT_RATE } from "../../domain/limits";
import { tooManyRequests } from "../http";
import { rateLimiterFor } from "../objects";
import { enforceRateLimits, type Refund } from "../rateLimit";

/**
 * Checks an account's password under the sign-in throttle: whatever asks (sign-in, a password
 * change), a wrong password is a failed sign-in, so no endpoint guesses more than sign-in can.
 * `load` finds the account, once the throttle has let the attempt through (a throttled one costs
 * no read); for an unknown email the password is checked against a dummy hash, so timing does not
 * reveal which emails exist. The account when the password is right, else null.
 */
export async function checkPassword<Account extends { passwordHash: string }>(
	env: Env,
	ip: string,
	email: string,
	password: string,
	load: () => Promise<Account | null | undefined>,
): Promise<Account | null> {
	const refundAttempt = await throttleSignIn(env, ip, email);
	const account = await load();
	const valid = await verifyPassword(password, account?.passwordHash ?? DUMMY_PASSWORD_HASH);
	if (!account || !valid) {
		await rateLimiterFor(env, `login:${email}`).hit([ACCOUNT_RATE.loginFailuresPerAccount]);
		return null;
	}
	await refundAttempt();
	return account;
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
