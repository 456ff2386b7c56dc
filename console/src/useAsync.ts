import { useCallback, useEffect, useState } from "react";

/** Loading, error and data of one request, with a way to run it again after a change. */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[]) {
	const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
	// The caller names what `load` depends on, as with useEffect; a static check cannot see
	// through the list it is handed.
	// biome-ignore lint/correctness/useExhaustiveDependencies: the caller's own dependency list
	const run = useCallback(load, deps);
	const reload = useCallback(() => {
		setState((s) => ({ ...s, loading: true }));
		return run().then(
			(data) => setState({ data, loading: false }),
			(err: Error) => setState({ error: err.message, loading: false }),
		);
	}, [run]);
	useEffect(() => {
		reload();
	}, [reload]);
	return { ...state, reload };
}
