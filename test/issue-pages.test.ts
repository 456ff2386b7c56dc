// The issue list past one page: `limit` and `cursor` in each sort, and the environments and
// releases its filters offer (GET /api/issues/filter-values), at the 10,000 issues a project holds.
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { ISSUE_SORTS, type IssueSort } from "../domain/api/issues";
import { deleteExpiredIssues } from "../domain/logs/logStore";
import { call } from "./helpers";
import { ingestOk, listIssues, ownerWithLogKey, type SeededIssue, seededHash, seedIssues } from "./logHelpers";

type Json = Record<string, any>;
type Project = Awaited<ReturnType<typeof ownerWithLogKey>>;

const T0 = Date.now() - 10 * 86_400_000;

async function page(project: Project, query: Record<string, string>) {
	const res = await listIssues(project.token, { project_name: project.projectName, ...query });
	return { status: res.status, body: await res.json<Json>() };
}

/** Every page of the list from the first, by next_cursor: the group hashes in the order listed. */
async function walk(project: Project, query: Record<string, string>): Promise<{ hashes: string[]; pages: number }> {
	const hashes: string[] = [];
	let pages = 0;
	let cursor: string | null = null;
	do {
		const { status, body } = await page(project, { ...query, ...(cursor ? { cursor } : {}) });
		if (status !== 200) throw new Error(`page failed: ${status} ${JSON.stringify(body)}`);
		hashes.push(...body.issues.map((issue: Json) => issue.group_hash));
		pages++;
		cursor = body.next_cursor;
	} while (cursor);
	return { hashes, pages };
}

/** The list's order: the sort's values, then the group hash, all descending. */
function sorted(issues: SeededIssue[], sort: IssueSort): string[] {
	const key = (i: SeededIssue) =>
		sort === "count" ? [i.count ?? 1, i.lastSeen] : sort === "first_seen" ? [i.firstSeen ?? i.lastSeen] : [i.lastSeen];
	return [...issues]
		.sort((a, b) => {
			const [ka, kb] = [key(a), key(b)];
			for (let n = 0; n < ka.length; n++) if (ka[n] !== kb[n]) return kb[n] - ka[n];
			return b.groupHash.localeCompare(a.groupHash);
		})
		.map((i) => i.groupHash);
}

describe("GET /api/issues, page by page", () => {
	it("1,000 issues a page by default and at most: limit=1000 is taken, 1001 is 400; next_cursor reads the rest", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await seedIssues(owner, Array.from({ length: 1_001 }, (_, i) => ({ groupHash: seededHash(i), lastSeen: T0 + i * 1_000 })));

		const first = await page(owner, {});
		expect(first.status).toBe(200);
		expect(first.body.issues).toHaveLength(1_000);
		expect(first.body.issues[0].group_hash).toBe(seededHash(1_000));
		expect(first.body.next_cursor).toEqual(expect.any(String));
		for (const issue of first.body.issues.slice(0, 3)) expect(issue.last_24h).toHaveLength(24);
		const rest = await page(owner, { cursor: first.body.next_cursor });
		expect(rest.body).toEqual({ issues: [expect.objectContaining({ group_hash: seededHash(0) })], next_cursor: null });

		const atLimit = await page(owner, { limit: "1000" });
		expect(atLimit.body.issues.map((i: Json) => i.group_hash)).toEqual(first.body.issues.map((i: Json) => i.group_hash));
		expect(atLimit.body.next_cursor).toBe(first.body.next_cursor);
		for (const limit of ["1001", "0", "-1", "1.5", "ten"]) {
			const refused = await page(owner, { limit });
			expect(refused.status).toBe(400);
			expect(refused.body.error).toContain("limit: must be a whole number from 1 to 1000");
		}
		const one = await page(owner, { limit: "1" });
		expect(one.body.issues.map((i: Json) => i.group_hash)).toEqual([seededHash(1_000)]);
		expect(one.body.next_cursor).toEqual(expect.any(String));
	});

	it.for(ISSUE_SORTS)("sort=%s: paging through lists every issue exactly once, in the sort's order, with or without a filter", async (sort, { expect }) => {
		const owner = await ownerWithLogKey();
		// Few distinct values, so most issues tie on them and only the group hash orders them.
		const issues: SeededIssue[] = Array.from({ length: 1_001 }, (_, i) => ({
			groupHash: seededHash((i * 7919) % 4_096),
			lastSeen: T0 + (i % 10) * 1_000,
			firstSeen: T0 - (i % 7) * 1_000,
			count: (i % 5) + 1,
			status: i % 4 === 0 ? "resolved" : "open",
		}));
		await seedIssues(owner, issues);

		const query = { sort, limit: "97" };
		const all = await walk(owner, query);
		expect(all.hashes).toEqual(sorted(issues, sort));
		expect(new Set(all.hashes).size).toBe(1_001);
		expect(all.pages).toBe(11);
		expect((await walk(owner, { sort, limit: "1000" })).hashes).toEqual(all.hashes);

		const open = await walk(owner, { ...query, status: "open" });
		expect(open.hashes).toEqual(sorted(issues.filter((i) => i.status === "open"), sort));
		expect(open.pages).toBe(Math.ceil(750 / 97));
	});

	it("a page after a change lists no issue twice: one seen again moves ahead of the cursor", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const older = await ingestOk(owner.rawKey, { message: "older failure" });
		await ingestOk(owner.rawKey, { message: "newer failure" });
		const first = await page(owner, { limit: "1" });
		await ingestOk(owner.rawKey, { message: "older failure" });
		const second = await page(owner, { limit: "1", cursor: first.body.next_cursor });
		expect(second.body.issues.map((i: Json) => i.group_hash)).not.toContain(first.body.issues[0].group_hash);
		expect(second.body).toEqual({ issues: [], next_cursor: null });
		expect((await page(owner, { limit: "1" })).body.issues[0].group_hash).toBe(older.group_hash);
	});

	it("a cursor is read in the sort it was given for; one from another sort, or not given out, is 400", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await seedIssues(owner, [0, 1, 2].map((i) => ({ groupHash: seededHash(i), lastSeen: T0 + i })));
		const bySort = Object.fromEntries(
			await Promise.all(ISSUE_SORTS.map(async (sort) => [sort, (await page(owner, { sort, limit: "1" })).body.next_cursor])),
		);
		for (const sort of ISSUE_SORTS) {
			expect((await page(owner, { sort, limit: "1", cursor: bySort[sort] })).status).toBe(200);
			for (const other of ISSUE_SORTS.filter((s) => s !== sort)) {
				const refused = await page(owner, { sort: other, cursor: bySort[sort] });
				expect(refused.status).toBe(400);
				expect(refused.body.error).toContain("cursor: was given for another sort");
			}
		}
		const forged = (text: string) => btoa(text).replace(/=+$/, "");
		for (const cursor of ["not-a-cursor!", "x".repeat(201), forged("last_seen:1:2"), forged(`count:1:${seededHash(1)}`), forged(`title:1:${seededHash(1)}`)]) {
			const refused = await page(owner, { cursor });
			expect(refused.status).toBe(400);
			expect(Object.keys(refused.body)).toEqual(["error"]);
			expect(refused.body.error).toContain("cursor");
		}
	});
});

function filterValues(project: Project, query: Record<string, string> = { project_name: project.projectName }) {
	return call(`/api/issues/filter-values?${new URLSearchParams(query)}`, { token: project.token });
}

describe("GET /api/issues/filter-values", () => {
	it("the project's environments by name and its releases most recently seen first, whatever the list shows", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const first = await ingestOk(owner.rawKey, { message: "checkout failed", environment: "staging", release: "web@1.0.0" });
		await ingestOk(owner.rawKey, { message: "login failed", environment: "production", release: "web@1.1.0" });
		await ingestOk(owner.rawKey, { message: "search failed", environment: "dev" });
		await call(`/api/issues/${first.group_hash}`, { method: "PATCH", token: owner.token, json: { project_name: owner.projectName, status: "resolved" } });
		const other = await ownerWithLogKey();
		await ingestOk(other.rawKey, { message: "elsewhere", environment: "qa", release: "other@9" });

		const res = await filterValues(owner);
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ environments: ["dev", "production", "staging"], releases: ["web@1.1.0", "web@1.0.0"] });
		// A name seen again moves ahead.
		await ingestOk(owner.rawKey, { message: "checkout failed", environment: "staging", release: "web@1.0.0" });
		expect((await filterValues(owner).then((r) => r.json<Json>())).releases).toEqual(["web@1.0.0", "web@1.1.0"]);
		expect(await filterValues(other).then((r) => r.json())).toEqual({ environments: ["qa"], releases: ["other@9"] });
	});

	it("at most 1,000 of each, the most recently seen: all of 1,000, the oldest of 1,001 left out", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const named = (i: number): SeededIssue => ({ groupHash: seededHash(i), lastSeen: T0 + i * 1_000, environments: [`env-${i}`], releases: [`r${i}`] });
		await seedIssues(owner, Array.from({ length: 1_000 }, (_, i) => named(i)));
		const full = await filterValues(owner).then((r) => r.json<Json>());
		expect(full.releases).toHaveLength(1_000);
		expect(full.releases[0]).toBe("r999");
		expect(full.releases.at(-1)).toBe("r0");
		expect(full.environments).toEqual(Array.from({ length: 1_000 }, (_, i) => `env-${i}`).sort());

		await seedIssues(owner, [named(1_000)]);
		const past = await filterValues(owner).then((r) => r.json<Json>());
		expect(past.releases).toHaveLength(1_000);
		expect(past.releases[0]).toBe("r1000");
		expect(past.releases).not.toContain("r0");
		expect(past.environments).toHaveLength(1_000);
		expect(past.environments).not.toContain("env-0");
	});

	it("a name goes with the last issue holding it, when the clean-up deletes expired issues", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		await seedIssues(owner, [
			{ groupHash: seededHash(1), lastSeen: T0, environments: ["legacy", "production"], releases: ["1.0", "2.0"] },
			{ groupHash: seededHash(2), lastSeen: T0 + 2 * 86_400_000, environments: ["production"], releases: ["2.0"] },
		]);
		expect(await deleteExpiredIssues(env.DB, owner.keyId, T0 + 86_400_000, 1_000)).toBe(1);
		expect(await filterValues(owner).then((r) => r.json())).toEqual({ environments: ["production"], releases: ["2.0"] });
	});

	it("400 without a project, 404 for another owner's, 401 without a session", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const other = await ownerWithLogKey();
		const missing = await filterValues(owner, {});
		expect(missing.status).toBe(400);
		expect(Object.keys(await missing.json<Json>())).toEqual(["error"]);
		expect((await filterValues(owner, { project_name: other.projectName })).status).toBe(404);
		expect((await call(`/api/issues/filter-values?project_name=${owner.projectName}`)).status).toBe(401);
	});
});
