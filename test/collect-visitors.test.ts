/**
 * Who and where a browser event comes from, as stored: browser, OS and device from the user
 * agent, the country, and visitor ids that need neither cookies nor raw IPs.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { SiteCollector } from "../durable-objects/SiteCollector";
import { CHROME, collect, FIREFOX_LINUX, flushSite, IPHONE, ownerWithSite, pageview, storedEvents, storedWith } from "./analytics-helpers";
import { uniqueIp } from "./helpers";

/** A new site whose collector already holds a visitor salt of another day. */
async function siteWithSalt(name: string, value: string) {
	const { site } = await ownerWithSite();
	const stub = env.SITE_COLLECTOR.get(env.SITE_COLLECTOR.idFromName(site.tracking_id));
	await runInDurableObject(stub, (_: SiteCollector, state) => {
		state.storage.sql.exec(`CREATE TABLE IF NOT EXISTS salts (name TEXT PRIMARY KEY, value TEXT NOT NULL)`);
		state.storage.sql.exec(`INSERT INTO salts (name, value) VALUES (?, ?)`, name, value);
	});
	return { site, stub };
}

describe("who and where: user agent, country, visitors without cookies or raw IPs", () => {
	it.for([
		[CHROME, { browser: "Chrome", os: "Windows", device: "desktop" }],
		[IPHONE, { browser: "Mobile Safari", os: "iOS", device: "mobile" }],
		[FIREFOX_LINUX, { browser: "Firefox", os: "Linux", device: "desktop" }],
		[
			"Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
			{ browser: "Mobile Safari", os: "iOS", device: "tablet" },
		],
	] as const)("parses %s", async ([ua, expected], { expect }) => {
		expect(await storedWith({}, { ua })).toMatchObject(expected);
	});

	it.for([
		["DE", "DE"],
		["T1", ""],
		["XX", ""],
	])("country: cf.country %s is stored as %j", async ([country, stored], { expect }) => {
		expect((await storedWith({}, { country })).country).toBe(stored);
	});

	it("country: none when the request carries no cf.country", async ({ expect }) => {
		expect((await storedWith({})).country).toBe("");
	});

	it("counts one visitor per IP and user agent, without storing the IP", async ({ expect }) => {
		const { site } = await ownerWithSite();
		const [ipA, ipB] = ["10.200.1.1", "10.200.1.2"];
		const sent = [
			[ipA, CHROME],
			[ipA, CHROME],
			[ipA, IPHONE],
			[ipB, CHROME],
		];
		for (const [i, [ip, ua]] of sent.entries()) {
			expect((await collect(pageview(site.tracking_id, { url_path: `/visit-${i}` }), { ip, ua })).status).toBe(204);
		}
		const events = await storedEvents(site.tracking_id);
		// By page, in the order sent: events are timed in the Worker, and two may share a millisecond.
		const ids = sent.map((_, i) => events.find((e) => e.url_path === `/visit-${i}`)?.visitor_id);
		expect(ids[0]).toBe(ids[1]);
		expect(new Set(ids).size).toBe(3);
		for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
		expect(JSON.stringify(events)).not.toContain("10.200.1.");
	});

	it("stores a visitor_id the client sends as a lasting hash of it: the same id, whatever the address, is one visitor; another id another", async ({
		expect,
	}) => {
		const { site } = await ownerWithSite();
		for (const [visitor, ip] of [["alice@mail.test", uniqueIp()], ["alice@mail.test", uniqueIp()], ["bob@mail.test", uniqueIp()]]) {
			expect((await collect({ ...pageview(site.tracking_id), visitor_id: visitor }, { ip })).status).toBe(204);
		}
		const ids = (await storedEvents(site.tracking_id)).map((e) => e.visitor_id);
		for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
		expect(new Set(ids).size).toBe(2);
		expect(JSON.stringify(await storedEvents(site.tracking_id))).not.toContain("mail.test");
	});

	it("salts visitor hashes per day: a new day's salt replaces the old, and a new salt gives new hashes", async ({ expect }) => {
		const { site, stub } = await siteWithSalt("visitor:2000-01-01", "yesterday");
		const ip = uniqueIp();
		await collect(pageview(site.tracking_id), { ip });
		// The salt is taken when the event reaches the collector.
		await flushSite(site.tracking_id);
		const today = new Date().toISOString().slice(0, 10);
		const salts = await runInDurableObject(stub, (_: SiteCollector, state) =>
			state.storage.sql.exec<{ name: string }>(`SELECT name FROM salts WHERE name LIKE 'visitor:%'`).toArray(),
		);
		expect(salts).toEqual([{ name: `visitor:${today}` }]);

		// Same IP and browser under another salt (as on the next day): another visitor id. The
		// object keeps the salts it has read in memory, so it restarts to read the changed one.
		await runInDurableObject(stub, (_: SiteCollector, state) => {
			state.storage.sql.exec(`UPDATE salts SET value = 'rotated' WHERE name = ?`, `visitor:${today}`);
		});
		await runInDurableObject(stub, (_: SiteCollector, state) => state.abort("read the salts again")).catch(() => {});
		await collect(pageview(site.tracking_id), { ip });
		const [first, second] = await storedEvents(site.tracking_id);
		expect(first.visitor_id).not.toBe(second.visitor_id);
	});

	it("never deletes a newer day's salt: an event of the old day that finishes after midnight leaves it alone", async ({ expect }) => {
		// Around midnight an event that read the clock at 23:59:59 may reach the salts after one
		// of the new day already created its salt; here the newer salt is a far-future day's.
		const { site, stub } = await siteWithSalt("visitor:9999-12-31", "tomorrow");
		await collect(pageview(site.tracking_id));
		await flushSite(site.tracking_id);
		const salts = await runInDurableObject(stub, (_: SiteCollector, state) =>
			state.storage.sql.exec<{ name: string; value: string }>(`SELECT name, value FROM salts WHERE name LIKE 'visitor:%' ORDER BY name`).toArray(),
		);
		expect(salts.map((s) => s.name)).toEqual([`visitor:${new Date().toISOString().slice(0, 10)}`, "visitor:9999-12-31"]);
		expect(salts[1].value).toBe("tomorrow");
	});
});
