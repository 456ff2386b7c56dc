/**
 * Errors known to be noise in their own details: one issue each, whatever their stacks, values
 * or the client's own `fingerprint` say, as Sentry's built-in fingerprinting rules make them.
 */
import type { LogException } from "../logEvent";

interface BuiltInRule {
	fingerprint: string[];
	matches: (exception: Pick<LogException, "type" | "value">) => boolean;
}

const BUILT_IN_RULES: BuiltInRule[] = [
	{
		// webpack's failed lazy chunk: type ChunkLoadError, "Loading chunk 7 failed.\n(error: …)", and
		// the same text where the type got lost (a rejection's reason, "Uncaught ChunkLoadError: …").
		fingerprint: ["chunkloaderror"],
		matches: ({ type, value }) =>
			type === "ChunkLoadError" || /^\s*(?:Uncaught\s+)?ChunkLoadError\b/.test(value ?? "") || /^\s*Loading (?:CSS )?chunk [\w.-]+ failed/i.test(value ?? ""),
	},
];

/** The fingerprint of the first rule any of the exceptions (or the message, as an error's text) matches. */
export function builtInFingerprint(exceptions: LogException[], message: string | null): string[] | null {
	const candidates: Pick<LogException, "type" | "value">[] = exceptions.length > 0 ? exceptions : [{ type: null, value: message }];
	return BUILT_IN_RULES.find((rule) => candidates.some(rule.matches))?.fingerprint ?? null;
}
