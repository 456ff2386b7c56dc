// Why a fetch failed, as a person reads it: Node's fetch throws "fetch
// failed" and keeps the reason (connection refused, host not found,
// timeout...) in its cause.

/** @param {unknown} err */
export function fetchFailure(err) {
	if (!(err instanceof Error)) return String(err);
	if (err.name === "TimeoutError") return "no answer in time";
	return err.cause instanceof Error ? err.cause.message : err.message;
}
