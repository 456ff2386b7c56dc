import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { it } from "vitest";
import type { RateLimiter } from "../durable-objects/RateLimiter";
import { rateLimiterFor } from "../workers/objects";
import { unique } from "./helpers";

const window = (limit: number, windowSeconds = 60, name = "w") => ({ name, limit, windowSeconds });

/** Moves every hit of the object `ms` into the past, as if that much time had gone by. */
async function elapse(stub: DurableObjectStub<RateLimiter>, ms: number) {
	await runInDurableObject(stub, (_instance, state) => {
		state.storage.sql.exec("UPDATE hits SET expires_at = expires_at - ?", ms);
	});
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
	const stub = rateLimiterFor(env, unique("subject"));
	for (let i = 0; i < 3; i++) expect((await stub.hit([window(3)])).allowed).toBe(true);
	expect((await stub.hit([window(3)])).allowed).toBe(false);

	await elapse(stub, 59_000);
	const stillFull = await stub.hit([window(3)]);
	expect(stillFull).toEqual({ allowed: false, retryAfterSeconds: 1 });

	await elapse(stub, 1_000);
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
	const stub = rateLimiterFor(env, unique("subject"));
	await stub.hit([window(5, 60)]);
	await stub.hit([window(5, 600, "long")]);
	await elapse(stub, 60_000);
	expect(await runDurableObjectAlarm(stub)).toBe(true);
	const left = await runInDurableObject(stub, (_i, state) => state.storage.sql.exec("SELECT window FROM hits").toArray());
	expect(left).toEqual([{ window: "long" }]);
	// The alarm is rescheduled for what is left.
	expect(await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())).not.toBeNull();
});
