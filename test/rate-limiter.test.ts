import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { it } from "vitest";
import type { RateLimiter } from "../durable-objects/RateLimiter";
import { rateLimiterFor } from "../workers/objects";
import { unique } from "./helpers";

const window = (limit: number, windowSeconds = 60, name = "w") => ({ name, limit, windowSeconds });

/**
 * Moves every stored hit of the subject's object `ms` into the past, as if that much time had gone
 * by, and restarts the object, which holds its windows in memory and reads them back from those
 * rows. Answers a stub for the restarted object.
 */
async function elapse(subject: string, ms: number): Promise<DurableObjectStub<RateLimiter>> {
	const stub = rateLimiterFor(env, subject);
	await runInDurableObject(stub, (_instance, state) => {
		state.storage.sql.exec("UPDATE hits SET expires_at = expires_at - ?", ms);
	});
	// Apart from the update, which an abort in the same call would roll back.
	await runInDurableObject(stub, (_instance, state) => state.abort("restart in a test")).catch(() => {});
	return rateLimiterFor(env, subject);
}

it("allows exactly the limit under concurrency, then tells how long to wait", async ({ expect }) => {
	const stub = rateLimiterFor(env, unique("subject"));
	const decisions = await Promise.all(Array.from({ length: 25 }, () => stub.hit([window(10)])));
	expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
	const denied = decisions.filter((d) => !d.allowed);
	expect(denied).toHaveLength(15);
	expect(denied.every((d) => !d.allowed && d.retryAfterSeconds >= 59 && d.retryAfterSeconds <= 60)).toBe(true);
});

it("slides: a hit frees its slot exactly when it is windowSeconds old", async ({ expect }) => {
	const subject = unique("subject");
	let stub = rateLimiterFor(env, subject);
	for (let i = 0; i < 3; i++) expect((await stub.hit([window(3)])).allowed).toBe(true);
	expect((await stub.hit([window(3)])).allowed).toBe(false);

	stub = await elapse(subject, 59_000);
	const stillFull = await stub.hit([window(3)]);
	expect(stillFull).toEqual({ allowed: false, retryAfterSeconds: 1 });

	stub = await elapse(subject, 1_000);
	expect((await stub.hit([window(3)])).allowed).toBe(true);
});

it("keeps windows of different names apart in one object", async ({ expect }) => {
	const stub = rateLimiterFor(env, unique("subject"));
	expect((await stub.hit([window(1, 60, "a")])).allowed).toBe(true);
	expect((await stub.hit([window(1, 60, "a")])).allowed).toBe(false);
	expect((await stub.hit([window(1, 60, "b")])).allowed).toBe(true);
});

it("takes several windows all or nothing", async ({ expect }) => {
	const stub = rateLimiterFor(env, unique("subject"));
	expect((await stub.hit([window(1, 60, "small")])).allowed).toBe(true);
	// "small" is full, so "large" must not be charged for the denied hit.
	expect((await stub.hit([window(5, 60, "large"), window(1, 60, "small")])).allowed).toBe(false);
	const counts = await runInDurableObject(stub, (_i, state) =>
		state.storage.sql.exec<{ window: string; n: number }>("SELECT window, count(*) AS n FROM hits GROUP BY window ORDER BY window").toArray(),
	);
	expect(counts).toEqual([{ window: "small", n: 1 }]);
});

it("ends windows with an alarm: an idle object is left empty", async ({ expect }) => {
	const subject = unique("subject");
	const before = rateLimiterFor(env, subject);
	await before.hit([window(5, 60)]);
	await before.hit([window(5, 600, "long")]);
	const stub = await elapse(subject, 60_000);
	expect(await runDurableObjectAlarm(stub)).toBe(true);
	const left = await runInDurableObject(stub, (_i, state) => state.storage.sql.exec("SELECT window FROM hits").toArray());
	expect(left).toEqual([{ window: "long" }]);
	// The alarm is rescheduled for what is left.
	expect(await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())).not.toBeNull();
});
