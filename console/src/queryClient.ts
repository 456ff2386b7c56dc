import { type InvalidateQueryFilters, MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";
import { ApiError } from "./api";

/** Listeners for answers that concern the whole session rather than one page. */
export const sessionEvents = new EventTarget();

function onApiError(error: Error) {
	if (!(error instanceof ApiError)) return;
	// 401: the session ended (signed out elsewhere, expired); 402: access lapsed while signed in.
	if (error.status === 401 || error.status === 402) sessionEvents.dispatchEvent(new Event(String(error.status)));
}

/**
 * The console's cache. A page shows what it last read at once and reads again whenever it is
 * opened, on focus and after every change; a query's newer answer always wins over an older one
 * still in flight. A refusal (4xx) is not retried.
 */
export const queryClient = new QueryClient({
	queryCache: new QueryCache({ onError: onApiError }),
	mutationCache: new MutationCache({ onError: onApiError }),
	defaultOptions: {
		queries: {
			retry: (failures, error) => !(error instanceof ApiError && error.status < 500) && failures < 2,
		},
	},
});

/**
 * A mutation's `onSettled`: reads what the change touched again (`filters`). After a success the
 * action stays pending until the new answer is in, so it ends with its result on screen. After a
 * failure it does not wait: the error shows at once, beside the change the page has just undone,
 * not after the read's own retries (seconds while the service fails or cannot be reached).
 */
export function refreshAfter(error: unknown, filters: InvalidateQueryFilters): Promise<void> | undefined {
	const refreshed = queryClient.invalidateQueries(filters);
	return error ? undefined : refreshed;
}
