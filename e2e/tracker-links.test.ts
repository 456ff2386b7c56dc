/**
 * t.links.js in Chromium against the Worker: a click on a link out of the site, or on a file to
 * download, is a custom event (`Outbound Link: Click`, `File Download`) with the link's URL
 * without its query and fragment, as Plausible's extensions count them, the middle button too;
 * a link within the site is none, and t.js counts no link at all.
 */
import { describe, it } from "vitest";
import { ownerWithSite, workerSiteAndBrowser } from "./stack";
import { type StoredEvent, trackerPages } from "./trackerPage";

const stack = workerSiteAndBrowser();
const { newPage, open, eventsOnceThereAre, storedEvents } = trackerPages(() => stack);
/** The link clicks among a site's events: name and data. */
const clicks = (events: StoredEvent[]) => events.filter((e) => e.name !== "" && !e.name.startsWith("_")).map((e) => [e.name, JSON.parse(e.data ?? "null")]);

describe("t.links.js", () => {
	it("counts a download and a click out (which leaves the page), not a link within the site", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const { context, page } = await newPage();
		expect(await open(page, trackingId, "/?links=1")).toBe(204);
		await page.click("#inside");
		const download = page.waitForEvent("download");
		await page.click("#file");
		await (await download).cancel();
		// The outbound link's target page is on the Worker's origin: the click leaves the site.
		await Promise.all([page.waitForURL(`${stack.worker.url}/partner/offer?**`), page.click("#out span")]);
		// The view, the download, the click out, the view's _leave as the page was left.
		const events = await eventsOnceThereAre(expect, token, trackingId, 4);
		await context.close();
		expect(clicks(events).sort()).toEqual([
			["File Download", { url: `${stack.site.origin}/files/price-list.pdf` }],
			["Outbound Link: Click", { url: `${stack.worker.url}/partner/offer` }],
		]);
		for (const event of events) expect(event.url_path).toBe("/");
	});

	it("counts a middle click on a link out (a new tab), and nothing for the right button", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const { context, page } = await newPage();
		expect(await open(page, trackingId, "/?links=1")).toBe(204);
		// The page's own handler stops the click: the tracker has seen it first.
		await page.evaluate(() => document.getElementById("out")?.addEventListener("auxclick", (e) => e.stopPropagation()));
		await page.click("#out", { button: "middle" });
		await page.click("#out", { button: "right" });
		// A browser that also sends a click for the middle button (older Firefox did) counts it once.
		await page.evaluate(() => {
			const out = document.getElementById("out") as HTMLAnchorElement;
			out.addEventListener("click", (e) => e.preventDefault());
			out.dispatchEvent(new MouseEvent("click", { button: 1, bubbles: true, cancelable: true }));
		});
		const events = await eventsOnceThereAre(expect, token, trackingId, 2);
		await context.close();
		expect(clicks(events)).toEqual([["Outbound Link: Click", { url: `${stack.worker.url}/partner/offer` }]]);
	});

	it("counts a link in an open shadow root, one around a component with a shadow root of its own, an image map's area, and a file by its readable name", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const { context, page } = await newPage();
		expect(await open(page, trackingId, "/?links=1")).toBe(204);
		await page.evaluate((out) => {
			// The page stays: its own handler, after the tracker's, keeps each link from being followed.
			addEventListener("click", (e) => e.preventDefault());
			const box = document.body.appendChild(document.createElement("p"));
			const host = box.appendChild(document.createElement("span"));
			host.attachShadow({ mode: "open" }).innerHTML = `<a id="shadowed" href="${out}/shadow"><b>In a widget</b></a>`;
			const link = box.appendChild(document.createElement("a"));
			link.href = `${out}/icon`;
			const icon = link.appendChild(document.createElement("x-icon"));
			icon.attachShadow({ mode: "open" }).innerHTML = `<svg width="20" height="20"><rect id="glyph" width="20" height="20"/></svg>`;
			box.insertAdjacentHTML(
				"beforeend",
				`<img id="mapped" usemap="#regions" width="60" height="30" alt="Regions"><map name="regions"><area shape="rect" coords="0,0,60,30" href="${out}/area" alt="All"></map>`,
			);
		}, `${stack.worker.url}/partner`);
		await page.click("#shadowed b");
		await page.click("x-icon #glyph");
		await page.click("#mapped");
		// A file's name as people read it, as a page's path is stored.
		await page.evaluate(() => {
			const file = document.body.appendChild(document.createElement("a"));
			file.href = "/files/Preisliste März.pdf";
			file.id = "accented";
			file.textContent = "Preisliste";
		});
		await page.click("#accented");
		const events = await eventsOnceThereAre(expect, token, trackingId, 5);
		await context.close();
		expect(clicks(events).sort()).toEqual([
			["File Download", { url: `${stack.site.origin}/files/Preisliste März.pdf` }],
			...["area", "icon", "shadow"].map((path) => ["Outbound Link: Click", { url: `${stack.worker.url}/partner/${path}` }]),
		]);
	});

	it("is not in t.js: the same clicks there are no events", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(stack.worker.url, "localhost");
		const { context, page } = await newPage();
		expect(await open(page, trackingId, "/?links=plain")).toBe(204);
		const download = page.waitForEvent("download");
		await page.click("#file");
		await (await download).cancel();
		await page.click("#out", { button: "middle" });
		// Given time to arrive, only the page view is there.
		await new Promise((resolve) => setTimeout(resolve, 1_000));
		expect((await storedEvents(token, trackingId)).map((e) => e.name)).toEqual([""]);
		await context.close();
	});
});
