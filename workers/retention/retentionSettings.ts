/**
 * The retention settings, from the Worker vars in wrangler.toml. A bad value never stops the
 * clean-up: it falls back to the default and is reported once per isolate.
 */
import { z } from "zod";
import { RETENTION_DAYS, RETENTION_LIMITS } from "../../domain/limits";

type RetentionKind = keyof typeof RETENTION_DAYS;

// Vars set in wrangler.toml as TOML numbers arrive as numbers, everything else as text.
const daysSchema = z
	.union([z.number(), z.string().trim().regex(/^\d+$/).transform(Number)])
	.pipe(z.number().int().min(RETENTION_LIMITS.minDays).max(RETENTION_LIMITS.maxDays));

const reported = new Set<string>();

function parseDays(variable: string, value: unknown, fallback: number): number {
	if (value === undefined) return fallback;
	const parsed = daysSchema.safeParse(value);
	if (parsed.success) return parsed.data;
	const report = `${variable}=${JSON.stringify(value)}`;
	if (!reported.has(report)) {
		reported.add(report);
		console.warn(
			`${report} is not a whole number of days from ${RETENTION_LIMITS.minDays} to ${RETENTION_LIMITS.maxDays.toLocaleString("en-US")}; keeping ${fallback} days`,
		);
	}
	return fallback;
}

/** Days each kind of data is kept. */
export function retentionDays(env: Env): Record<RetentionKind, number> {
	const days = (kind: RetentionKind) => {
		const { variable, default: fallback } = RETENTION_DAYS[kind];
		return parseDays(variable, env[variable], fallback);
	};
	return { analytics: days("analytics"), crawler: days("crawler"), logs: days("logs") };
}
