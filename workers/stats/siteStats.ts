import type { IRequest } from "itty-router";
import { z } from "zod";
import { BREAKDOWN_COLUMNS, type BreakdownName, computeBreakdown, computeSiteStats } from "../../domain/analytics/siteStats";
import type { Filters } from "../../domain/analytics/filters";
import { filterOperators, filterParam, STATS_FILTER_PARAMS, type StatsFilterParam } from "../../domain/api/sites";
import { OWNER_LIMITS } from "../../domain/limits";
import { HttpError, json } from "../http";
import { limitParam, parseBody, queryParams, queryText } from "../validation";
import { csvOf } from "../csv";
import { csvFileName } from "./csv";
import { ownSiteUpToDate } from "./ownSite";
import { readRange } from "./range";

const filterValue = queryText().min(1, "must not be empty").max(OWNER_LIMITS.filterValue, `must be at most ${OWNER_LIMITS.filterValue} characters`);
/** `property=plan:pro`: a custom event property's name, a colon, and its value (either may hold colons, or be empty). */
const propertyValue = filterValue.regex(/:/, "must be a property name, a colon and its value, as plan:pro");
/**
 * Each filter "is" (`country=US`), "is not" (`country_not=US`) and, for most, "contains" and "does
 * not contain" (`page_contains=blog`, `page_contains_not=blog`); several of one filter at once must
 * all hold. A property's are all a name, a colon and a value (or the text its value contains).
 */
export const filterFields = {
	...(Object.fromEntries(STATS_FILTER_PARAMS.map((name) => [name, filterValue.optional()])) as Record<StatsFilterParam, z.ZodOptional<z.ZodString>>),
	...Object.fromEntries(filterOperators("property").map((operator) => [filterParam("property", operator), propertyValue.optional()])),
};

/** Every parameter a statistics request may carry; anything else (a misspelt filter) is a 400, not silently ignored. */
const statsQuery = queryParams({
	from: queryText().optional(),
	to: queryText().optional(),
	limit: queryText().optional(),
	compare: z.literal("previous", { error: 'must be "previous"' }).optional(),
	exact: z.literal("true", { error: 'must be "true"' }).optional(),
	...filterFields,
});

/** A CSV export is one period's breakdown, up to its own row limit: no comparison. */
const csvQuery = statsQuery.omit({ compare: true, limit: true }).extend({ limit: limitParam(OWNER_LIMITS.csvRows).optional() });

/** The filters given, at most OWNER_LIMITS.statsFilters of them: more would make a statement longer than D1 runs. */
export function fewEnough(filters: Record<string, string | undefined>): Filters {
	const given = Object.keys(filters).filter((name) => filters[name] !== undefined).length;
	if (given > OWNER_LIMITS.statsFilters) {
		throw new HttpError(400, `Invalid request: at most ${OWNER_LIMITS.statsFilters} filters at once, ${given} given`);
	}
	return filters as Filters;
}

function readStatsQuery(query: Record<string, unknown>) {
	const { from, to, limit, compare, exact, ...filters } = parseBody(statsQuery, query);
	return { range: readRange({ from, to, limit }), comparePrevious: compare === "previous", exact: exact === "true", filters: fewEnough(filters) };
}

/** GET /api/sites/:tracking_id/stats?from=&to=&limit=&compare=previous&exact=true&<filter>= → the dashboard's figures (docs/api.md#statistics). */
export async function siteStats(request: IRequest, env: Env): Promise<Response> {
	const { range, filters, comparePrevious, exact } = readStatsQuery(request.query);
	const site = await ownSiteUpToDate(request, env);
	return json(await computeSiteStats(env, site.trackingId, { range, filters, comparePrevious, exact, now: Date.now() }));
}

/**
 * GET /api/sites/:tracking_id/stats/:breakdown.csv?from=&to=&limit=&exact=true&<filter>= → one
 * breakdown of the statistics as CSV, up to 10,000 rows (default all of them up to that), counted
 * as the dashboard counts it.
 */
export async function statsCsv(request: IRequest, env: Env): Promise<Response> {
	const file = /^([a-z_]+)\.csv$/.exec(request.params.file ?? "");
	const name = file?.[1];
	// Own keys only: "constructor.csv" names no breakdown.
	if (!name || !Object.hasOwn(BREAKDOWN_COLUMNS, name)) {
		throw new HttpError(404, `No such breakdown: use one of ${Object.keys(BREAKDOWN_COLUMNS).map((n) => `${n}.csv`).join(", ")}`);
	}
	const { limit = OWNER_LIMITS.csvRows, from, to, exact, ...given } = parseBody(csvQuery, request.query);
	const range = readRange({ from, to });
	const filters = fewEnough(given);
	if (name === "referrer_urls" && filters.source === undefined) {
		throw new HttpError(400, "Invalid request: referrer_urls.csv lists one source's referrers: give it source=<a source>");
	}
	const site = await ownSiteUpToDate(request, env);
	const breakdown = name as BreakdownName;
	const { rows, samplePercent } = await computeBreakdown(env, site.trackingId, breakdown, { ...range, limit }, filters, exact === "true");
	return new Response(csvOf(BREAKDOWN_COLUMNS[breakdown], rows), {
		headers: {
			"content-type": "text/csv; charset=utf-8",
			"content-disposition": `attachment; filename="${csvFileName(site, breakdown, range)}"`,
			// What `sample_percent` says in the JSON answer: below 100, the counts are estimates.
			"x-sample-percent": String(samplePercent),
		},
	});
}
