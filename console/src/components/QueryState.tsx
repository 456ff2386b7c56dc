import type { UseQueryResult } from "@tanstack/react-query";
import { Link, useLocation } from "react-router";
import { ApiError } from "../api";
import { type FieldWords, type Problem, problemsOf, problemText, refusalText } from "../refusals";

/**
 * What a failed request means to the owner, in words. A read retries on its own; an action (a
 * save, a status change, a delete) is the owner's to try again. A refusal of what a form sent is
 * said in the words of its `fields` (by the members the API names).
 */
export function describeError(error: unknown, { action = false, fields }: { action?: boolean; fields?: Readonly<Record<string, FieldWords>> } = {}): string {
	if (error instanceof ApiError && error.status === 402) return "Your access has ended: your trial is over and this account is not on Pro. Your data is kept.";
	const refused = fields && refusalText(error, fields);
	if (refused) return refused;
	if (error instanceof ApiError) return error.message;
	return `The service could not be reached. Check your connection; ${action ? "then try again" : "this page retries on its own"}.`;
}

/**
 * An action's failure (`error` of a mutation), in words, as an alert; nothing when there is none.
 * `inline` in a row of controls; `fields` words a refusal of what a form sent.
 */
export function ActionError({ error, inline = false, fields }: { error: unknown; inline?: boolean; fields?: Readonly<Record<string, FieldWords>> }) {
	if (!error) return null;
	const Element = inline ? "span" : "p";
	return (
		<Element className="error" role="alert">
			{describeError(error, { action: true, fields })}
		</Element>
	);
}

/** How the pages word the members of their address that they pass on to a read. */
const ADDRESS_FIELDS: Readonly<Record<string, FieldWords>> = {
	q: { name: "The search in this page's address" },
	environment: { name: "The environment in this page's address" },
	release: { name: "The release in this page's address" },
};

/** A read's refusal of what the page's address holds, a sentence a problem. */
function addressRefusalText(error: ApiError): string {
	const problems = problemsOf(error) ?? [{ path: "", message: error.message }];
	const said = (problem: Problem) =>
		Object.hasOwn(ADDRESS_FIELDS, problem.path)
			? problemText(problem, ADDRESS_FIELDS[problem.path])
			: `This page's address holds something the service does not take (${problem.path ? `${problem.path}: ` : ""}${problem.message}).`;
	return problems.map(said).join(" ");
}

/**
 * A failed read in words. A read's 400 comes from the page's address (a filter value typed or
 * pasted into it): said so, with a link to the page without its choices.
 */
function ReadError({ error, prefix = "" }: { error: unknown; prefix?: string }) {
	const { pathname, search } = useLocation();
	const fromAddress = error instanceof ApiError && error.status === 400;
	return (
		<p className="error" role="alert">
			{prefix}
			{fromAddress ? addressRefusalText(error) : describeError(error)}{" "}
			{fromAddress && search !== "" && <Link to={pathname}>Show this page without its choices</Link>}
		</p>
	);
}

/**
 * The loading, error and empty states of a list, in words. Renders nothing once there is
 * something to show; a refetch keeps the rows on screen. While the answer on screen is the one
 * for what was asked before (a new period or filter is being counted), says so: a filtered
 * answer over a long period can take seconds.
 */
export function QueryState<T>({
	query,
	loading,
	empty,
	isEmpty = (data) => Array.isArray(data) && data.length === 0,
}: {
	query: Pick<UseQueryResult<T>, "isPending" | "isError" | "data" | "error"> & { isPlaceholderData?: boolean };
	loading: string;
	empty: string;
	isEmpty?: (data: T) => boolean;
}) {
	if (query.isPending) return <p className="muted" role="status">{loading}</p>;
	if (query.isError && query.data === undefined) return <ReadError error={query.error} />;
	if (query.data !== undefined && isEmpty(query.data)) return <p className="muted empty">{empty}</p>;
	if (query.isError) return <ReadError error={query.error} prefix="Could not refresh: " />;
	if (query.isPlaceholderData) return <p className="muted" role="status">Counting for what you chose; the figures below are still the previous ones…</p>;
	return null;
}
