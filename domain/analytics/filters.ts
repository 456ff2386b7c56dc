/**
 * Statistics filters (`?page=/pricing&country=DE&source=Google`), combinable: every one given
 * must hold. Each becomes a condition on analytics_events rows, bound as ?5, ?6... after the
 * site, the range and the list limit (?1-?4). A filter of the visit or the visitor (below, and `page` for visit
 * figures) also reads its list of visitors: a CTE of the statement, one more range scan of
 * analytics_events_site_ts_idx, made once however many conditions name it.
 *
 * Three kinds:
 * - properties of the event (`page`, `country`, `device`, `browser`, `os`): the figures count
 *   only matching events. Country, device, browser and OS match a row's label as the breakdowns
 *   show it ("Unknown" for none).
 * - properties of the visit (`entry_page`, `exit_page`, `source`, `utm_*`, `ref`): the visit
 *   breakdowns' labels. The figures count the events of the sessions labelled so (the first page
 *   view's path, source or campaign value; the last page view's path), so a row of Entry pages,
 *   Exit pages, Sources or a campaign filters to what it counts. The visitors who had a page view
 *   with the value are listed, their events in the range cut into sessions (sessionCut.ts, one
 *   more CTE), and an event kept when it falls within a session that meets the filter.
 *   `source=Direct / None` keeps the sessions that came from no source.
 * - of the visitor (`referrer`, `event`, `property`): known on one event of a visitor (a page
 *   view's referrer host, a custom event), they keep every event of the visitors who had such an
 *   event in the range. `property=plan:pro` keeps those who sent a custom event whose data has
 *   the member `plan` with the value `pro` (as `event_properties` shows it: the name is what
 *   comes before the first colon).
 * `page` narrows event figures (page views, pages, custom events) to that page's events, and
 * visit figures (sessions, bounce rate, visit duration, entry and exit pages, sources,
 * campaigns) to the visits of visitors who viewed it or sent a custom event from it: a visit
 * that reached the pricing page from Google still came from Google.
 */

import type { StatsFilterName } from "../api/sites";
import { VISIT_BREAKDOWNS, type VisitBreakdown } from "./rollups";
import { sampleCondition, type VisitorSample } from "./sampling";
import { SESSION_COLUMNS, sessionCut } from "./sessionCut";
import { DIRECT, label, propertiesOf, RANGE } from "./statsRange";

/** The condition, given the placeholder its value is bound to, the value (for the few that depend on it) and the name of the filter's list of visitors. */
type Condition = (param: string, value: string, visitors: string) => string;
interface FilterDefinition {
	/** The condition on event figures. */
	events: Condition;
	/** The condition on visit figures, when it differs. */
	visits?: Condition;
	/** For a filter on visitors: what puts a visitor on its list (an event of theirs in the range that meets it). */
	visitors?: (param: string, value: string) => string;
	/** For a filter on sessions: its visitors' events are cut into sessions, which its conditions name. */
	sessions?: true;
}

const property = (column: string): FilterDefinition => ({ events: (p) => `${label(column)} = ${p}` });
const inList: Condition = (_p, _value, visitors) => `visitor_id IN ${visitors}`;
const ofVisitors = (column: string): FilterDefinition => ({ events: inList, visitors: (p) => `${column} = ${p}` });
/**
 * The visits a row of a visit breakdown counts: the sessions labelled as the row is (their first
 * page view's path, source or campaign value; their last page view's path), each session's events
 * being its visitor's from its first event to its last. Only the events of the visitors who had a
 * page view with the value (`column`; a source of Direct / None is none) are cut into sessions.
 */
const ofVisits = (breakdown: VisitBreakdown, column: string = breakdown): FilterDefinition => ({
	events: (p, _value, visitors) =>
		`visitor_id IN ${visitors} AND EXISTS (SELECT 1 FROM ${visitors}_sessions AS s
			WHERE s.visitor_id = analytics_events.visitor_id AND analytics_events.ts BETWEEN s.first_ts AND s.last_ts
				AND ${VISIT_BREAKDOWNS[breakdown][0]} = ${p})`,
	visitors: (p, value) => `name = '' AND ${column} = ${breakdown === "sources" && value === DIRECT ? "''" : p}`,
	sessions: true,
});

const FILTERS = {
	// The visitors the page's figures count (page views and custom events there), so that visits
	// never number fewer than visitors.
	page: { events: (p) => `url_path = ${p}`, visits: inList, visitors: (p) => `name NOT IN ('_leave', '_identify') AND url_path = ${p}` },
	entry_page: ofVisits("entry_pages", "url_path"),
	exit_page: ofVisits("exit_pages", "url_path"),
	country: property("country"),
	device: property("device"),
	browser: property("browser"),
	os: property("os"),
	source: ofVisits("sources", "source"),
	referrer: ofVisitors("referrer_host"),
	utm_source: ofVisits("utm_source"),
	utm_medium: ofVisits("utm_medium"),
	utm_campaign: ofVisits("utm_campaign"),
	utm_content: ofVisits("utm_content"),
	utm_term: ofVisits("utm_term"),
	ref: ofVisits("ref"),
	event: ofVisitors("name"),
	property: {
		events: inList,
		// The one value "name:value" is bound once and split here, at its first colon.
		visitors: (p) => `name NOT IN ('', '_leave', '_identify') AND EXISTS (SELECT 1 FROM ${propertiesOf("data")} AS p
			WHERE p.key = substr(${p}, 1, instr(${p}, ':') - 1) AND p.type NOT IN ('object', 'array')
				AND CAST(p.value AS TEXT) = substr(${p}, instr(${p}, ':') + 1))`,
	},
} satisfies Record<StatsFilterName, FilterDefinition>;

export type FilterName = keyof typeof FILTERS;
export type Filters = Partial<Record<FilterName, string>>;
export const FILTER_NAMES = Object.keys(FILTERS) as FilterName[];

/**
 * The SQL a set of filters adds to the queries: conditions (" AND ..." or ""), the CTEs of the
 * visitor lists they name (each read once per statement, however often its conditions name it),
 * and the values it binds from ?5 on.
 */
export interface CompiledFilters {
	/** The events' table as the statement names it. */
	from: string;
	events: string;
	visits: string;
	/** `name AS MATERIALIZED (SELECT visitor_id ...)` and, for a filter on sessions, its visitors' sessions: to open a statement's WITH. */
	visitorLists: string[];
	values: string[];
	/** The placeholder each given filter's value is bound to (`?5`...), for a list that names one (the source's referrer URLs). */
	params: Filters;
}

export function compileFilters(filters: Filters, sample?: VisitorSample): CompiledFilters {
	// A sample keeps its visitors' events only: every read of the events narrows to it, the visitor
	// lists' too, through the sample index, named so that no planner estimate walks a bigger range.
	const inSample = sample ? ` AND ${sampleCondition(sample)}` : "";
	const from = sample ? "analytics_events INDEXED BY analytics_events_sample_idx" : "analytics_events";
	const events: string[] = [];
	const visits: string[] = [];
	const visitorLists: string[] = [];
	const values: string[] = [];
	const params: Filters = {};
	for (const name of FILTER_NAMES) {
		const value = filters[name];
		if (value === undefined) continue;
		values.push(value);
		const param = `?${4 + values.length}`;
		params[name] = param;
		const definition: FilterDefinition = FILTERS[name];
		const list = `visitors_${name}`;
		if (definition.visitors) {
			visitorLists.push(`${list} AS MATERIALIZED (SELECT visitor_id FROM ${from} WHERE ${RANGE}${inSample} AND ${definition.visitors(param, value)})`);
		}
		if (definition.sessions) {
			visitorLists.push(sessionCut(`(SELECT ${SESSION_COLUMNS} FROM ${from} WHERE ${RANGE}${inSample} AND visitor_id IN ${list})`, `${list}_sessions`));
		}
		events.push(definition.events(param, value, list));
		visits.push((definition.visits ?? definition.events)(param, value, list));
	}
	const and = (conditions: string[]) => conditions.map((c) => ` AND ${c}`).join("");
	return { from, events: inSample + and(events), visits: inSample + and(visits), visitorLists, values, params };
}
