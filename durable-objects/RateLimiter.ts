import { DurableObject } from "cloudflare:workers";
import { type CountedWindow, SlidingWindows, type WindowDecision } from "./slidingWindows";

export type RateWindow = CountedWindow;
export type RateDecision = WindowDecision;

/**
 * Exact sliding-window rate limits for one subject (`ip:<ip>`, `key:<id>`, `user:<id>`, ...),
 * for the Worker paths that have no Durable Object of their own to count in.
 *
 * The object runs one request at a time and its SQLite calls are synchronous, so concurrent
 * callers can never both take the last slot. Denied hits are not recorded: a limit counts what
 * was let through.
 */
export class RateLimiter extends DurableObject<Env> {
	#windows!: SlidingWindows;
	/** When the clean-up alarm is set to fire, to avoid a storage write per hit. */
	#alarmAt: number | null = null;

	constructor(ctx: DurableObjectState, env: Env) {
		super(ctx, env);
		ctx.blockConcurrencyWhile(async () => {
			this.#windows = new SlidingWindows(ctx.storage.sql);
			this.#alarmAt = await ctx.storage.getAlarm();
		});
	}

	/** Takes one hit from each window, all or nothing: a denial in one leaves the others untouched. */
	async hit(windows: RateWindow[]): Promise<RateDecision> {
		const now = Date.now();
		const decision = this.#windows.take(now, windows);
		if (decision.allowed) await this.#scheduleCleanup(now + Math.max(...windows.map((w) => w.windowSeconds)) * 1000);
		return decision;
	}

	/** Ends windows: once every hit has expired the object holds nothing. */
	async alarm(): Promise<void> {
		this.#alarmAt = null;
		const latest = this.#windows.sweep(Date.now());
		if (latest !== null) await this.#scheduleCleanup(latest);
	}

	async #scheduleCleanup(at: number): Promise<void> {
		// Pushing the alarm later by a few seconds per hit is pointless; clean-up can be late.
		if (this.#alarmAt !== null && this.#alarmAt + 10_000 >= at) return;
		this.#alarmAt = at;
		await this.ctx.storage.setAlarm(at);
	}
}
