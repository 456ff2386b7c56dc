import fc from "fast-check";
import { describe, it } from "vitest";
import { collect, createSite, flushSite, pageview } from "./analytics-helpers";
import { call, uniqueIp } from "./helpers";
import { ingestOk, issueGrouper, ownerWithLogKey } from "./logHelpers";

/**
 * Generated queries for every owner read, and generated bodies for the issue changes, on an
 * owner with a project holding issues and a site holding a visit: each answer is a documented
 * status with the one error shape, never a 500, and never carries the owner's session.
 */

const RUNS = 400;

/** A query value: nothing, near-misses of a real one, odd Unicode, Sentry's search syntax broken, huge. */
const queryValue = (real: string[]) =>
	fc.oneof(
		{ weight: 3, arbitrary: fc.constantFrom(...real) },
		{ weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
		{
			weight: 2,
			arbitrary: fc.constantFrom(
				"",
				"\u0000",
				"\ud800",
				"is:",
				"!has:",
				'browser:"Firefox',
				"release:latest",
				"lastSeen:-1y",
				"user.email:*@*",
				"*",
				"%",
				"_",
				"'",
				"1e999",
				"-1",
				"0",
				"99999999999999999999",
				"2026-02-30",
				"__proto__",
			),
		},
		{ weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 3 }), fc.integer({ min: 0, max: 3_000 })).map(([piece, times]) => piece.repeat(times)) },
	);

/** Any subset of a read's parameters (and one it does not take), each any value; the project always named or not. */
const queryOf = (params: Record<string, string[]>) =>
	fc.dictionary(fc.constantFrom(...Object.keys(params), "unknown"), fc.string()).chain((chosen) =>
		fc.record(Object.fromEntries(Object.keys(chosen).map((name) => [name, queryValue(params[name] ?? ["x"])]))),
	);

/** Where the documented statuses of a read are; a 500 is never one. */
const READ_STATUSES = [200, 400, 404];

describe("property: owner reads answer a documented status to any query", () => {
	it("feedback, keys, issues, their events and tags, outcomes, sites, their statistics and uploads", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const { group_hash } = await ingestOk(owner.rawKey, { message: "Checkout failed", environment: "production", release: "1.0.0", tags: { plan: "pro" } }, uniqueIp());
		await issueGrouper(owner.keyId).flush();
		const site = await createSite(owner.token, { domain: "shop.example" });
		await collect(pageview(site.tracking_id));
		await flushSite(site.tracking_id);
		const project = [owner.projectName];
		const times = ["2026-11-01", "2026-11-29T10:15:00Z", "2026-11-29T10:15:00.000Z", "yesterday"];
		const range = { from: times, to: times, limit: ["10", "100", "101"] };
		const filters = { page: ["/"], country: ["US"], source: ["Google"], browser: ["Chrome"], goal: ["Signup"], property: ["plan:pro"], referrer: ["https://x.example/"] };
		const reads: { path: string; params: Record<string, string[]> }[] = [
			{ path: "/api/feedback-key", params: { project_name: project } },
			{ path: "/api/feedback", params: { project_name: project, type: ["issue"], status: ["open"], q: ["crash"], cursor: ["x"], limit: ["10"] } },
			{ path: "/api/feedback/00000000-0000-0000-0000-000000000000", params: { project_name: project } },
			{
				path: "/api/issues",
				params: { project_name: project, status: ["open", "any"], environment: ["production"], release: ["1.0.0"], q: ["is:unresolved plan:pro"], sort: ["count"], period: ["24h"], user: ["u1"], limit: ["5"], cursor: ["x"] },
			},
			{ path: "/api/issues/filter-values", params: { project_name: project } },
			{ path: "/api/issues/tag-keys", params: { project_name: project, environment: ["production"] } },
			{ path: "/api/issues/tag-values", params: { project_name: project, key: ["plan", "browser"], prefix: ["p"], environment: ["production"] } },
			{ path: `/api/issues/${group_hash}`, params: { project_name: project, environment: ["production"], q: ["plan:pro"] } },
			{ path: `/api/issues/${group_hash}/tags`, params: { project_name: project, environment: ["production"] } },
			{ path: `/api/issues/${group_hash}/merged`, params: { project_name: project } },
			{ path: `/api/issues/${group_hash}/events/${"a".repeat(32)}`, params: { project_name: project } },
			{ path: "/api/log-outcomes", params: { project_name: project, days: ["30"] } },
			{ path: `/api/sites/${site.tracking_id}`, params: {} },
			{ path: `/api/sites/${site.tracking_id}/stats`, params: { ...range, ...filters, compare: ["previous"], exact: ["true"] } },
			{ path: `/api/sites/${site.tracking_id}/stats/pages.csv`, params: { ...range, ...filters, exact: ["true"] } },
			{ path: `/api/sites/${site.tracking_id}/stats/sources.csv`, params: { ...range, ...filters } },
			{ path: `/api/sites/${site.tracking_id}/pages`, params: { ...range, sort: ["ai", "people"], only: ["ai"] } },
			{ path: `/api/sites/${site.tracking_id}/crawlers`, params: range },
			{ path: `/api/sites/${site.tracking_id}/events`, params: range },
			{ path: `/api/sites/${site.tracking_id}/identities`, params: range },
			{ path: "/api/upload-tokens", params: { project_name: project } },
			{ path: "/api/artifacts", params: { project_name: project, release: ["1.0.0"] } },
		];
		const read = fc.constantFrom(...reads).chain((one) => queryOf(one.params).map((query) => ({ path: one.path, query })));
		const seen = new Set<number>();
		await fc.assert(
			fc.asyncProperty(read, async ({ path, query }) => {
				const search = new URLSearchParams(query as Record<string, string>);
				const res = await call(`${path}?${search}`, { token: owner.token });
				const text = await res.text();
				const what = `GET ${path}?${search.toString().slice(0, 300)} → ${res.status} ${text.slice(0, 200)}`;
				seen.add(res.status);
				expect(READ_STATUSES, what).toContain(res.status);
				if (res.status !== 200) expect(JSON.parse(text), what).toMatchObject({ error: expect.any(String) });
				expect(text, what).not.toContain(owner.token);
			}),
			{ numRuns: RUNS },
		);
		// The queries reached both the reads and their refusals.
		expect([...seen].sort()).toEqual(READ_STATUSES);
	}, 300_000);
});

/**
 * A body for one change: as documented, with one member given any value or an unknown one added,
 * or no JSON object at all.
 */
const changeBody = (valid: Record<string, unknown>) =>
	fc.oneof(
		{ weight: 2, arbitrary: fc.constant(JSON.stringify(valid)) },
		{
			weight: 4,
			arbitrary: fc
				.tuple(fc.constantFrom(...Object.keys(valid), "ignore_for_minutes", "ignore_until_events", "ignore_until_users", "resolve_in_next_release", "unknown"), fc.oneof(fc.integer({ min: -1, max: 2_000_000 }), fc.jsonValue()))
				.map(([member, value]) => JSON.stringify({ ...valid, [member]: value })),
		},
		{ weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
		{ weight: 1, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
	);

describe("property: issue changes answer a documented status to any body", () => {
	it("a status, a bulk status, a merge, an unmerge and deletes", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const ip = uniqueIp();
		const hashes: string[] = [];
		for (const message of ["Checkout failed", "Login failed", "Search failed"]) hashes.push((await ingestOk(owner.rawKey, { message }, ip)).group_hash);
		await issueGrouper(owner.keyId).flush();
		const project_name = owner.projectName;
		const status = fc.constantFrom("open", "resolved", "ignored");
		const hash = fc.constantFrom(...hashes, "0".repeat(32), "not-a-hash");
		const change = fc.oneof(
			fc.tuple(hash, status).chain(([h, st]) => changeBody({ project_name, status: st }).map((body) => ({ method: "PATCH", path: `/api/issues/${h}`, body }))),
			fc.tuple(hash, status).chain(([h, st]) => changeBody({ project_name, status: st, group_hashes: [h] }).map((body) => ({ method: "PATCH", path: "/api/issues", body }))),
			fc.tuple(hash, hash).chain(([a, b]) => changeBody({ project_name, group_hashes: [a, b] }).map((body) => ({ method: "POST", path: "/api/issues/merge", body }))),
			fc.tuple(hash, hash).chain(([a, b]) => changeBody({ project_name, group_hashes: [b] }).map((body) => ({ method: "POST", path: `/api/issues/${a}/unmerge`, body }))),
			hash.chain((h) => changeBody({ project_name, group_hashes: [h] }).map((body) => ({ method: "DELETE", path: "/api/issues", body }))),
			hash.chain((h) => changeBody({ project_name }).map((body) => ({ method: "DELETE", path: `/api/issues/${h}`, body }))),
		);
		const seen = new Set<number>();
		await fc.assert(
			fc.asyncProperty(change, async ({ method, path, body }) => {
				const res = await call(path, { method, token: owner.token, headers: { "content-type": "application/json" }, body });
				const text = await res.text();
				const what = `${method} ${path} ${body.slice(0, 300)} → ${res.status} ${text.slice(0, 200)}`;
				seen.add(res.status);
				expect([200, 400, 404, 409, 413], what).toContain(res.status);
				if (res.status !== 200) expect(JSON.parse(text), what).toMatchObject({ error: expect.any(String) });
				expect(text, what).not.toContain(owner.token);
			}),
			{ numRuns: RUNS },
		);
		expect(seen).toContain(200);
		expect(seen).toContain(400);
		// Whatever was changed, the list still reads whole.
		const list = await call(`/api/issues?${new URLSearchParams({ project_name: owner.projectName })}`, { token: owner.token });
		expect(list.status).toBe(200);
	}, 300_000);
});

describe("property: the other owner changes and the account's answer a documented status to any body or address", () => {
	it("a site's settings, a key's regeneration, upload tokens, artifacts, sign-up and sign-in", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const site = await createSite(owner.token, { domain: "shop.example" });
		const project_name = owner.projectName;
		const anyId = fc.constantFrom("00000000-0000-0000-0000-000000000000", "not-an-id", "%00", "a".repeat(300));
		const email = fc.constantFrom(`${owner.user.id}@example.com`, "a@b", "", `${"x".repeat(250)}@example.com`, "\ud800@example.com");
		const change = fc.oneof(
			changeBody({ name: "Shop", domain: "shop.example", active: true, attack_mode: false }).map((body) => ({ method: "PATCH", path: `/api/sites/${site.tracking_id}`, body, ip: undefined })),
			changeBody({ project_name }).map((body) => ({ method: "POST", path: "/api/feedback-key/regenerate", body, ip: undefined })),
			changeBody({ project_name }).map((body) => ({ method: "POST", path: "/api/upload-tokens", body, ip: undefined })),
			anyId.map((id) => ({ method: "DELETE", path: `/api/upload-tokens/${encodeURIComponent(id)}`, body: "", ip: undefined })),
			fc.tuple(anyId, queryValue([project_name])).map(([id, name]) => ({ method: "DELETE", path: `/api/artifacts/${encodeURIComponent(id)}?${new URLSearchParams({ project_name: name })}`, body: "", ip: undefined })),
			queryValue(["1.0.0"]).map((release) => ({ method: "DELETE", path: `/api/artifacts?${new URLSearchParams({ project_name, release })}`, body: "", ip: undefined })),
			email.chain((address) => changeBody({ email: address, password: "correct horse battery" }).map((body) => ({ method: "POST", path: "/api/auth/signup", body, ip: uniqueIp() }))),
			email.chain((address) => changeBody({ email: address, password: "wrong horse battery" }).map((body) => ({ method: "POST", path: "/api/auth/login", body, ip: uniqueIp() }))),
		);
		const seen = new Set<number>();
		await fc.assert(
			fc.asyncProperty(change, async ({ method, path, body, ip }) => {
				const signedIn = !path.startsWith("/api/auth/");
				const res = await call(path, { method, token: signedIn ? owner.token : undefined, ip, headers: { "content-type": "application/json" }, body: body || undefined });
				const text = await res.text();
				const what = `${method} ${path.slice(0, 300)} ${body.slice(0, 300)} → ${res.status} ${text.slice(0, 200)}`;
				seen.add(res.status);
				expect([200, 201, 204, 400, 401, 403, 404, 409, 413, 429], what).toContain(res.status);
				if (res.status >= 400) expect(JSON.parse(text), what).toMatchObject({ error: expect.any(String) });
				if (signedIn) expect(res.status, what).not.toBe(401);
				expect(text, what).not.toContain(owner.token);
			}),
			{ numRuns: RUNS },
		);
		for (const status of [200, 400, 404]) expect(seen).toContain(status);
	}, 300_000);
});
