// A site's first day of statistics (`stats_from`), where the console's All time starts: the day
// the site was added, or the first whole day the analytics retention keeps, whichever is later.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, it, vi } from "vitest";
import worker from "../workers/index";
import { createSite, ownerWithSite } from "./analytics-helpers";
import { signUp } from "./helpers";

const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** GET /api/sites/:tracking_id with the Worker's vars changed (`ANALYTICS_RETENTION_DAYS`). */
async function readSite(token: string, trackingId: string, vars: Record<string, string> = {}) {
	const ctx = createExecutionContext();
	const res = await worker.fetch(
		new Request(`https://svc.test/api/sites/${trackingId}`, { headers: { authorization: `Bearer ${token}` } }),
		{ ...env, ...vars } as Env,
		ctx,
	);
	await waitOnExecutionContext(ctx);
	return (await res.json()) as { stats_from: string; created_at: string };
}

afterEach(() => {
	vi.useRealTimers();
});

describe("a site's stats_from", () => {
	it("is the day the site was added, in every answer that shows the site", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		const today = day(Date.now());
		expect(site.stats_from).toBe(day(Date.parse(site.created_at)));
		expect(site.stats_from).toBe(today);
		expect((await readSite(token, site.tracking_id)).stats_from).toBe(today);
	});

	it("is the first whole day the retention keeps for a site added before it: the 400 days' by default, else the setting's", async ({ expect }) => {
		const now = Date.now();
		const { token } = await signUp();
		// Added 500 days ago, 18 hours into a UTC day.
		vi.useFakeTimers({ toFake: ["Date"] });
		vi.setSystemTime(Math.floor(now / DAY) * DAY - 500 * DAY + 18 * 3_600_000);
		const site = await createSite(token);
		vi.setSystemTime(now);
		expect(site.stats_from).toBe(day(Math.floor(now / DAY) * DAY - 500 * DAY));
		// The clean-up deletes what is older than 400 days: the day 400 days ago only in part.
		const firstKept = (days: number) => day(Math.ceil((now - days * DAY) / DAY) * DAY);
		expect((await readSite(token, site.tracking_id)).stats_from).toBe(firstKept(400));
		expect((await readSite(token, site.tracking_id, { ANALYTICS_RETENTION_DAYS: "30" })).stats_from).toBe(firstKept(30));
		// A retention longer than the site's age: the day it was added.
		expect((await readSite(token, site.tracking_id, { ANALYTICS_RETENTION_DAYS: "1000" })).stats_from).toBe(day(Math.floor(now / DAY) * DAY - 500 * DAY));
	});
});
