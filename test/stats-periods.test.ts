import { describe, it } from "vitest";
import { getJson, ownerWithSite } from "./analytics-helpers";
import { seedEvents } from "./statsData";

describe("GET /api/sites/:tracking_id/stats: a period under way", () => {
	it("draws no bucket that starts after now: a range into the future ends its series at the hour under way", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		const HOUR = 3_600_000;
		const before = Date.now();
		const from = new Date(Math.floor(before / HOUR) * HOUR - HOUR).toISOString();
		const to = new Date(Math.floor(before / HOUR) * HOUR + 48 * HOUR).toISOString();
		// From the rollups, and from the events (a filter).
		for (const filter of ["", "&country=DE"]) {
			const { body } = await getJson(`/api/sites/${site.tracking_id}/stats?from=${from}&to=${to}&compare=previous${filter}`, token);
			const starts = body.series.map((b: { t: string }) => Date.parse(b.t));
			expect(starts[0], filter).toBe(Date.parse(from));
			// The hour under way is the last (the clock may have moved on to the next).
			expect(starts.at(-1), filter).toBeGreaterThanOrEqual(Math.floor(before / HOUR) * HOUR);
			expect(starts.at(-1), filter).toBeLessThanOrEqual(Date.now());
			// The answer still spans the range asked for, and the period before, all past, has every hour.
			expect(body.to, filter).toBe(to);
			// The period before covers as much of it as has passed of this one, hour for hour.
			expect(body.previous.from, filter).toBe(new Date(Date.parse(from) - 49 * HOUR).toISOString());
			expect(body.previous.series, filter).toHaveLength(starts.length);
		}
	});

	it("compares a period under way with as much of the one before as has passed of it", async ({ expect }) => {
		const { token, site } = await ownerWithSite();
		const HOUR = 3_600_000;
		const from = Math.floor(Date.now() / HOUR) * HOUR - 5 * HOUR;
		const day = 24 * HOUR;
		// Yesterday an hour into the period (compared) and ten hours in (not yet reached today).
		await seedEvents(site.tracking_id, [
			{ visitor: "a", ts: from + HOUR },
			{ visitor: "b", ts: from - day + HOUR },
			{ visitor: "c", ts: from - day + 10 * HOUR },
		]);
		for (const filter of ["", "&country=Unknown"]) {
			const { body } = await getJson(`/api/sites/${site.tracking_id}/stats?from=${new Date(from).toISOString()}&to=${new Date(from + day).toISOString()}&compare=previous${filter}`, token);
			expect(body.previous, filter).toMatchObject({ from: new Date(from - day).toISOString(), pageviews: 1, visitors: 1 });
			expect(Date.parse(body.previous.to) - (from - day), filter).toBeGreaterThanOrEqual(6 * HOUR);
			expect(Date.parse(body.previous.to) - (from - day), filter).toBeLessThanOrEqual(7 * HOUR);
		}
	});
});
