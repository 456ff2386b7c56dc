import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { OWNER_LIMITS } from "../domain/limits";
import { call, setPlan, signUp, uniqueIp } from "./helpers";

const login = (email: string, password: string, ip = uniqueIp()) => call("/api/auth/login", { method: "POST", json: { email, password }, ip });
const changePassword = (token: string | undefined, body: unknown, ip = uniqueIp()) => call("/api/auth/password", { method: "POST", token, json: body, ip });
const me = (token: string) => call("/api/auth/me", { token }).then((r) => r.status);

/** An owner signed in three times: `token` is the session that acts, `others` two more. */
async function ownerWithSessions() {
	const owner = await signUp();
	const others = await Promise.all([1, 2].map(() => login(owner.email, owner.password).then((r) => r.json<any>().then((b) => b.token as string))));
	return { ...owner, others };
}

describe("change password", () => {
	it("takes the new password, ends every other session and keeps this one", async ({ expect }) => {
		const { email, password, token, user, others } = await ownerWithSessions();
		// An expired session was over already: it goes, but is not counted as signed out.
		await env.DB.prepare("INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)")
			.bind("0".repeat(64), user.id, Date.now() - 2000, Date.now() - 1000)
			.run();
		const res = await changePassword(token, { current_password: password, new_password: "a new passphrase" });
		expect(res.status).toBe(200);
		expect(res.headers.get("cache-control")).toBe("no-store");
		expect(await res.json()).toEqual({ user: expect.objectContaining({ id: user.id, email }), signed_out_sessions: 2 });

		expect(await Promise.all(others.map(me))).toEqual([401, 401]);
		expect(await me(token)).toBe(200);
		const left = await env.DB.prepare("SELECT count(*) AS n FROM sessions WHERE user_id = ?").bind(user.id).first();
		expect(left).toEqual({ n: 1 });
		expect((await login(email, password)).status).toBe(401);
		expect((await login(email, "a new passphrase")).status).toBe(200);
	});

	it("answers 403 to a wrong current password and changes nothing", async ({ expect }) => {
		const { email, password, token, others } = await ownerWithSessions();
		const res = await changePassword(token, { current_password: "not the password", new_password: "a new passphrase" });
		expect(res.status).toBe(403);
		expect(await res.json()).toEqual({ error: "The current password is wrong" });
		expect(await Promise.all([token, ...others].map(me))).toEqual([200, 200, 200]);
		expect((await login(email, password)).status).toBe(200);
		expect((await login(email, "a new passphrase")).status).toBe(401);
	});

	it.for([
		["8 characters", "8".repeat(8)],
		["1,024 characters", "x".repeat(1024)],
	])("takes a new password of %s", async ([, newPassword], { expect }) => {
		const { email, password, token } = await signUp();
		expect((await changePassword(token, { current_password: password, new_password: newPassword })).status).toBe(200);
		expect((await login(email, newPassword)).status).toBe(200);
	});

	it.for([
		["a new password of 7 characters", { new_password: "7".repeat(7) }, "new_password: must be at least 8 characters"],
		["a new password of 1,025 characters", { new_password: "x".repeat(1025) }, "new_password: must be at most 1024 characters"],
		["a current password of 1,025 characters", { current_password: "x".repeat(1025) }, "current_password: must be at most 1024 characters"],
		["the current password again", { new_password: "correct horse battery" }, "new_password: must differ from current_password"],
		["a number for the new password", { new_password: 12345678 }, "new_password: "],
		["no new password", { new_password: undefined }, "new_password: "],
		["no current password", { current_password: undefined }, "current_password: "],
		["a member it does not know", { newPassword: "a new passphrase" }, "unknown member newPassword"],
	])("refuses %s with 400, naming it, and changes nothing", async ([, change, message], { expect }) => {
		const { email, password, token } = await signUp();
		const res = await changePassword(token, { current_password: password, new_password: "a new passphrase", ...(change as object) });
		expect(res.status).toBe(400);
		const { error } = await res.json<any>();
		expect(error).toMatch(/^Invalid request: /);
		expect(error).toContain(message);
		expect((await login(email, password)).status).toBe(200);
	});

	it.for([
		["invalid JSON", "{nope"],
		["an empty body", ""],
		["a JSON array", '["correct horse battery", "a new passphrase"]'],
		["a JSON string", '"a new passphrase"'],
	])("refuses %s with 400 in the one error shape", async ([, raw], { expect }) => {
		const { token } = await signUp();
		const res = await call("/api/auth/password", { method: "POST", token, body: raw, ip: uniqueIp() });
		expect(res.status).toBe(400);
		expect(Object.keys(await res.json<any>())).toEqual(["error"]);
	});

	it("reads a body of 1,000,000 characters and refuses one more with 413", async ({ expect }) => {
		const { token, password } = await signUp();
		const bodyOf = (chars: number) => {
			const start = JSON.stringify({ current_password: password, new_password: "" }).slice(0, -2);
			return `${start}${"x".repeat(chars - start.length - 2)}"}`;
		};
		expect(bodyOf(OWNER_LIMITS.bodyChars)).toHaveLength(OWNER_LIMITS.bodyChars);
		const atLimit = await call("/api/auth/password", { method: "POST", token, body: bodyOf(OWNER_LIMITS.bodyChars), ip: uniqueIp() });
		expect(atLimit.status).toBe(400);
		const over = await call("/api/auth/password", { method: "POST", token, body: bodyOf(OWNER_LIMITS.bodyChars + 1), ip: uniqueIp() });
		expect(over.status).toBe(413);
		expect(Object.keys(await over.json<any>())).toEqual(["error"]);
	});

	it("needs a session (401), but not access: an ended trial still changes its password", async ({ expect }) => {
		const { email, password, token } = await signUp();
		expect((await changePassword(undefined, { current_password: password, new_password: "a new passphrase" })).status).toBe(401);
		await setPlan(email, "free", new Date(Date.now() - 1000).toISOString());
		expect((await changePassword(token, { current_password: password, new_password: "a new passphrase" })).status).toBe(200);
	});

	it("wrong current passwords are failed sign-ins: the 11th attempt from the address is 429, and sign-in there too", async ({ expect }) => {
		const { email, password, token } = await signUp();
		const ip = uniqueIp();
		for (let i = 0; i < 10; i++) {
			expect((await changePassword(token, { current_password: "wrong password", new_password: "a new passphrase" }, ip)).status).toBe(403);
		}
		const blocked = await changePassword(token, { current_password: password, new_password: "a new passphrase" }, ip);
		expect(blocked.status).toBe(429);
		expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
		expect((await blocked.json<any>()).error).toMatch(/^Too many failed sign-ins; retry in \d+ s$/);
		expect((await login(email, password, ip)).status).toBe(429);
		// The owner elsewhere is not locked out, and the password never changed.
		expect((await changePassword(token, { current_password: password, new_password: "a new passphrase" })).status).toBe(200);
	});

	it("failed sign-ins count against a password change from the same address", async ({ expect }) => {
		const { email, password, token } = await signUp();
		const ip = uniqueIp();
		for (let i = 0; i < 9; i++) expect((await login(email, "wrong password", ip)).status).toBe(401);
		// The 10th failure is still answered; the attempt after it is not.
		expect((await changePassword(token, { current_password: "wrong password", new_password: "a new passphrase" }, ip)).status).toBe(403);
		expect((await changePassword(token, { current_password: password, new_password: "a new passphrase" }, ip)).status).toBe(429);
	});

	it("a right current password gives its attempt back: changes after failures do not add up", async ({ expect }) => {
		const { password, token } = await signUp();
		const ip = uniqueIp();
		let current = password;
		for (let i = 0; i < 11; i++) {
			const next = `passphrase number ${i}`;
			expect((await changePassword(token, { current_password: current, new_password: next }, ip)).status).toBe(200);
			current = next;
		}
	}, 60_000);
});

describe("sign out other sessions", () => {
	const signOutOthers = (token?: string) => call("/api/auth/logout-others", { method: "POST", token });

	it("ends every other session of the owner, keeps this one and says how many ended", async ({ expect }) => {
		const { token, others } = await ownerWithSessions();
		const stranger = await signUp();
		const res = await signOutOthers(token);
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ signed_out_sessions: 2 });
		expect(await Promise.all(others.map(me))).toEqual([401, 401]);
		expect(await me(token)).toBe(200);
		expect(await me(stranger.token)).toBe(200);
		expect(await signOutOthers(token).then((r) => r.json())).toEqual({ signed_out_sessions: 0 });
	});

	it("answers 401 without a session or with one that has ended", async ({ expect }) => {
		const { token, others } = await ownerWithSessions();
		expect((await signOutOthers()).status).toBe(401);
		await signOutOthers(others[0]);
		const ended = await signOutOthers(token);
		expect(ended.status).toBe(401);
		expect(Object.keys(await ended.json<any>())).toEqual(["error"]);
	});
});
