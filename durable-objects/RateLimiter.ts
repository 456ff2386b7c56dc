import { DurableObject } from "cloudflare:workers";

export interface RateDecision {
	allowed: boolean;
	/** Hits left in the window after this one (0 when denied). */
	remaining: number;
	/** Seconds until the next hit would be allowed; 0 when allowed. */
	retryAfterSeconds: number;
}

export interface RateWindow {
	/** Which limit this is, e.g. "feedback" or "login"; one object holds many. */
	name: string;
	limit: number;
	windowSeconds: number;
}

/**
 * Exact sliding-window rate limits for one subject (`ip:<ip>`, `key:<id>`, `site:<id>`, ...).
 *
 * Each accepted hit is a row that expires `windowSeconds` after it was taken, so "more than N
 * in any W seconds" is answered exactly, not approximated by fixed buckets. The object runs one
 * request at a time and SQLite calls are synchronous, so concurrent callers can never both take
 * the last slot. Denied hits are not recorded: the limit counts what was let through.
 */
export class RateLimiter extends DurableObject<Env> {
	#sql: SqlStorage;
	/** When the clean-up alarm is set to fire, to avoid a storage write per hit. */
	#alarmAt: number | null = null;

	constructor(ctx: DurableObjectState, env: Env) {
		super(ctx, env);
		this.#sql = ctx.storage.sql;
		ctx.blockConcurrencyWhile(async () => {
			this.#sql.exec(`CREATE TABLE IF NOT EXISTS hits (window TEXT NOT NULL, expires_at INTEGER NOT NULL)`);
			this.#sql.exec(`CREATE INDEX IF NOT EXISTS hits_window_expiry ON hits (window, expires_at)`);
			this.#alarmAt = await ctx.storage.getAlarm();
		});
	}

	/** Takes one hit from each window, all or nothing: a denial in one leaves the others untouched. */
	async hit(windows: RateWindow[]): Promise<RateDecision> {
		const now = Date.now();
		let remaining = Number.POSITIVE_INFINITY;
		for (const { name, limit, windowSeconds } of windows) {
			this.#sql.exec(`DELETE FROM hits WHERE window = ? AND expires_at <= ?`, name, now);
			const { used, oldest } = this.#sql
				.exec<{ used: number; oldest: number | null }>(
					`SELECT count(*) AS used, min(expires_at) AS oldest FROM hits WHERE window = ?`,
					name,
				)
				.one();
			if (used >= limit) {
				const retryAfterMs = (oldest ?? now + windowSeconds * 1000) - now;
				return { allowed: false, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
			}
			remaining = Math.min(remaining, limit - used - 1);
		}
		let latestExpiry = now;
		for (const { name, windowSeconds } of windows) {
			const expiresAt = now + windowSeconds * 1000;
			this.#sql.exec(`INSERT INTO hits (window, expires_at) VALUES (?, ?)`, name, expiresAt);
			latestExpiry = Math.max(latestExpiry, expiresAt);
		}
		await this.#scheduleCleanup(latestExpiry);
		return { allowed: true, remaining, retryAfterSeconds: 0 };
	}

	/** Ends windows: once every hit has expired the object holds nothing. */
	async alarm(): Promise<void> {
		const now = Date.now();
		this.#sql.exec(`DELETE FROM hits WHERE expires_at <= ?`, now);
		const { latest } = this.#sql.exec<{ latest: number | null }>(`SELECT max(expires_at) AS latest FROM hits`).one();
		this.#alarmAt = null;
		if (latest !== null) await this.#scheduleCleanup(latest);
	}

	async #scheduleCleanup(at: number): Promise<void> {
		// Pushing the alarm later by a few seconds per hit is pointless; clean-up can be late.
		if (this.#alarmAt !== null && this.#alarmAt + 10_000 >= at) return;
		this.#alarmAt = at;
		await this.ctx.storage.setAlarm(at);
	}
}
