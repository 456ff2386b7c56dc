import { DurableObject } from "cloudflare:workers";
import { EarliestAlarm } from "./earliestAlarm";
import type { RateWindow, WindowDecision } from "../domain/limits";
import { HeldWindows } from "./heldWindows";


/**
 * Exact sliding-window rate limits for one subject (`ip:<ip>`, `user:<id>`, ...),
 * for the Worker paths that have no Durable Object of their own to count in.
 *
 * The object runs one request at a time and its SQLite calls are synchronous, so concurrent
 * callers can never both take the last slot. Denied hits are not recorded: a limit counts what
 * was let through.
 */
export class RateLimiter extends DurableObject<Env> {
	#windows!: HeldWindows;
	#alarm: EarliestAlarm;

	constructor(ctx: DurableObjectState, env: Env) {
		super(ctx, env);
		this.#alarm = new EarliestAlarm(ctx.storage);
		ctx.blockConcurrencyWhile(async () => {
			this.#windows = new HeldWindows(ctx.storage.sql);
			await this.#alarm.load();
		});
	}

	/** Takes one hit from each window, all or nothing: a denial in one leaves the others untouched. */
	async hit(windows: RateWindow[]): Promise<WindowDecision> {
		const now = Date.now();
		const decision = this.#windows.take(now, windows);
		this.#windows.writeTaken();
		if (decision.allowed) await this.#alarm.noLaterThan(now + Math.max(...windows.map((w) => w.windowSeconds)) * 1000);
		return decision;
	}

	/** Gives back the hit a request took when another window or authentication then refused it. */
	async refund(windows: RateWindow[]): Promise<void> {
		this.#windows.giveBack(windows);
	}

	/** How full a window is, without taking a hit: for limits that count failures only. */
	async peek(window: RateWindow): Promise<{ used: number; retryAfterSeconds: number }> {
		return this.#windows.peek(Date.now(), window);
	}

	/** Ends windows: once every hit has expired the object holds nothing. */
	async alarm(): Promise<void> {
		this.#alarm.fired();
		const latest = this.#windows.sweep(Date.now());
		if (latest !== null) await this.#alarm.noLaterThan(latest);
	}
}
