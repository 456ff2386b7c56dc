import { describe, it } from "vitest";
import type { SiteView } from "../domain/api/sites";
import { collect, crawlIngest, getJson, ownerWithSite, pageview, patchSite } from "./analytics-helpers";

const GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";

/** The site as its owner reads it, once its refused host is noted (the note is written after the answer). */
const siteOf = (trackingId: string, token: string) => getJson<SiteView>(`/api/sites/${trackingId}`, token).then((r) => r.body);

describe("a host outside the site's domain", () => {
	it("is kept on the site with when it was refused, for the owner to see where a tag counts nothing; a domain change clears it", async ({ expect }) => {
		const { token, site } = await ownerWithSite({ domain: "example.com" });
		expect(site).toMatchObject({ refused_host: null, refused_at: null });
		// Its own host and a subdomain are taken, and noted nowhere.
		expect((await collect(pageview(site.tracking_id, { url_host: "www.example.com" }))).status).toBe(204);
		const before = Date.now();
		expect((await collect(pageview(site.tracking_id, { url_host: "Staging.Example-Shop.net:8080" }))).status).toBe(403);
		await expect.poll(() => siteOf(site.tracking_id, token).then((s) => s.refused_host)).toBe("staging.example-shop.net");
		const refusedAt = Date.parse((await siteOf(site.tracking_id, token)).refused_at ?? "");
		expect(refusedAt).toBeGreaterThanOrEqual(before);
		expect(refusedAt).toBeLessThanOrEqual(Date.now());

		// Another domain's tag is no refusal of the new one.
		expect(await patchSite(token, site.tracking_id, { domain: "example-shop.net" })).toMatchObject({ refused_host: null, refused_at: null });
		// A rename keeps what was noted.
		expect((await collect(pageview(site.tracking_id, { url_host: "example.org" }))).status).toBe(403);
		await expect.poll(() => siteOf(site.tracking_id, token).then((s) => s.refused_host)).toBe("example.org");
		expect(await patchSite(token, site.tracking_id, { name: "Shop" })).toMatchObject({ refused_host: "example.org" });
	});

	it("is kept as the events keep a host: 500 characters whole, one more cut, never inside a character", async ({ expect }) => {
		for (const [sent, kept] of [
			["a".repeat(500), "a".repeat(500)],
			["b".repeat(501), "b".repeat(500)],
			// A two-unit character across the 500th unit goes whole, not half.
			[`${"c".repeat(499)}😀.net`, "c".repeat(499)],
		]) {
			const { token, site } = await ownerWithSite({ domain: "example.com" });
			expect((await collect(pageview(site.tracking_id, { url_host: sent }))).status).toBe(403);
			await expect.poll(() => siteOf(site.tracking_id, token).then((s) => s.refused_host)).toBe(kept);
		}
	});

	it("is noted from a crawler visit too, and at most once a minute: a stream of refusals is not a write each", async ({ expect }) => {
		const { token, site } = await ownerWithSite({ domain: "example.com" });
		expect((await crawlIngest({ tracking_id: site.tracking_id, url_host: "mirror.example.net", ua: GPTBOT })).status).toBe(403);
		await expect.poll(() => siteOf(site.tracking_id, token).then((s) => s.refused_host)).toBe("mirror.example.net");
		expect((await collect(pageview(site.tracking_id, { url_host: "other.example.net" }))).status).toBe(403);
		// Within the minute, the first stays.
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect((await siteOf(site.tracking_id, token)).refused_host).toBe("mirror.example.net");
	});

	it("notes nothing for a refusal that is not about the host (no domain set, Attack Mode)", async ({ expect }) => {
		const { token, site } = await ownerWithSite({ domain: "example.com" });
		await patchSite(token, site.tracking_id, { attack_mode: true });
		expect((await collect(pageview(site.tracking_id), { ua: "curl/8.0" })).status).toBe(403);
		const { token: other, site: bare } = await ownerWithSite({});
		expect((await collect(pageview(bare.tracking_id, { url_host: "anything.example" }))).status).toBe(403);
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect((await siteOf(site.tracking_id, token)).refused_host).toBeNull();
		expect((await siteOf(bare.tracking_id, other)).refused_host).toBeNull();
	});
});
