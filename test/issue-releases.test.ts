import { describe, it } from "vitest";
import { parseIssueSearch, searchValue, tagSearchToken } from "../domain/api/issueSearch";
import { call } from "./helpers";
import { ingestOk, issueOf, issuesOf, listIssues, ownerWithLogKey, setIssueStatus } from "./logHelpers";

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

describe("an issue's first and last release (Sentry's first seen in, last seen in)", () => {
	it("are the releases of its earliest and latest events, by when they happened, in all environments or one", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const send = (minutes: number, release: string | undefined, environment: string) =>
			ingestOk(project.rawKey, { message: "Release me", release, environment, timestamp: minutesAgo(minutes) });
		// Sent out of order: the latest release arrives first, the earliest last.
		await send(5, "2.0.0", "production");
		await send(20, "1.5.0", "staging");
		const { group_hash } = await send(60, "1.0.0", "production");
		await send(1, undefined, "production");

		expect(await issueOf(project, group_hash)).toMatchObject({ first_release: "1.0.0", last_release: "2.0.0" });
		const staging = await (await call(`/api/issues/${group_hash}?project_name=${project.projectName}&environment=staging`, { token: project.token })).json();
		expect(staging).toMatchObject({ first_release: "1.5.0", last_release: "1.5.0" });

		const plain = await ingestOk(project.rawKey, { message: "No release" });
		expect(await issueOf(project, plain.group_hash)).toMatchObject({ first_release: null, last_release: null });
	});

	it("firstRelease: lists the issues new in a release: their earliest event carried it, in all environments or one", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const now = Date.now();
		const send = (message: string, minutes: number, release: string | undefined, environment = "production") =>
			ingestOk(project.rawKey, { message, release, environment, timestamp: new Date(now - minutes * 60_000).toISOString() });
		// Old: first in 1.0.0, seen again in 2.0.0. New: first in 2.0.0, its 1.0.0 event sent later but dated after.
		const old = await send("Old", 60, "1.0.0");
		await send("Old", 5, "2.0.0");
		const fresh = await send("New", 30, "2.0.0");
		await send("New", 10, "1.0.0", "staging");
		// In staging the New issue's earliest event is 1.0.0's.
		const beta = await send("Beta", 40, "2.0.0-beta.1");
		const unreleased = await send("Unreleased", 50, undefined);
		// Two releases first seen in the same millisecond: the first by name, as the issue's first_release.
		const tie = await send("Tie", 45, "2.0.1");
		await send("Tie", 45, "2.0.0");

		const listed = async (q: string, environment?: string) =>
			(await issuesOf(project, { q, ...(environment && { environment }) })).map((i) => i.group_hash).sort();
		expect(await listed("firstRelease:2.0.0")).toEqual([fresh.group_hash, tie.group_hash].sort());
		expect((await issueOf(project, tie.group_hash)).first_release).toBe("2.0.0");
		expect(await listed("firstRelease:1.0.0")).toEqual([old.group_hash]);
		expect(await listed("firstrelease:1.0.0", "staging")).toEqual([fresh.group_hash]);
		expect(await listed("firstRelease:2.0.0", "staging")).toEqual([]);
		expect(await listed("firstRelease:2.0.0*")).toEqual([fresh.group_hash, beta.group_hash, tie.group_hash].sort());
		expect(await listed("firstRelease:3.0.0")).toEqual([]);
		expect(await listed('firstRelease:"2.0.0" New')).toEqual([fresh.group_hash]);
		expect(await listed("firstRelease:2.0.0 is:resolved")).toEqual([]);
		expect((await issuesOf(project)).map((i) => i.group_hash)).toContain(unreleased.group_hash);
	});
});

describe("release:latest and firstRelease:latest (Sentry's): the project's newest release", () => {
	type Project = Awaited<ReturnType<typeof ownerWithLogKey>>;
	/** One event of the issue titled `message`, in `release`, in the order sent: the order the project first sends releases in. */
	const sender = (project: Project) => (message: string, release?: string, event: Record<string, unknown> = {}) =>
		ingestOk(project.rawKey, { message, ...(release !== undefined && { release }), ...event });
	/** The titles the list answers for `q` (and other parameters), in order of title. */
	const titles = async (project: Project, q: string, query: Record<string, string> = {}) =>
		(await issuesOf(project, { q, ...query })).map((issue) => issue.title as string).sort();

	it("versions by version, not text (1.10.0 after 1.9.0 and 1.2.0), whatever order they were first sent in; a prerelease is not the newest", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const send = sender(project);
		await send("Old", "1.2.0");
		await send("Ten", "1.10.0");
		// First sent last, but older than 1.10.0: a backport.
		await send("Nine", "1.9.0");
		// Seen in 1.10.0 too, but new in 1.2.0.
		await send("Old", "1.10.0");
		// A prerelease of the next version, on staging: what users run is still 1.10.0.
		await send("Candidate", "1.11.0-rc.1");
		await send("Plain");

		expect(await titles(project, "release:latest")).toEqual(["Old", "Ten"]);
		expect(await titles(project, "firstRelease:latest")).toEqual(["Ten"]);
		expect(await titles(project, "firstrelease:latest RELEASE:latest")).toEqual(["Ten"]);
		// The keyword in either letter case of its key, but not of itself: `Latest` is a release's name.
		expect(await titles(project, "release:Latest")).toEqual([]);
		// Once the final version ships, it is the newest.
		await send("Candidate", "1.11.0");
		expect(await titles(project, "release:latest")).toEqual(["Candidate"]);
		expect(await titles(project, "firstRelease:latest")).toEqual([]);
	});

	it("names that are not versions: the one the project first sent last, seen again or not", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const send = sender(project);
		await send("First", "f00d");
		await send("Second", "beef");
		await send("Third", "cafe");
		// An old build still running sends again: it stays older than cafe.
		await send("Again", "f00d");
		expect(await titles(project, "release:latest")).toEqual(["Third"]);
		expect(await titles(project, "firstRelease:latest")).toEqual(["Third"]);
		// A version, sent once the project moves to them, is the newest whatever is sent after it.
		await send("Versioned", "2.0.0");
		await send("Fourth", "d00d");
		expect(await titles(project, "release:latest")).toEqual(["Versioned"]);
	});

	it("only prereleases: the newest of them by version (beta.10 after beta.2)", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const send = sender(project);
		await send("Two", "2.0.0-beta.2");
		await send("Ten", "2.0.0-beta.10");
		await send("Alpha", "2.0.0-alpha.1");
		expect(await titles(project, "release:latest")).toEqual(["Ten"]);
	});

	it("of the package whose version was first sent last, its newest version: another app's do not compare", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const send = sender(project);
		await send("Web ten", "web@1.10.0");
		await send("Api", "api@3.0.0");
		await send("Web nine", "web@1.9.0");
		expect(await titles(project, "release:latest")).toEqual(["Web ten"]);
		await send("Api next", "api@3.1.0");
		expect(await titles(project, "release:latest")).toEqual(["Api next"]);
	});

	it("the list says which release latest stood for (latest_release), only when the search names it", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const send = sender(project);
		await send("Ten", "1.10.0");
		await send("Also ten", "1.10.0");
		await send("Nine", "1.9.0");
		await send("Candidate", "1.11.0-rc.1");
		const page = async (query: Record<string, string>) => {
			const res = await listIssues(project.token, { project_name: project.projectName, ...query });
			expect(res.status, JSON.stringify(query)).toBe(200);
			return res.json<Record<string, unknown>>();
		};
		for (const q of ["release:latest", "firstRelease:latest", "is:unresolved firstrelease:latest", "release:latest level:error Ten"]) {
			expect((await page({ q })).latest_release, q).toBe("1.10.0");
		}
		// Each page of it, the first and the next.
		const first = await page({ q: "release:latest", limit: "1" });
		expect(first).toMatchObject({ latest_release: "1.10.0", next_cursor: expect.any(String) });
		expect(await page({ q: "release:latest", limit: "1", cursor: String(first.next_cursor) })).toMatchObject({ latest_release: "1.10.0", next_cursor: null });
		// Not named: a release called latest, quoted or as the parameter; `Latest`; a negation (text); no search.
		const unnamed: Record<string, string>[] = [{ q: 'release:"latest"' }, { q: "release:Latest" }, { q: "!release:latest" }, { release: "latest" }, { q: "release:1.9.0" }, {}];
		for (const query of unnamed) {
			expect(await page(query), JSON.stringify(query)).not.toHaveProperty("latest_release");
		}
		// The final version shipped: latest is it now.
		await send("Candidate", "1.11.0");
		expect((await page({ q: "release:latest" })).latest_release).toBe("1.11.0");
	});

	it("a project that has sent no release: latest finds nothing, and is no error", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const { group_hash } = await sender(project)("Plain");
		expect(await titles(project, "")).toEqual(["Plain"]);
		for (const q of ["release:latest", "firstRelease:latest", "release:latest is:unresolved Plain"]) {
			const res = await listIssues(project.token, { project_name: project.projectName, q });
			expect(res.status, q).toBe(200);
			expect(await res.json(), q).toEqual({ issues: [], next_cursor: null, latest_release: null });
		}
		// An issue's events: none matches, and those read are counted.
		const res = await call(`/api/issues/${group_hash}?${new URLSearchParams({ project_name: project.projectName, q: "release:latest" })}`, { token: project.token });
		expect(res.status).toBe(200);
		expect(await res.json()).toMatchObject({ events: [], event_search: { searched: 1, matched: 0 } });
	});

	it("with the other keys and parameters: each must hold; q's release:latest over the release parameter; quoted, a release named latest", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const send = sender(project);
		const chrome = { contexts: { browser: { name: "Chrome" } } };
		await send("Checkout failed", "1.0.0", { level: "error", environment: "production", ...chrome });
		await send("Checkout failed", "1.1.0", { level: "error", environment: "production", ...chrome });
		await send("Login failed", "1.1.0", { level: "warning", environment: "staging" });
		const fixed = await send("Cart failed", "1.1.0", { level: "error", environment: "production" });
		await send("Named", "latest", { level: "error" });
		expect((await setIssueStatus(project.token, project.projectName, fixed.group_hash, "resolved")).status).toBe(200);

		expect(await titles(project, "release:latest")).toEqual(["Cart failed", "Checkout failed", "Login failed"]);
		expect(await titles(project, "release:latest is:unresolved")).toEqual(["Checkout failed", "Login failed"]);
		expect(await titles(project, "release:latest", { status: "resolved" })).toEqual(["Cart failed"]);
		expect(await titles(project, "release:latest level:error")).toEqual(["Cart failed", "Checkout failed"]);
		expect(await titles(project, "release:latest browser.name:Chrome checkout")).toEqual(["Checkout failed"]);
		expect(await titles(project, "release:latest", { environment: "staging" })).toEqual(["Login failed"]);
		expect(await titles(project, "firstRelease:latest is:unresolved")).toEqual(["Login failed"]);
		expect(await titles(project, "firstRelease:latest", { environment: "production" })).toEqual(["Cart failed"]);
		expect(await titles(project, "release:latest is:unresolved", { release: "1.0.0" })).toEqual(["Checkout failed", "Login failed"]);
		// The keyword is the search's: the parameter, and a quoted value, name a release.
		expect(await titles(project, "", { release: "latest" })).toEqual(["Named"]);
		expect(await titles(project, 'release:"latest"')).toEqual(["Named"]);
		expect(await titles(project, 'firstRelease:"latest"')).toEqual(["Named"]);
		// The later of two release tokens wins, as of any key.
		expect(await titles(project, "release:latest release:1.0.0")).toEqual(["Checkout failed"]);
		expect(await titles(project, "release:1.0.0 release:latest")).toEqual(["Cart failed", "Checkout failed", "Login failed"]);
	});

	it("in an issue's events: release:latest the events of the newest release; firstRelease:latest asks about the issue, 400", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const send = sender(project);
		const { group_hash } = await send("Checkout failed", "1.9.0", { contexts: { browser: { name: "Chrome" } } });
		await send("Checkout failed", "1.10.0", { contexts: { browser: { name: "Safari" } } });
		await send("Checkout failed", "1.10.0", { contexts: { browser: { name: "Chrome" } } });
		await send("Checkout failed");
		const search = async (q: string) => {
			const res = await call(`/api/issues/${group_hash}?${new URLSearchParams({ project_name: project.projectName, q })}`, { token: project.token });
			return { status: res.status, body: await res.json<Record<string, any>>() };
		};
		const latest = await search("release:latest");
		expect(latest.status).toBe(200);
		expect(latest.body.event_search).toEqual({ searched: 4, matched: 2 });
		expect(latest.body.events.map((e: Record<string, any>) => e.release)).toEqual(["1.10.0", "1.10.0"]);
		expect((await search("release:latest browser.name:Chrome")).body.event_search).toEqual({ searched: 4, matched: 1 });
		const first = await search("firstRelease:latest");
		expect(first.status).toBe(400);
		expect(first.body.error).toMatch(/firstRelease:.* search the issue list, not an issue's events$/);
	});
});

describe("reading release:latest", () => {
	it("bare, as the newest release; quoted, as a release's name; the later release token wins; the console's filters leave it in the box", ({ expect }) => {
		expect(parseIssueSearch("release:latest firstRelease:latest")).toEqual({ release_latest: true, first_release_latest: true });
		expect(parseIssueSearch('release:"latest" firstRelease:"latest"')).toEqual({ release: "latest", first_release: "latest" });
		expect(parseIssueSearch("release:1.0 release:latest")).toEqual({ release_latest: true });
		expect(parseIssueSearch("firstRelease:latest firstRelease:1.0")).toEqual({ first_release: "1.0" });
		expect(parseIssueSearch("!release:latest")).toEqual({ text: "!release:latest" });
		expect(parseIssueSearch("tags[release]:latest")).toEqual({ tags: [{ key: "release", value: "latest" }] });
		expect(parseIssueSearch("release:latest release:1.0 is:resolved", new Set(["release", "status"]))).toEqual({ release: "1.0", status: "resolved", text: "release:latest" });
		// A link to a release named latest (the tag summary's, an issue's first release) names it.
		expect(searchValue("latest")).toBe('"latest"');
		expect(tagSearchToken("plan", "latest")).toBe('plan:"latest"');
	});
});
