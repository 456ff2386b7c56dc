/**
 * Statistics filters (`?page=/pricing&country=DE&source=Google`), combinable: every one given
 * must hold. Each becomes a condition on analytics_events rows, bound as ?5, ?6... after the
 * site, the range and the list limit (?1-?4). A filter of the visit (below) also
 * reads its list of visitors: a CTE of the statement, one more range scan of
 * analytics_events_site_ts_idx, made once however many conditions name it.
 *
 * Two kinds:
 * - properties of the event (`country`, `device`, `browser`, `os`): the figures count only
 *   matching events. They match a row's label as the breakdowns show it ("Unknown" for none).
 * - of the visit: the figures count the events of the sessions that meet the filter. The visitors
 *   who had an event that meets it are listed, their events in the range cut into sessions
 *   (sessionCut.ts, one more CTE), and an event kept when it falls within such a session.
 *   - the visit breakdowns' labels (`entry_page`, `exit_page`, `source`, `utm_*`, `ref`): the
 *     first page view's path, source or campaign value, the last page view's path, so a row of
 *     Entry pages, Exit pages, Sources or a campaign filters to what it counts; `referrer`, the
 *     first page view's referrer host.
 *     `source=Direct / None` keeps the sessions that came from no source.
 *   - what the visit had (`event`, `property`): a custom event of that name, or one whose data
 *     has the member with the value (`property=plan:pro`, as `event_properties` shows it: its
 *     name, a colon and its value). The visits that converted.
 *   - `page`: event figures (page views, pages, custom events) count that page's events, visit
 *     figures (sessions, bounce rate, visit duration, entry and exit pages, sources, campaigns)
 *     the visits that had a page view or custom event on it: a visit that reached the pricing
 *     page from Google still came from Google.
 *
 * Each also "is not" (`country_not=US`), as Plausible's filters are:
 * - of the event: the events the filter does not keep (`country_not=US` keeps the Unknown ones).
 * - `page`: as Plausible's page is not: the events off the page, and the visits that had a page view
 *   or custom event off it (a visit that saw only that page is left out, one that saw it and
 *   another is kept).
 * - the other visit filters: every session the filter does not keep, cut from every visitor's
 *   events (there is no list to narrow them to): `source_not=Google` keeps the direct visits,
 *   `utm_source_not=x` those without a campaign, `event_not=signup` the visits without a signup
 *   (Plausible's "has not done").
 *
 * Most also "contain" a text (`page_contains=blog`, `page_contains_not=blog`), as Plausible's
 * dashboard: the same kinds and the same "not", the value matched as a part of the label, letter
 * case aside (CONTAINS), where "is" matches it whole.
 */

import { type ContainsFilterName, filterParam, STATS_FILTER_NAMES, STATS_FILTER_OPERATORS, type StatsFilterName, type StatsFilterParam } from "../api/sites";
import { VISIT_BREAKDOWNS, type VisitBreakdown } from "./rollups";
import { sampleCondition, type VisitorSample } from "./sampling";
import { SESSION_COLUMNS, sessionCut } from "./sessionCut";
import { DIRECT, IS_PROPERTY, label, propertiesOf, RANGE } from "./statsRange";

/** The condition, given the placeholder its value is bound to, the value (for the few that depend on it) and the name of the filter's list of visitors. */
type Condition = (param: string, value: string, visitors: string) => string;
/** A filter of the event: a condition on the events both kinds of figures count. */
interface EventFilter {
	events: Condition;
}
/**
 * A filter of the visit: what puts a visitor on its list (an event of theirs in the range that
 * meets it), and what a session of theirs must be (a condition on sessionCut's row `s`, with
 * `hits`: how many of its events put the visitor on the list). The figures count the events of
 * such sessions (a session's events are its visitor's from its first event to its last), event
 * figures other ones when `events` says so.
 */
interface VisitFilter {
	visitors: (param: string, value: string) => string;
	session: (param: string) => string;
	events?: Condition;
	/** Its "is not", when that is not the sessions this one does not keep (`page`). */
	not?: VisitFilter;
}
type FilterDefinition = EventFilter | VisitFilter;

const property = (column: string): EventFilter => ({ events: (p) => `${label(column)} = ${p}` });

/**
 * The `analytics_events` rows within the sessions of `cut` that meet `condition`; with a list of
 * visitors (`visitors`), only its visitors', read through their index.
 */
const inSessions = (cut: string, condition: string, visitors?: string) =>
	`${visitors ? `visitor_id IN ${visitors} AND ` : ""}EXISTS (SELECT 1 FROM ${cut} AS s
			WHERE s.visitor_id = analytics_events.visitor_id AND analytics_events.ts BETWEEN s.first_ts AND s.last_ts AND ${condition})`;
/** The sessions that hold an event that put their visitor on the list: the visits with the page, the conversion. */
const hadHit = () => "s.hits > 0";

/**
 * The visits a row of a visit breakdown counts: the sessions labelled as the row is (their first
 * page view's path, source or campaign value; their last page view's path). Only the events of
 * the visitors who had a page view with the value (`column`; a source of Direct / None is none)
 * are cut into sessions.
 */
const ofVisits = (breakdown: VisitBreakdown, column: string = breakdown): VisitFilter => ({
	visitors: (p, value) => `name = '' AND ${column} = ${breakdown === "sources" && value === DIRECT ? "''" : p}`,
	session: (p) => `${VISIT_BREAKDOWNS[breakdown][0]} = ${p}`,
});

/** A page view or custom event on a path: what page counts. */
const VISIT_EVENT = "name NOT IN ('_leave', '_identify')";

const FILTERS = {
	// Event figures: the page's own page views and custom events. Visit figures: the visits that
	// had one of them, so that visits never number fewer than visitors.
	page: {
		events: (p) => `url_path = ${p}`,
		visitors: (p) => `${VISIT_EVENT} AND url_path = ${p}`,
		session: hadHit,
		// Plausible's page is not: the events off the page, and the visits that had one.
		not: { events: (p) => `url_path <> ${p}`, visitors: (p) => `${VISIT_EVENT} AND url_path <> ${p}`, session: hadHit },
	},
	entry_page: ofVisits("entry_pages", "url_path"),
	exit_page: ofVisits("exit_pages", "url_path"),
	country: property("country"),
	device: property("device"),
	browser: property("browser"),
	os: property("os"),
	source: ofVisits("sources", "source"),
	// The visits whose first page view came from that referrer host, as Sources counts visits.
	referrer: { visitors: (p) => `name = '' AND referrer_host = ${p}`, session: (p) => `s.entry_referrer = ${p}` },
	utm_source: ofVisits("utm_source"),
	utm_medium: ofVisits("utm_medium"),
	utm_campaign: ofVisits("utm_campaign"),
	utm_content: ofVisits("utm_content"),
	utm_term: ofVisits("utm_term"),
	ref: ofVisits("ref"),
	// The visits that converted: that had the custom event.
	event: { visitors: (p) => `name = ${p}`, session: hadHit },
	property: {
		// "name:value" is compared whole with each property's name, a colon and its value, so a name
		// may hold colons too (plan:pro:2 is plan = pro:2 and plan:pro = 2 alike).
		visitors: (p) => `name NOT IN ('', '_leave', '_identify') AND EXISTS (SELECT 1 FROM ${propertiesOf("data")} AS p
			WHERE ${IS_PROPERTY} AND p.key || ':' || CAST(p.value AS TEXT) = ${p})`,
		session: hadHit,
	},
} satisfies Record<StatsFilterName, FilterDefinition>;

/**
 * `text` holds `param`'s value, letter case aside (A-Z as a-z, as SQLite folds case): a plain
 * search for the text, so `%`, `_` and `\` in it are characters like any other, never a LIKE
 * pattern's wildcards or escape.
 */
const holds = (text: string, param: string) => `instr(lower(${text}), lower(${param})) > 0`;

/** A visit breakdown's "contains": as ofVisits, the label holding the value (`label`: the column as the breakdown shows it). */
const containingVisits = (breakdown: VisitBreakdown, label: string = breakdown): VisitFilter => ({
	visitors: (p) => `name = '' AND ${holds(label, p)}`,
	session: (p) => holds(VISIT_BREAKDOWNS[breakdown][0], p),
});

/**
 * "Contains" of the filters that offer it: the conditions of "is" above, with the label holding
 * the value where "is" has it equal. Its "does not contain" is to "contains" what "is not" is to
 * "is".
 */
const CONTAINS = {
	page: {
		events: (p) => holds("url_path", p),
		visitors: (p) => `${VISIT_EVENT} AND ${holds("url_path", p)}`,
		session: hadHit,
		not: { events: (p) => `NOT ${holds("url_path", p)}`, visitors: (p) => `${VISIT_EVENT} AND NOT ${holds("url_path", p)}`, session: hadHit },
	},
	entry_page: containingVisits("entry_pages", "url_path"),
	exit_page: containingVisits("exit_pages", "url_path"),
	browser: { events: (p) => holds(label("browser"), p) },
	os: { events: (p) => holds(label("os"), p) },
	// The label Sources shows, so that "direct" finds the visits of Direct / None.
	source: containingVisits("sources", `coalesce(nullif(source, ''), '${DIRECT}')`),
	referrer: { visitors: (p) => `name = '' AND ${holds("referrer_host", p)}`, session: (p) => holds("s.entry_referrer", p) },
	utm_source: containingVisits("utm_source"),
	utm_medium: containingVisits("utm_medium"),
	utm_campaign: containingVisits("utm_campaign"),
	utm_content: containingVisits("utm_content"),
	utm_term: containingVisits("utm_term"),
	ref: containingVisits("ref"),
	event: { visitors: (p) => `name NOT IN ('', '_leave', '_identify') AND ${holds("name", p)}`, session: hadHit },
	property: {
		// As Plausible's "Property plan contains pr": the text up to a colon is a property's name,
		// whole and with its case, and the rest is held in its value. Every colon is tried as the one
		// (as "is" compares name:value whole), so a name may hold colons too.
		visitors: (p) => `name NOT IN ('', '_leave', '_identify') AND EXISTS (SELECT 1 FROM ${propertiesOf("data")} AS p
			WHERE ${IS_PROPERTY} AND substr(${p}, 1, length(p.key) + 1) = p.key || ':' AND ${holds("CAST(p.value AS TEXT)", `substr(${p}, length(p.key) + 2)`)})`,
		session: hadHit,
	},
} satisfies Record<ContainsFilterName, FilterDefinition>;

/** The filters given, by parameter: `country` for "is", `country_not` for "is not", `page_contains`... */
export type Filters = Partial<Record<StatsFilterParam, string>>;

/** Each filter with each of its operators, in a fixed order: its definition, and whether it keeps what that definition does not. */
const GIVEN_FILTERS = STATS_FILTER_NAMES.flatMap((name) =>
	STATS_FILTER_OPERATORS.flatMap((operator) => {
		const contains = operator === "contains" || operator === "contains_not";
		const definition: FilterDefinition | undefined = contains ? (CONTAINS as Partial<Record<string, FilterDefinition>>)[name] : FILTERS[name];
		return definition ? [{ key: filterParam(name, operator), definition, negated: operator.endsWith("not") }] : [];
	}),
);

/**
 * The SQL a set of filters adds to the queries: conditions (" AND ..." or ""), the CTEs of the
 * visitor lists they name and their sessions (each read once per statement, however often its
 * conditions name it), and the values it binds from ?5 on.
 */
export interface CompiledFilters {
	/** The events' table as the statement names it. */
	from: string;
	events: string;
	visits: string;
	/** `name AS MATERIALIZED (SELECT visitor_id ...)` and, for a filter of the visit, its visitors' sessions: to open a statement's WITH. */
	visitorLists: string[];
	/**
	 * When every filter is of the visit: the sessions the visit figures count, as rows of
	 * sessionCut's, already cut by the filters' CTEs. Cutting the events they keep again would give
	 * the same sessions: each filter cuts every event of its visitors, so a visitor's sessions are
	 * the same in each.
	 */
	sessions?: string;
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
	const sessionSets: Array<{ cut: string; condition: string }> = [];
	let everyFilterOfTheVisit = true;
	const values: string[] = [];
	const params: Filters = {};
	for (const { key, definition: given, negated } of GIVEN_FILTERS) {
		const value = filters[key];
		if (value === undefined) continue;
		values.push(value);
		const param = `?${4 + values.length}`;
		params[key] = param;
		if (!("session" in given)) {
			everyFilterOfTheVisit = false;
			const condition = given.events(param, value, "");
			const kept = negated ? `NOT (${condition})` : condition;
			events.push(kept);
			visits.push(kept);
			continue;
		}
		// "Is not" of a visit filter keeps the sessions "is" does not: of every visitor, so no list.
		const definition = negated && given.not ? given.not : given;
		const everyVisitor = negated && !given.not;
		const list = `visitors_${key}`;
		const cut = `${list}_sessions`;
		const onTheList = definition.visitors(param, value);
		if (!everyVisitor) visitorLists.push(`${list} AS MATERIALIZED (SELECT visitor_id FROM ${from} WHERE ${RANGE}${inSample} AND ${onTheList})`);
		// Each event marked with whether it is one that puts its visitor on the list.
		const marked = `(SELECT ${SESSION_COLUMNS}, ${onTheList} AS hit FROM ${from} WHERE ${RANGE}${inSample}${everyVisitor ? "" : ` AND visitor_id IN ${list}`})`;
		visitorLists.push(sessionCut(marked, cut, true));
		// A session without a page view has no entry page or campaign (NULL, not a value): "is not" keeps it.
		const condition = everyVisitor ? `NOT coalesce(${definition.session(param)}, 0)` : definition.session(param);
		sessionSets.push({ cut, condition });
		const inTheSessions = inSessions(cut, condition, everyVisitor ? undefined : list);
		events.push(definition.events ? definition.events(param, value, list) : inTheSessions);
		visits.push(inTheSessions);
	}
	const and = (conditions: string[]) => conditions.map((c) => ` AND ${c}`).join("");
	// The first filter's sessions that meet it and, by their visitor and start, every other's.
	const [first, ...others] = sessionSets;
	const sessions =
		everyFilterOfTheVisit && first
			? `SELECT * FROM ${first.cut} AS s WHERE ${first.condition}${and(others.map(({ cut, condition }) => `(s.visitor_id, s.first_ts) IN (SELECT s.visitor_id, s.first_ts FROM ${cut} AS s WHERE ${condition})`))}`
			: undefined;
	return { from, events: inSample + and(events), visits: inSample + and(visits), visitorLists, sessions, values, params };
}
