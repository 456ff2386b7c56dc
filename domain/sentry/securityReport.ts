/**
 * Browsers' Content-Security-Policy violation reports, sent to the `report-uri` or `report-to`
 * address a site gives (Sentry's security endpoint, docs/api.md#csp-reports), as Sentry events:
 * one a violation, titled as Sentry titles them ("Blocked 'script' from 'cdn.example'"), grouped
 * by the directive and what it blocked, the report itself kept as the event's additional data.
 *
 * Two shapes arrive: `report-uri`'s `{"csp-report": {"document-uri", "blocked-uri",
 * "effective-directive", ...}}`, one a request, and the Reporting API's (`report-to`) list of
 * `{type: "csp-violation", url, user_agent, body: {documentURL, blockedURL, effectiveDirective,
 * ...}}`, where other types of report (deprecations, interventions...) are not violations and
 * are left out.
 */
import { isObject, type Json, member } from "../logs/jsonFields";

/** The most violations one request may carry: a browser sends a few at a time. */
export const MAX_REPORTS = 100;

/** A violation, in `report-uri`'s names. */
interface Violation {
	documentUri: string;
	blockedUri: string;
	directive: string;
	disposition?: string;
	fields: Json;
}

/** What a directive governs, as Sentry's titles name it. */
const KINDS: Readonly<Record<string, string>> = {
	"child-src": "child",
	"connect-src": "connect",
	"font-src": "font",
	"form-action": "form action",
	"frame-ancestors": "frame ancestor",
	"frame-src": "iframe",
	"img-src": "image",
	"manifest-src": "manifest",
	"media-src": "media",
	"object-src": "object",
	"script-src": "script",
	"script-src-attr": "script",
	"script-src-elem": "script",
	"style-src": "style",
	"style-src-attr": "style",
	"style-src-elem": "style",
	"worker-src": "worker",
};

const text = (value: unknown) => (typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : "");

/** Where the blocked resource came from: a host, or the keyword a browser reports (`inline`, `eval`, `data`...). */
function blockedSource(blockedUri: string): string {
	if (!blockedUri) return "self";
	if (!URL.canParse(blockedUri)) return blockedUri.replace(/:$/, "");
	const url = new URL(blockedUri);
	return url.host || url.protocol.replace(/:$/, "");
}

/** The event's title: "Blocked 'script' from 'cdn.example'", "Blocked unsafe inline 'style'". */
function titleOf({ directive, blockedUri }: Violation): string {
	const kind = Object.hasOwn(KINDS, directive) ? KINDS[directive] : directive;
	const source = blockedSource(blockedUri);
	if (source === "inline") return `Blocked unsafe inline '${kind}'`;
	if (source === "eval") return `Blocked unsafe eval() '${kind}'`;
	return `Blocked '${kind}' from '${source}'`;
}

/** `report-uri`'s report, or null when it is none. */
function fromReportUri(report: Json): Violation | null {
	const fields = member(report, "csp-report");
	if (!isObject(fields)) return null;
	const directive = text(member(fields, "effective-directive")) || text(member(fields, "violated-directive")).split(/\s+/)[0];
	return { documentUri: text(member(fields, "document-uri")), blockedUri: text(member(fields, "blocked-uri")), directive, disposition: text(member(fields, "disposition")), fields };
}

/** A Reporting API report of a violation, or null for another type of report. */
function fromReportTo(report: unknown): Violation | null {
	if (!isObject(report) || member(report, "type") !== "csp-violation" || !isObject(member(report, "body"))) return null;
	const fields = member(report, "body") as Json;
	return {
		documentUri: text(member(fields, "documentURL")) || text(member(report, "url")),
		blockedUri: text(member(fields, "blockedURL")),
		directive: text(member(fields, "effectiveDirective")),
		disposition: text(member(fields, "disposition")),
		fields,
	};
}

/**
 * The violations a report body holds, each as a Sentry event's payload; an empty list for a body
 * that holds none (a Reporting API list of other reports). Throws a message for a body that is
 * neither shape, or holds more than MAX_REPORTS reports. `userAgent` is the request's, which a
 * Reporting API report replaces with its own.
 */
export function securityEvents(body: unknown, userAgent: string | null): Json[] {
	if (Array.isArray(body)) {
		if (body.length > MAX_REPORTS) throw new Error(`holds ${body.length} reports; at most ${MAX_REPORTS} are taken at once`);
		return body.flatMap((report) => {
			const violation = fromReportTo(report);
			return violation ? [eventOf(violation, text(member(report as Json, "user_agent")) || userAgent)] : [];
		});
	}
	const violation = isObject(body) ? fromReportUri(body) : null;
	if (!violation) throw new Error('expected {"csp-report": {...}} or a list of reports');
	return [eventOf(violation, userAgent)];
}

function eventOf(violation: Violation, userAgent: string | null): Json {
	if (!violation.directive) throw new Error("a report names no directive (effective-directive)");
	const source = blockedSource(violation.blockedUri);
	const headers: Json = userAgent ? { "User-Agent": userAgent } : {};
	return {
		message: titleOf(violation),
		level: "error",
		tags: { "effective-directive": violation.directive, "blocked-uri": source, ...(violation.disposition && { disposition: violation.disposition }) },
		request: { url: violation.documentUri || undefined, headers },
		// Sentry's grouping of a violation: the directive and where the blocked resource came from.
		fingerprint: ["csp", violation.directive, source],
		// The page's visitor, counted by address as Sentry counts a report's user.
		user: { ip_address: "{{auto}}" },
		extra: { csp: violation.fields },
	};
}
