// Sentry's security endpoint: a site points its Content-Security-Policy's `report-uri` (or
// `report-to`) at /api/<project>/security/?sentry_key=<key>, and each violation a browser reports
// is an issue event, titled and grouped as Sentry does, counted and limited as any log event.
import { describe, it } from "vitest";
import { SENTRY_LIMITS } from "../domain/limits";
import { MAX_REPORTS } from "../domain/sentry/securityReport";
import { issuesOf, storedEvents } from "./logHelpers";
import { post, type SentryProject, sentryProject } from "./sentryHelpers";

type Json = Record<string, any>;
const CHROME = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/153.0.0.0 Safari/537.36";

const report = (page: string, blocked: string, directive = "script-src-elem") => ({
	"csp-report": {
		"document-uri": `https://shop.example${page}`,
		referrer: "",
		"violated-directive": directive,
		"effective-directive": directive,
		"original-policy": "default-src 'self'; report-uri /csp",
		disposition: "enforce",
		"blocked-uri": blocked,
		"status-code": 200,
	},
});

const violation = (blocked: string, userAgent = CHROME) => ({
	type: "csp-violation",
	age: 10,
	url: "https://shop.example/pricing",
	user_agent: userAgent,
	body: { documentURL: "https://shop.example/pricing", blockedURL: blocked, effectiveDirective: "img-src", originalPolicy: "img-src 'self'", disposition: "report", statusCode: 200 },
});

/** The key's stored events, once an owner's read has moved them to D1. */
async function stored(project: SentryProject) {
	await issuesOf(project);
	return storedEvents(project.keyId);
}

function sendReport(project: SentryProject, body: unknown, init: { contentType?: string; raw?: string; key?: string; projectId?: number; ip?: string } = {}) {
	const path = `/api/${init.projectId ?? project.dsnId}/security/?sentry_key=${init.key ?? project.rawKey}`;
	return post(path, init.raw ?? JSON.stringify(body), { headers: { "content-type": init.contentType ?? "application/csp-report", "user-agent": CHROME }, ip: init.ip });
}

describe("POST /api/:project_id/security/", () => {
	it("a report-uri violation is an issue titled as Sentry titles it, grouped by directive and blocked source", async ({ expect }) => {
		const project = await sentryProject();
		const first = await sendReport(project, report("/checkout", "https://evil.example/x.js"), { ip: "10.77.0.1" });
		expect(first.status).toBe(201);
		expect(await first.text()).toBe("");
		// Another page, the same script host: the same issue. Another host, and inline code: issues of their own.
		expect((await sendReport(project, report("/cart", "https://evil.example/y.js"), { ip: "10.77.0.2" })).status).toBe(201);
		expect((await sendReport(project, report("/cart", "https://cdn.other.example/z.js"))).status).toBe(201);
		expect((await sendReport(project, report("/cart", "inline", "style-src-attr"))).status).toBe(201);
		expect((await sendReport(project, report("/cart", "eval", "script-src"))).status).toBe(201);
		// A directive no browser sends is named as it came, whatever it is called.
		expect((await sendReport(project, report("/cart", "https://evil.example/a", "__proto__"))).status).toBe(201);

		const issues = await issuesOf(project);
		const byTitle = Object.fromEntries(issues.map((issue) => [issue.title, issue]));
		expect(Object.keys(byTitle).sort()).toEqual([
			"Blocked '__proto__' from 'evil.example'",
			"Blocked 'script' from 'cdn.other.example'",
			"Blocked 'script' from 'evil.example'",
			"Blocked unsafe eval() 'script'",
			"Blocked unsafe inline 'style'",
		]);
		expect(byTitle["Blocked 'script' from 'evil.example'"]).toMatchObject({ count: 2, users: 2, level: "error" });

		const [firstEvent] = await stored(project);
		expect(firstEvent.event.tags).toMatchObject({ "effective-directive": "script-src-elem", "blocked-uri": "evil.example", disposition: "enforce" });
		expect(firstEvent.event.request.url).toBe("https://shop.example/checkout");
		expect(firstEvent.event.extra.csp).toMatchObject({ "blocked-uri": "https://evil.example/x.js", "original-policy": "default-src 'self'; report-uri /csp" });
		expect(firstEvent.event.contexts.browser).toMatchObject({ name: "Chrome" });
	});

	it("a Reporting API list: each violation an event, with its own browser; other reports are left out", async ({ expect }) => {
		const project = await sentryProject();
		const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0";
		const deprecation = { type: "deprecation", url: "https://shop.example/", body: { id: "x", message: "old API" } };
		const res = await sendReport(project, [violation("https://pixel.example/p.gif"), deprecation, violation("https://pixel.example/q.gif", firefox)], { contentType: "application/reports+json" });
		expect(res.status).toBe(201);
		const events = await stored(project);
		expect(events.map((e) => e.event.message)).toEqual(["Blocked 'image' from 'pixel.example'", "Blocked 'image' from 'pixel.example'"]);
		expect(events.map((e) => e.event.contexts.browser.name).sort()).toEqual(["Chrome", "Firefox"]);
		expect((await issuesOf(project)).map((issue) => issue.count)).toEqual([2]);

		// Only reports that are no violations: nothing stored, and answered as accepted.
		expect((await sendReport(project, [deprecation], { contentType: "application/reports+json" })).status).toBe(201);
		expect(await stored(project)).toHaveLength(2);
	});

	it(`takes ${MAX_REPORTS} reports at once, not ${MAX_REPORTS + 1}; refuses what is no report with 400 and a body over ${SENTRY_LIMITS.eventBytes} bytes with 413`, async ({ expect }) => {
		const project = await sentryProject();
		const deprecations = (n: number) => Array.from({ length: n }, () => ({ type: "deprecation", body: {} }));
		expect((await sendReport(project, deprecations(MAX_REPORTS))).status).toBe(201);
		const tooMany = await sendReport(project, deprecations(MAX_REPORTS + 1));
		expect(tooMany.status).toBe(400);
		expect(((await tooMany.json()) as Json).error).toBe(`Invalid security report: holds ${MAX_REPORTS + 1} reports; at most ${MAX_REPORTS} are taken at once`);
		for (const [body, error] of [
			["{not json", "Invalid security report: the body is not valid JSON"],
			["{}", 'Invalid security report: expected {"csp-report": {...}} or a list of reports'],
			['"text"', 'Invalid security report: expected {"csp-report": {...}} or a list of reports'],
			['{"csp-report": {"document-uri": "https://shop.example/"}}', "Invalid security report: a report names no directive (effective-directive)"],
		]) {
			const res = await sendReport(project, null, { raw: body });
			expect(res.status).toBe(400);
			expect(((await res.json()) as Json).error).toBe(error);
		}
		const padded = (bytes: number) => {
			const base = JSON.stringify(report("/", "https://evil.example/x.js"));
			return base.replace('"referrer":""', `"referrer":"${"r".repeat(bytes - base.length)}"`);
		};
		expect((await sendReport(project, null, { raw: padded(SENTRY_LIMITS.eventBytes) })).status).toBe(201);
		expect((await sendReport(project, null, { raw: padded(SENTRY_LIMITS.eventBytes + 1) })).status).toBe(413);
		expect(await stored(project)).toHaveLength(1);
	});

	it("the key's checks first: 401 without a key or with another project's id, 400 for an id that is no number", async ({ expect }) => {
		const project = await sentryProject();
		expect((await sendReport(project, report("/", "inline"), { key: "svc_nothing" })).status).toBe(401);
		expect((await sendReport(project, { nothing: 1 }, { key: "svc_nothing" })).status).toBe(401);
		expect((await sendReport(project, report("/", "inline"), { projectId: project.dsnId + 1 })).status).toBe(401);
		const res = await post(`/api/abc/security/?sentry_key=${project.rawKey}`, JSON.stringify(report("/", "inline")));
		expect(res.status).toBe(400);
		expect(await stored(project)).toHaveLength(0);
	});
});
