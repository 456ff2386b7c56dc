import { describe, it } from "vitest";
import type { SiteWithFiguresView } from "../domain/api/sites";
import { collect, createSite, flushSite, getJson, ownerWithSite, pageview } from "./analytics-helpers";
import { uniqueIp } from "./helpers";

const HOUR_MS = 3_600_000;

describe("GET /api/sites?figures=last_24h", () => {
	it("gives each of the owner's sites its visitors in the last 24 hours and each hour's, from the rollups", async ({ expect }) => {
		const { token, site: busy } = await ownerWithSite();
		const quiet = await createSite(token, { domain: "quiet.example" });
		// Two visitors, one of them twice; and another owner's visitor, who counts for no site here.
		const ips = [uniqueIp(), uniqueIp()];
		for (const ip of [ips[0], ips[1], ips[0]]) expect((await collect(pageview(busy.tracking_id), { ip })).status).toBe(204);
		const other = await ownerWithSite();
		expect((await collect(pageview(other.site.tracking_id))).status).toBe(204);
		await Promise.all([flushSite(busy.tracking_id), flushSite(other.site.tracking_id)]);

		const { status, body } = await getJson<{ sites: SiteWithFiguresView[] }>("/api/sites?figures=last_24h", token);
		expect(status).toBe(200);
		expect(body.sites.map((s) => s.tracking_id)).toEqual([quiet.tracking_id, busy.tracking_id]);
		const [quietFigures, busyFigures] = body.sites.map((s) => s.last_24h);
		expect(busyFigures.visitors).toBe(2);
		expect(quietFigures.visitors).toBe(0);
		for (const { series } of [quietFigures, busyFigures]) {
			// Every whole hour from 24 hours ago to the one under way: 24, or 25 when now is not on the hour.
			expect(series.length).toBeGreaterThanOrEqual(24);
			expect(series.length).toBeLessThanOrEqual(25);
			const starts = series.map((point) => Date.parse(point.t));
			expect(starts.every((t, i) => t % HOUR_MS === 0 && (i === 0 || t - starts[i - 1] === HOUR_MS))).toBe(true);
			expect(starts.at(-1)).toBe(Math.floor(Date.now() / HOUR_MS) * HOUR_MS);
		}
		expect(busyFigures.series.at(-1)?.visitors).toBe(2);
		expect(busyFigures.series.slice(0, -1).every((point) => point.visitors === 0)).toBe(true);
		expect(quietFigures.series.every((point) => point.visitors === 0)).toBe(true);

		// Without the parameter, the list as before.
		const plain = await getJson<{ sites: object[] }>("/api/sites", token);
		expect(plain.body.sites.every((s) => !("last_24h" in s))).toBe(true);
	});

	it("counts the events accepted a moment ago, as the site's dashboard does", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		// Still in this isolate's buffer when the list is asked for: nothing has moved it to D1.
		expect((await collect(pageview(site.tracking_id), { ip: uniqueIp() })).status).toBe(204);

		const { body } = await getJson<{ sites: SiteWithFiguresView[] }>("/api/sites?figures=last_24h", token);
		expect(body.sites[0].last_24h.visitors).toBe(1);
		expect(body.sites[0].last_24h.series.at(-1)?.visitors).toBe(1);
	});

	it.for([
		["figures=last_7d", 'figures: must be "last_24h"'],
		["figures=last_24h&figures=last_24h", 'figures: must be "last_24h"'],
		["visitors=1", "unknown parameter visitors"],
	])("?%s is a 400 that says why", async ([query, message], { expect }) => {
		const { token } = await ownerWithSite();
		const { status, body } = await getJson<{ error: string }>(`/api/sites?${query}`, token);
		expect(status).toBe(400);
		expect(body.error).toContain(message);
	});
});
