import { describe, it } from "vitest";
import { call, setPlan, uniqueIp } from "./helpers";
import { issuesOf, storedEvents } from "./logHelpers";
import { envelope, eventEnvelope, nodeEvent, type SentryProject, query, sendEnvelope, sentryProject } from "./sentryHelpers";

type Json = Record<string, any>;

describe("POST /api/:project_id/envelope/", () => {
	it("stores an event as the browser SDK sends it (text/plain, key in the query) and answers its id", async ({ expect }) => {
		const project = await sentryProject();
		const event = nodeEvent();
		const res = await sendEnvelope(project, eventEnvelope(event));
		expect(res.status).toBe(200);
		expect(res.headers.get("access-control-allow-origin")).toBe("*");
		expect(await res.json()).toEqual({ id: event.event_id });

		const [issue] = await issuesOf(project);
		expect(issue).toMatchObject({ title: "Error: load failed", culprit: "loadOrders (/srv/app/src/orders.js)", level: "error", count: 1, users: 1 });
		expect(issue.environments).toEqual(["production"]);
		expect(issue.releases).toEqual(["shop@1.4.2"]);
		const [stored] = await storedEvents(project.keyId);
		expect(stored.event).toMatchObject({
			timestamp: "2026-11-22T20:54:46.166Z",
			platform: "node",
			sdk: { name: "sentry.javascript.node", version: "11.12.0" },
			tags: { sdk_name: "sentry.javascript.node", sdk_version: "11.12.0", feature: "checkout", server_name: "web-1" },
			user: { id: "u1", email: "a@example.com" },
			breadcrumbs: [{ timestamp: 1_795_380_886.164, category: "ui", message: "clicked pay" }],
			contexts: { runtime: { name: "node", version: "v24.21.0" } },
			exception: { type: "Error", value: "load failed", mechanism: { exception_id: 0 } },
			chained_exceptions: [{ type: "Error", value: "db down", mechanism: { source: "cause", exception_id: 1, parent_id: 0 } }],
		});
	});

	it.for([
		["X-Sentry-Auth", (p: SentryProject) => ({ headers: { "x-sentry-auth": `Sentry sentry_version=7, sentry_client=raven/1.0, sentry_key=${p.rawKey}, sentry_secret=x` }, path: `/api/${p.dsnId}/envelope/` })],
		["Authorization: Sentry", (p: SentryProject) => ({ headers: { authorization: `Sentry sentry_key=${p.rawKey}, sentry_version=7` }, path: `/api/${p.dsnId}/envelope/` })],
		["the envelope header's DSN", (p: SentryProject) => ({ path: `/api/${p.dsnId}/envelope/`, dsn: p.dsn })],
		["the query, without the trailing slash", (p: SentryProject) => ({ path: `/api/${p.dsnId}/envelope${query(p)}` })],
	] as const)("200 with the key in %s", async ([, how], { expect }) => {
		const project = await sentryProject();
		const { headers, path, dsn } = how(project) as { headers?: Record<string, string>; path: string; dsn?: string };
		const res = await sendEnvelope(project, eventEnvelope(nodeEvent(), dsn ? { dsn } : {}), { headers, path });
		expect(res.status).toBe(200);
		expect((await issuesOf(project)).length).toBe(1);
	});

	it("X-Sentry-Auth wins over the query", async ({ expect }) => {
		const project = await sentryProject();
		const path = `/api/${project.dsnId}/envelope/?sentry_key=svc_wrong`;
		const res = await sendEnvelope(project, eventEnvelope(), { path, headers: { "x-sentry-auth": `Sentry sentry_key=${project.rawKey}` } });
		expect(res.status).toBe(200);
	});

	describe("401, 402, 403", () => {
		it("401 without a key anywhere", async ({ expect }) => {
			const project = await sentryProject();
			const res = await sendEnvelope(project, eventEnvelope(), { path: `/api/${project.dsnId}/envelope/` });
			expect(res.status).toBe(401);
			expect(await res.json()).toEqual({ error: "Project key required" });
			expect(res.headers.get("access-control-allow-origin")).toBe("*");
		});

		it("401 with an unknown key", async ({ expect }) => {
			const project = await sentryProject();
			const res = await sendEnvelope(project, eventEnvelope(), { path: `/api/${project.dsnId}/envelope/?sentry_key=svc_unknown` });
			expect(res.status).toBe(401);
		});

		it("401 when the DSN's project id is not the key's", async ({ expect }) => {
			const [project, other] = await Promise.all([sentryProject(), sentryProject()]);
			const res = await sendEnvelope(project, eventEnvelope(), { path: `/api/${other.dsnId}/envelope/${query(project)}` });
			expect(res.status).toBe(401);
			expect((await res.json<Json>()).error).toMatch(/does not belong to project/);
			expect(await issuesOf(project)).toEqual([]);
		});

		it("401 for a regenerated key's old DSN; the new DSN works", async ({ expect }) => {
			const project = await sentryProject();
			const regenerated = await call("/api/feedback-key/regenerate", { method: "POST", token: project.token, json: { project_name: project.projectName } }).then((r) =>
				r.json<Json>(),
			);
			expect((await sendEnvelope(project, eventEnvelope())).status).toBe(401);
			const renewed = { ...project, rawKey: regenerated.raw_api_key };
			expect((await sendEnvelope(renewed, eventEnvelope())).status).toBe(200);
		});

		it("402 when the owner has neither Pro nor a running trial", async ({ expect }) => {
			const project = await sentryProject();
			await setPlan(project.email, "free", new Date(Date.now() - 1000).toISOString());
			expect((await sendEnvelope(project, eventEnvelope())).status).toBe(402);
		});

		it("403 when App Logs are disabled, for events and for dropped items alike", async ({ expect }) => {
			const project = await sentryProject();
			await call("/api/feedback-key", { method: "PATCH", token: project.token, json: { project_name: project.projectName, logs_enabled: false } });
			expect((await sendEnvelope(project, eventEnvelope())).status).toBe(403);
			const session = envelope({}, [{ type: "session", payload: JSON.stringify({ sid: "x", status: "ok" }) }]);
			expect((await sendEnvelope(project, session)).status).toBe(403);
		});
	});

	describe("429", () => {
		it("after the key's logs_rate_limit_per_minute, with Retry-After and X-Sentry-Rate-Limits", async ({ expect }) => {
			const project = await sentryProject();
			await call("/api/feedback-key", { method: "PATCH", token: project.token, json: { project_name: project.projectName, logs_rate_limit_per_minute: 2 } });
			const statuses = [];
			for (let i = 0; i < 2; i++) statuses.push((await sendEnvelope(project, eventEnvelope())).status);
			const limited = await sendEnvelope(project, eventEnvelope());
			expect([...statuses, limited.status]).toEqual([200, 200, 429]);
			const retryAfter = limited.headers.get("retry-after");
			expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
			expect(limited.headers.get("x-sentry-rate-limits")).toBe(`${retryAfter}:error;default:key`);
			expect(limited.headers.get("access-control-expose-headers")).toContain("x-sentry-rate-limits");
			// Sessions and other dropped items are not counted, so they still pass.
			const session = envelope({}, [{ type: "session", payload: "{}" }]);
			expect((await sendEnvelope(project, session)).status).toBe(200);
		});

		it("after 120 events per 60 seconds from one source IP; dropped items do not count", async ({ expect }) => {
			const project = await sentryProject();
			await call("/api/feedback-key", { method: "PATCH", token: project.token, json: { project_name: project.projectName, logs_rate_limit_per_minute: 1000 } });
			const ip = uniqueIp();
			const sessions = await Promise.all(Array.from({ length: 30 }, () => sendEnvelope(project, envelope({}, [{ type: "session", payload: "{}" }]), { ip })));
			expect(sessions.every((r) => r.status === 200)).toBe(true);
			const statuses = await Promise.all(Array.from({ length: 121 }, () => sendEnvelope(project, eventEnvelope(), { ip }).then((r) => r.status)));
			expect(statuses.filter((s) => s === 200)).toHaveLength(120);
			expect(statuses.filter((s) => s === 429)).toHaveLength(1);
			const limited = await sendEnvelope(project, eventEnvelope(), { ip });
			expect(limited.headers.get("x-sentry-rate-limits")).toMatch(/^\d+:error;default:key$/);
		});
	});

	describe("dropped item types", () => {
		const binary = new Uint8Array([0, 1, 2, 10, 13, 255, 254, 10, 0]);
		it.for([
			["transaction", JSON.stringify({ type: "transaction", transaction: "GET /", spans: [] })],
			["session", JSON.stringify({ sid: "bad47d73bee042ddbd2895170540c412", init: true, status: "ok" })],
			["sessions", JSON.stringify({ aggregates: [{ started: "2026-01-01T00:00:00Z", exited: 3 }] })],
			["client_report", JSON.stringify({ timestamp: 1, discarded_events: [{ reason: "queue_overflow", category: "error", quantity: 1 }] })],
			["replay_event", JSON.stringify({ type: "replay_event", replay_id: "r" })],
			["replay_recording", binary],
			["profile", JSON.stringify({ version: "1", profile: {} })],
			["profile_chunk", JSON.stringify({ version: "2" })],
			["attachment", binary],
			["check_in", JSON.stringify({ check_in_id: "c", monitor_slug: "nightly", status: "ok" })],
			["statsd", "checkout.latency@millisecond:120|d"],
			["span", JSON.stringify({ span_id: "s" })],
			["log", JSON.stringify({ items: [] })],
			["user_report without comments", JSON.stringify({ event_id: "e", name: "Ana" })],
			["feedback without a message", JSON.stringify({ contexts: { feedback: { contact_email: "ana@example.com" } } })],
			["something_new", "{}"],
		] as const)("%s is accepted and dropped", async ([name, payload], { expect }) => {
			const project = await sentryProject();
			const type = name.split(" ")[0];
			const res = await sendEnvelope(project, envelope({ event_id: "9ec79c33ec9942ab8353589fcb2e04dc" }, [{ type, payload, withLength: true }]));
			expect(res.status).toBe(200);
			expect(await res.json()).toEqual({ id: "9ec79c33ec9942ab8353589fcb2e04dc" });
			expect(await issuesOf(project)).toEqual([]);
			expect(await storedEvents(project.keyId)).toEqual([]);
		});

		it("user feedback (the widget's feedback item, the dialog's user_report) lands in the project's feedback inbox", async ({ expect }) => {
			const project = await sentryProject();
			const about = "9ec79c33ec9942ab8353589fcb2e04dc";
			const feedback = {
				type: "feedback",
				contexts: { feedback: { message: "The pay button does nothing\nOn Safari 17", contact_email: "ana@example.com", name: "Ana", url: "https://shop.example/checkout", associated_event_id: about } },
			};
			const report = { event_id: about, name: "Bo", email: "not an address", comments: "It broke" };
			for (const [type, payload] of [["feedback", feedback], ["user_report", report]] as const) {
				const res = await sendEnvelope(project, envelope({ event_id: "0".repeat(32) }, [{ type, payload: JSON.stringify(payload) }]));
				expect(res.status, await res.clone().text()).toBe(200);
			}
			const inbox = await call(`/api/feedback?project_name=${encodeURIComponent(project.projectName)}`, { token: project.token }).then((r) => r.json<any>());
			expect(inbox.feedback.map((f: any) => [f.type, f.data]).reverse()).toEqual([
				[
					"issue",
					{ title: "The pay button does nothing", description: "The pay button does nothing\nOn Safari 17", email: "ana@example.com", name: "Ana", page_url: "https://shop.example/checkout", sentry_event_id: about },
				],
				// An address that is none is left out rather than refuse the report.
				["issue", { title: "It broke", description: "It broke", name: "Bo", sentry_event_id: about }],
			]);
			expect(await issuesOf(project)).toEqual([]);
		});

		it("a feedback title is the message's first line: 120 characters whole, 121 cut to at most 119 and an ellipsis, never inside a character", async ({ expect }) => {
			const project = await sentryProject();
			// 120 and 121 UTF-16 units; in the second an emoji straddles the cut at 119.
			const lines = [`${"a".repeat(118)}😀`, `${"a".repeat(118)}😀a`];
			for (const line of lines) {
				const payload = JSON.stringify({ comments: `${line}\nmore`, name: "Ana" });
				expect((await sendEnvelope(project, envelope({}, [{ type: "user_report", payload }]))).status).toBe(200);
			}
			const inbox = await call(`/api/feedback?project_name=${encodeURIComponent(project.projectName)}`, { token: project.token }).then((r) => r.json<any>());
			expect(inbox.feedback.map((f: any) => f.data.title).reverse()).toEqual([lines[0], `${"a".repeat(118)}…`]);
		});

		it("an event among dropped items is stored; items without a length read to the end of their line", async ({ expect }) => {
			const project = await sentryProject();
			const event = nodeEvent();
			const body = envelope({ event_id: event.event_id }, [
				{ type: "session", payload: "{}" },
				{ type: "attachment", payload: binary, withLength: true },
				{ type: "event", payload: JSON.stringify(event), withLength: true },
				{ type: "client_report", payload: "{}" },
			]);
			const res = await sendEnvelope(project, body);
			expect(res.status).toBe(200);
			expect((await issuesOf(project)).length).toBe(1);
		});
	});

	describe("400 for a malformed envelope", () => {
		const event = JSON.stringify({ message: "m" });
		it.for([
			["an empty body", "", /empty/],
			["a header that is not JSON", `{nope\n{"type":"event"}\n${event}\n`, /envelope header is not valid JSON/],
			["a header that is a JSON array", `[]\n{"type":"event"}\n${event}\n`, /envelope header must be a JSON object/],
			["an item header without a type", `{}\n{"length":2}\n{}\n`, /item 1 has no type/],
			["an item header that is not JSON", `{}\n{"type":"session"}\n{}\nnot json\n`, /header of item 2 is not valid JSON/],
			["a length beyond the body", `{}\n{"type":"event","length":500}\n${event}\n`, /item 1 declares 500 bytes but \d+ follow/],
			["a length shorter than its payload", `{}\n{"type":"event","length":3}\n${event}\n`, /item 1 is longer than the 3 bytes it declares/],
			["a negative length", `{}\n{"type":"event","length":-1}\n${event}\n`, /not a whole number/],
			["an event that is not JSON", `{}\n{"type":"event"}\n{oops\n`, /event item is not valid JSON/],
			["an event that is not an object", `{}\n{"type":"event"}\n[1]\n`, /event item must be a JSON object/],
			["two event items", `{}\n{"type":"event"}\n${event}\n{"type":"event"}\n${event}\n`, /more than one event item/],
			["an event without message or exception", `{}\n{"type":"event"}\n{"level":"error"}\n`, /either message or exception/],
			["an event field of the wrong type", `{}\n{"type":"event"}\n{"message":5}\n`, /^Invalid log event: message must be a string$/],
		] as const)("%s", async ([, raw, message], { expect }) => {
			const project = await sentryProject();
			const res = await sendEnvelope(project, raw);
			expect(res.status).toBe(400);
			expect((await res.json<Json>()).error).toMatch(message);
			expect(await storedEvents(project.keyId)).toEqual([]);
		});

		it("a member of the wrong shape is dropped and the event kept, as Relay keeps it; /api/app-logs-ingest refuses the same", async ({ expect }) => {
			const project = await sentryProject();
			const plain = nodeEvent({ fingerprint: undefined });
			const odd = nodeEvent({ fingerprint: "checkout", user: "bob", request: "GET /cart", tags: { route: "/cart" } });
			for (const event of [plain, odd]) expect((await sendEnvelope(project, eventEnvelope(event))).status).toBe(200);
			// An exception list holding a number: the exception goes, the message keeps the event.
			const noStack = nodeEvent({ exception: { values: [5] }, message: "kept without its exception" });
			expect((await sendEnvelope(project, eventEnvelope(noStack))).status).toBe(200);

			const issues = await issuesOf(project);
			const stored = new Map((await storedEvents(project.keyId)).map((row) => [row.event.event_id, row]));
			// The dropped fingerprint leaves the default one: the same issue as the event without it.
			expect(stored.get(odd.event_id)?.group_hash).toBe(stored.get(plain.event_id)?.group_hash);
			// What was dropped is kept with the event, in the field rules' words, as Sentry notes its processing errors.
			expect(stored.get(odd.event_id)?.event).toMatchObject({
				user: null,
				request: null,
				tags: { route: "/cart" },
				processing_errors: ["request must be an object", "user must be an object", "fingerprint must be an array"],
			});
			expect(stored.get(noStack.event_id)?.event).toMatchObject({ message: "kept without its exception", exception: null, processing_errors: ["exception.values must hold exception objects"] });
			expect(stored.get(plain.event_id)?.event).not.toHaveProperty("processing_errors");
			expect(issues).toHaveLength(2);

			const native = await call("/api/app-logs-ingest", { method: "POST", headers: { "x-svc-key": project.rawKey }, json: { message: "m", fingerprint: "checkout" }, ip: uniqueIp() });
			expect(native.status).toBe(400);
			expect((await native.json<Json>()).error).toBe("Invalid log event: fingerprint must be an array");
		});

		it.for(["abc", "12abc", "-1", "1e3"])("a project id %s that is not a number", async (id, { expect }) => {
			const project = await sentryProject();
			const res = await sendEnvelope(project, eventEnvelope(), { path: `/api/${id}/envelope/${query(project)}` });
			expect(res.status).toBe(400);
			expect((await res.json<Json>()).error).toMatch(/project id in the URL must be the number/);
		});
	});

	it("OPTIONS answers 204 with what the browser SDK needs", async ({ expect }) => {
		const project = await sentryProject();
		const res = await call(`/api/${project.dsnId}/envelope/`, { method: "OPTIONS" });
		expect(res.status).toBe(204);
		expect(res.headers.get("access-control-allow-origin")).toBe("*");
		expect(res.headers.get("access-control-allow-methods")).toContain("POST");
		for (const header of ["content-type", "x-sentry-auth", "content-encoding", "x-requested-with", "accept", "authentication"]) expect(res.headers.get("access-control-allow-headers")).toContain(header);
		for (const header of ["retry-after", "x-sentry-rate-limits"]) expect(res.headers.get("access-control-expose-headers")).toContain(header);
	});

	it.for(["GET", "PUT", "DELETE"])("405 for %s", async (method, { expect }) => {
		const res = await call("/api/12/envelope/", { method });
		expect(res.status).toBe(405);
		expect(res.headers.get("allow")).toBe("POST, OPTIONS");
	});
});
