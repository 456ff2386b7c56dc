// Sentry's older clients at the store endpoint, from the bodies they sent: the raven clients
// (zlib and base64 without a Content-Encoding, `sentry_client` for a name) and sentry-go 0.11, whose
// events group as Sentry groups Go, with or without their lines of source.
import { describe, it } from "vitest";
import { issuesOf, storedEvents } from "./logHelpers";
import goErrorWithSource from "./fixtures/sentry-go/error-with-source.json?raw";
import goErrorWithoutSource from "./fixtures/sentry-go/error-without-source.json?raw";
import goPanicWithSource from "./fixtures/sentry-go/panic-with-source.json?raw";
import goPanicWithoutSource from "./fixtures/sentry-go/panic-without-source.json?raw";
import ravenJsBody from "./fixtures/sentry-legacy/raven-js-store.json?raw";
import ravenRubyBody from "./fixtures/sentry-legacy/raven-ruby-store.txt?raw";
import { gzip, nodeEvent, post, type SentryProject, sentryProject } from "./sentryHelpers";

type Json = Record<string, any>;

describe("POST /api/:project_id/store/ from the raven clients", () => {
	const storePath = (project: SentryProject) => `/api/${project.dsnId}/store/`;
	/** The headers raven-ruby 3.1 sent with the body above (from Debian's ruby-sentry-raven), the key replaced. */
	const rubyHeaders = (project: SentryProject) => ({
		"content-type": "application/octet-stream",
		"user-agent": "sentry-ruby/3.1.2",
		"x-sentry-auth": `Sentry sentry_version=5, sentry_client=raven-ruby/3.1.2, sentry_timestamp=1795960242, sentry_key=${project.rawKey}`,
	});
	const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

	it("an event zlib-compressed and base64-encoded, with no Content-Encoding saying so, is read as Sentry reads it", async ({ expect }) => {
		const project = await sentryProject();
		const res = await post(storePath(project), ravenRubyBody, { headers: rubyHeaders(project) });
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ id: "331736d29c594a5faa1d1ed12f4f77b3" });
		// Base64 of the JSON itself, uncompressed, is read too.
		const plain = await post(storePath(project), base64(new TextEncoder().encode(JSON.stringify(nodeEvent()))), { headers: rubyHeaders(project) });
		expect(plain.status).toBe(200);
		const issues = await issuesOf(project);
		expect(issues.map((issue: Json) => issue.title).sort()).toEqual(["Error: load failed", "Shop::Declined: card declined for order 101"]);
		const [stored] = (await storedEvents(project.keyId)).filter(({ event }) => event.platform === "ruby");
		expect(stored.event).toMatchObject({ release: "shop@1.2.3", environment: "staging", tags: { side: "server" }, user: { id: "u-7", email: "buyer@example.com" } });
	});

	it("an event without its own sdk names the client that sent it, as Sentry reads sentry_client: X-Sentry-Auth's, else the query's", async ({ expect }) => {
		const project = await sentryProject();
		expect((await post(storePath(project), ravenRubyBody, { headers: rubyHeaders(project) })).status).toBe(200);
		// raven-js 3 in a page: the key and client in the query, the event as JSON (its page's DSN replaced).
		const fromPage = await post(`${storePath(project)}?sentry_version=7&sentry_client=raven-js%2F3.27.2&sentry_key=${project.rawKey}`, ravenJsBody);
		expect(fromPage.status).toBe(200);
		// An SDK that names itself in the event is what the event says.
		const own = nodeEvent();
		expect((await post(storePath(project), JSON.stringify(own), { headers: rubyHeaders(project) })).status).toBe(200);
		await issuesOf(project);
		const sdks = (await storedEvents(project.keyId)).map(({ event }) => [event.sdk, event.tags.sdk_name]);
		expect(sdks).toEqual([
			[{ name: "raven-ruby", version: "3.1.2" }, "raven-ruby"],
			[{ name: "raven-js", version: "3.27.2" }, "raven-js"],
			[{ name: "sentry.javascript.node", version: "11.12.0" }, "sentry.javascript.node"],
		]);
	});

	it("400 for base64 of neither JSON nor zlib data, 413 for one that inflates past an event's size", async ({ expect }) => {
		const project = await sentryProject();
		const notZlib = await post(storePath(project), base64(new TextEncoder().encode("not zlib data")), { headers: rubyHeaders(project) });
		expect(notZlib.status).toBe(400);
		expect((await notZlib.json<Json>()).error).toBe("Invalid event: the body is base64 but not of zlib-compressed JSON");
		const huge = JSON.stringify(nodeEvent({ extra: { padding: "x".repeat(1_100_000) } }));
		const bomb = await post(storePath(project), base64(await gzip(huge, "deflate")), { headers: rubyHeaders(project) });
		expect(bomb.status).toBe(413);
		expect(await issuesOf(project)).toEqual([]);
	});
});

describe("sentry-go 0.11 (Debian's golang-github-getsentry-sentry-go-dev) at the store endpoint", () => {
	// One Go binary's events, as it sent them: a captured error and a recovered panic, from a staging
	// host that has the source beside it (the SDK reads each frame's line of source from disk) and
	// from production, where only the binary is deployed (no lines of source).
	const withSource = [goErrorWithSource, goPanicWithSource];
	const withoutSource = [goErrorWithoutSource, goPanicWithoutSource];
	const goHeaders = (project: SentryProject) => ({
		"content-type": "application/json",
		"user-agent": "sentry-go/0.11.0",
		"x-sentry-auth": `Sentry sentry_version=7, sentry_timestamp=1795961185, sentry_client=sentry.go/0.11.0, sentry_key=${project.rawKey}`,
	});
	const store = (project: SentryProject, body: string) => post(`/api/${project.dsnId}/store/`, body, { headers: goHeaders(project) });

	it("one bug is one issue with its line of source or without, as Sentry groups Go by module and function", async ({ expect }) => {
		const project = await sentryProject();
		for (const body of [...withSource, ...withoutSource]) expect((await store(project, body)).status).toBe(200);
		const issues = await issuesOf(project);
		expect(issues.map((issue: Json) => [issue.title.replace(/order \d+$/, "order <n>"), issue.culprit, issue.count]).sort()).toEqual([
			["*errors.errorString: card declined for order <n>", "main (main)", 2],
			["runtime.boundsError: runtime error: index out of range [5] with length 1", "Explode (goshop/orders)", 2],
		]);
	});

	it("an issue opened while a Go frame's line of source counted goes on taking its events", async ({ expect }) => {
		const project = await sentryProject();
		// Without a platform the earlier rules apply: this stands for an issue opened before the change.
		const { platform: _, ...earlier } = JSON.parse(goPanicWithSource);
		expect((await store(project, JSON.stringify({ ...earlier, event_id: crypto.randomUUID().replaceAll("-", "") }))).status).toBe(200);
		expect((await store(project, goPanicWithSource)).status).toBe(200);
		expect((await issuesOf(project)).map((issue: Json) => issue.count)).toEqual([2]);
	});
});

