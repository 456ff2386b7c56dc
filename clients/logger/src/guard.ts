let depth = 0;

/**
 * Runs SDK work: anything it throws is swallowed, and while it runs the SDK cannot be entered
 * again, so nothing the SDK itself causes (a console call, a capture from `beforeSend`) is
 * recorded or captured.
 */
export function guarded<T>(work: () => T): T | undefined {
	if (depth > 0) return undefined;
	depth++;
	try {
		return work();
	} catch {
		return undefined;
	} finally {
		depth--;
	}
}
