/**
 * Exception chains and groups: which of their exceptions decide the group, the way Sentry
 * decides it. Each exception's `mechanism` names its id and its parent's; the reported exception
 * is 0. A chain of causes groups by all its members; a group (AggregateError, ExceptionGroup,
 * AggregateException) whose children come down to one distinct exception groups as that exception
 * with its causes, so a wrapper never merges unrelated errors and never splits one error; a group
 * of several distinct exceptions groups by one of each plus the group itself. When the ids do not
 * make a tree (one missing, repeated, a missing parent or root, a cycle) the chain counts whole,
 * as sent.
 */
import type { LogException } from "../logEvent";

/**
 * The tree of `chain` by mechanism ids, as children per exception id; null when the ids do not
 * make one tree under the root 0: an id missing or repeated, a parent missing, an exception
 * other than the root without a parent, or a cycle (exceptions the root never reaches).
 */
function childrenById(chain: LogException[]): Map<number, LogException[]> | null {
	const children = new Map<number, LogException[]>();
	for (const exception of chain) {
		const id = exception.mechanism?.exception_id;
		if (id === undefined || children.has(id)) return null;
		children.set(id, []);
	}
	// Causes and children come before what holds them: walking back lists a parent's children in
	// the order the parent holds them (`errors[0]` first).
	for (const exception of chain.toReversed()) {
		const { exception_id: id, parent_id: parentId } = exception.mechanism ?? {};
		if (id === 0) {
			if (parentId !== undefined) return null;
			continue;
		}
		const siblings = parentId === undefined ? undefined : children.get(parentId);
		if (!siblings) return null;
		siblings.push(exception);
	}
	if (!children.has(0)) return null;
	let reached = 0;
	const reach = (id: number) => {
		reached++;
		for (const child of children.get(id) ?? []) reach(child.mechanism?.exception_id ?? -1);
	};
	reach(0);
	return reached === chain.length ? children : null;
}

/**
 * The exceptions whose keys make the fingerprint. `keyOf` gives an exception's grouping key, so
 * children that are the same error count once.
 */
export function exceptionsForGrouping(chain: LogException[], keyOf: (exception: LogException) => string): LogException[] {
	if (chain.length <= 1) return chain;
	const children = childrenById(chain);
	if (!children) return chain;
	const childrenOf = (exception: LogException) => children.get(exception.mechanism?.exception_id ?? -1) ?? [];
	const root = chain.find((exception) => exception.mechanism?.exception_id === 0) as LogException;

	// The first exceptions below the root that are not groups themselves.
	const topLevel: LogException[] = [];
	const walk = (exception: LogException): void => {
		if (exception.mechanism?.is_exception_group) childrenOf(exception).forEach(walk);
		else topLevel.push(exception);
	};
	walk(root);
	if (topLevel.length === 0) return chain;

	// Sentry sorts by type (descending, stable) and then drops a copy only when it follows its twin.
	const typeOf = (exception: LogException) => exception.type ?? "";
	topLevel.sort((a, b) => (typeOf(a) === typeOf(b) ? 0 : typeOf(a) < typeOf(b) ? 1 : -1));
	const distinct = topLevel.filter((exception, i) => i === 0 || keyOf(exception) !== keyOf(topLevel[i - 1]));
	if (distinct.length > 1) return [...distinct, root];

	// One distinct exception: it, its first cause or child, that one's first, and so on.
	const path: LogException[] = [];
	for (let e: LogException | undefined = distinct[0]; e; e = childrenOf(e)[0]) path.push(e);
	return path;
}
