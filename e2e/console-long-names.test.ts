/**
 * A project and a site with the longest names the API takes (100 characters): on a phone (390 px)
 * the pages whose project or site picker shows the name stay within the screen, the picker cutting
 * the name rather than the page scrolling sideways; on a desktop screen (1280 px) the picker stays
 * as narrow as a short name.
 */
import type { Locator } from "playwright-core";
import { expect, it } from "vitest";
import { useSession } from "./consolePage";
import { api, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

const LONGEST = "International documentation portal for enterprise customers and partners worldwide, EMEA and APAC".padEnd(100, "!");

/**
 * Each page whose picker shows the 100-character name, at `width` px: the page does not scroll
 * sideways, and `check` gets the picker and the page's path.
 */
async function eachPickerPage(width: number, ip: string, check: (select: Locator, path: string) => Promise<void>) {
	expect(LONGEST).toHaveLength(100);
	const { token } = await signUpOwner(stack.worker.url, `long-names-${width}`, ip);
	await api(stack.worker.url, "/api/feedback-key", { token, json: { project_name: LONGEST } });
	const site = await api<{ tracking_id: string }>(stack.worker.url, "/api/sites", { token, json: { domain: "long.example", name: LONGEST } });

	const page = await stack.browser.newPage({ viewport: { width, height: 844 }, locale: "en-US" });
	await useSession(page, stack.worker.url, token);
	const project = encodeURIComponent(LONGEST);
	for (const [path, picker] of [
		[`/feedback/${project}`, "Project"],
		[`/issues/${project}`, "Project"],
		[`/analytics/${site.tracking_id}`, "Site"],
		[`/crawlers/${site.tracking_id}`, "Site"],
	]) {
		await page.goto(`${stack.worker.url}${path}`);
		const select = page.getByRole("combobox", { name: picker, exact: true });
		await expect.poll(() => select.evaluate((s: HTMLSelectElement) => s.selectedOptions[0]?.textContent)).toBe(LONGEST);
		await page.waitForLoadState("networkidle");
		const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: document.documentElement.clientWidth }));
		expect(widths.page, `${path} scrolls sideways at ${width} px`).toBeLessThanOrEqual(widths.screen);
		await check(select, `the ${picker} picker of ${path}`);
	}
}

it("keeps the pages with a 100-character project or site name in the picker within 390 px", async () => {
	await eachPickerPage(390, "10.96.0.1", async (select, which) => {
		const box = await select.boundingBox();
		expect((box?.x ?? 0) + (box?.width ?? 0), `${which} ends within the screen`).toBeLessThanOrEqual(390);
	});
});

it("keeps the project and site pickers narrow on a desktop screen, the name cut and whole in the title", async () => {
	await eachPickerPage(1280, "10.96.0.2", async (select, which) => {
		// 20rem: a short name's width, not most of the 1,280 px the name alone would take.
		expect((await select.boundingBox())?.width, which).toBeLessThanOrEqual(320);
		expect(await select.getAttribute("title")).toBe(LONGEST);
		expect(await select.evaluate((s) => getComputedStyle(s).textOverflow)).toBe("ellipsis");
	});
});

it("keeps a feedback title and a crawled path of one long word, and the issue page's Ignore menu, within 390 px", async () => {
	const word = "x".repeat(300);
	const { token } = await signUpOwner(stack.worker.url, "long-words", "10.96.0.3");
	const { raw_api_key: key } = await api<{ raw_api_key: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "app" } });
	const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
		fetch(`${stack.worker.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
	expect((await post("/functions/v1/submit-feedback", { type: "issue", title: word, description: "d" }, { authorization: `Bearer ${key}` })).status).toBe(200);
	const { group_hash } = (await (await post("/api/app-logs-ingest", { message: "boom" }, { "x-svc-key": key })).json()) as { group_hash: string };
	const site = await api<{ tracking_id: string }>(stack.worker.url, "/api/sites", { token, json: { domain: "words.example", name: "words" } });
	const ua = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
	const crawl = { tracking_id: site.tracking_id, url_host: "words.example", url_path: `/${word}`, ua, ip: "20.171.206.17", country: "US", status: 200 };
	expect((await post("/api/bot-crawl-ingest", crawl)).status).toBe(204);

	const page = await stack.browser.newPage({ viewport: { width: 390, height: 844 }, locale: "en-US" });
	await useSession(page, stack.worker.url, token);
	const withinScreen = () => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

	await page.goto(`${stack.worker.url}/feedback/app`);
	await page.getByRole("link", { name: word }).click();
	await page.getByRole("heading", { name: word }).waitFor();
	expect(await withinScreen(), "the feedback item").toBe(true);

	await page.goto(`${stack.worker.url}/crawlers/${site.tracking_id}`);
	await page.getByRole("cell", { name: new RegExp(word) }).first().waitFor();
	expect(await withinScreen(), "the crawlers page").toBe(true);
	// The pages table's view select is as wide as its longest option, not cut short by its label beside it.
	const pagesView = page.getByRole("combobox", { name: "Which pages" });
	const widths = await pagesView.evaluate((select: HTMLSelectElement) => {
		// A copy beside it, in the same font, free to be as wide as its options.
		const free = select.cloneNode(true) as HTMLSelectElement;
		free.style.cssText = "position: absolute; width: max-content; max-width: none; visibility: hidden";
		select.after(free);
		const needed = free.getBoundingClientRect().width;
		free.remove();
		return { shown: select.getBoundingClientRect().width, needed };
	});
	expect(widths.shown, "the Which pages select's width").toBeGreaterThanOrEqual(widths.needed - 0.5);

	await page.goto(`${stack.worker.url}/issues/app/${group_hash}`);
	await page.locator("summary", { hasText: "Ignore for…" }).click();
	const last = page.getByRole("button", { name: "Until it affects 100 more users" });
	await last.waitFor();
	const box = await last.boundingBox();
	expect((box?.x ?? 0) + (box?.width ?? 0), "the Ignore menu ends within the screen").toBeLessThanOrEqual(390);
	expect(await withinScreen(), "the issue page with its menu open").toBe(true);
	await page.close();
});
