/**
 * The dashboards' periods as Plausible offers them, in a real browser: each reaches the statistics
 * as its whole UTC days (the events collected now fall in or out of it), the arrows step it one
 * period back and forward, a letter picks one unless the owner is typing, and the URL keeps it.
 * The page's clock is moved to put today's events in yesterday or last month: the Worker's own
 * clock stays the real one, so the events are where they were collected.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { type ConsoleUnderTest, openConsole, useSession } from "./consolePage";
import { api, DESKTOP_CHROME, signUpOwner } from "./stack";

let ui: ConsoleUnderTest;
let page: Page;
let worker: ConsoleUnderTest["worker"];
let checkPage: ConsoleUnderTest["checkPage"];
let site = "";
/** The range of each request the page made for the site's statistics, as `from to` (ISO times). */
const asked: string[] = [];

const DAY = 86_400_000;
const now = Date.now();
const today = Math.floor(now / DAY) * DAY;
const date = new Date(now);
/** The first UTC midnight of the month `shift` months from this one. */
const month = (shift: number) => Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + shift, 1);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const visitors = () => page.getByTestId("figure-Visitors").locator(".value");
const periodSelect = () => page.getByRole("combobox", { name: /^Period/ });

/** Waits until the page has asked for the statistics of `from` (inclusive) to `to` (exclusive), both UTC midnights, and shows `count` visitors. */
async function showsRange(from: number, to: number, count: string) {
	const range = `${new Date(from).toISOString()} ${new Date(to).toISOString()}`;
	await expect.poll(() => asked.includes(range), { message: `asked for ${range}; asked: ${asked.slice(-3).join(", ")}` }).toBe(true);
	await expect.poll(() => visitors().textContent()).toBe(count);
}

// A new owner with a site that two visitors saw a moment ago: three page views today.
beforeAll(async () => {
	ui = await openConsole();
	({ page, worker, checkPage } = ui);
	const { token } = await signUpOwner(worker.url, "periods", "10.97.7.1");
	site = (await api<{ tracking_id: string }>(worker.url, "/api/sites", { token, json: { domain: "shop.example", name: "Shop" } })).tracking_id;
	for (const [visitor, path] of [["a", "/"], ["a", "/pricing"], ["b", "/"]]) {
		const res = await fetch(`${worker.url}/api/collect`, {
			method: "POST",
			headers: { "content-type": "text/plain", "user-agent": DESKTOP_CHROME },
			body: JSON.stringify({ tracking_id: site, v: "2", url_host: "shop.example", visitor_id: `visitor-${visitor}`, url_path: path }),
		});
		expect(res.status).toBe(204);
	}
	page.on("request", (request) => {
		const url = new URL(request.url());
		if (url.pathname === `/api/sites/${site}/stats`) asked.push(`${url.searchParams.get("from")} ${url.searchParams.get("to")}`);
	});
	await useSession(page, worker.url, token);
});

afterAll(async () => {
	await ui?.close();
});

describe("owner console: the dashboards' periods", () => {
	it("asks for each period's whole UTC days, a month or a year to date and the last 12 months with their period before", async () => {
		await page.goto(`${worker.url}/analytics/${site}?period=month`);
		await showsRange(month(0), today + DAY, "2");
		await page.goto(`${worker.url}/analytics/${site}?period=year`);
		await showsRange(Date.UTC(date.getUTCFullYear(), 0, 1), today + DAY, "2");
		// The month under way and the 11 before it, up to 366 days, and the as many days before
		// them: the statistics answer both.
		await page.goto(`${worker.url}/analytics/${site}?period=12mo`);
		await showsRange(month(-11), today + DAY, "2");
		expect(await page.getByTestId("figure-Visitors").getByText("none the period before").isVisible()).toBe(true);
		expect(await page.getByRole("alert").count()).toBe(0);
		await checkPage("dashboard-12-months");
		await page.goto(`${worker.url}/analytics/${site}?period=yesterday`);
		await showsRange(today - DAY, today, "0");
		await page.goto(`${worker.url}/analytics/${site}?period=last_month`);
		await showsRange(month(-1), month(0), "0");
	});

	it("counts today's visitors in yesterday tomorrow, and in last month next month", async () => {
		await page.clock.setFixedTime(now + DAY);
		await page.goto(`${worker.url}/analytics/${site}?period=yesterday`);
		await showsRange(today, today + DAY, "2");
		await page.clock.setFixedTime(month(1) + 3_600_000);
		await page.goto(`${worker.url}/analytics/${site}?period=last_month`);
		await showsRange(month(0), month(1), "2");
		await page.reload();
		await expect.poll(() => periodSelect().inputValue()).toBe("last_month");
	});

	it("steps a month back and forward to the month to date, and no further", async () => {
		await page.clock.setFixedTime(now);
		await page.goto(`${worker.url}/analytics/${site}?period=month`);
		await showsRange(month(0), today + DAY, "2");
		const next = page.getByRole("button", { name: /^Next period/ });
		expect(await next.isDisabled()).toBe(true);
		// The month before the month to date is the whole last month, and the one before it custom dates.
		await page.getByRole("button", { name: "Previous period: Last month" }).click();
		await showsRange(month(-1), month(0), "0");
		expect(new URL(page.url()).searchParams.get("period")).toBe("last_month");
		await page.getByRole("button", { name: /^Previous period/ }).click();
		await showsRange(month(-2), month(-1), "0");
		expect(new URL(page.url()).search).toBe(`?period=custom&from=${day(month(-2))}&to=${day(month(-1) - DAY)}`);
		await next.click();
		await next.click();
		await showsRange(month(0), today + DAY, "2");
		await expect.poll(() => periodSelect().inputValue()).toBe("month");
		expect(await next.isDisabled()).toBe(true);
		// Today steps back to yesterday, the last 7 days to the 7 before.
		await periodSelect().selectOption("today");
		await page.getByRole("button", { name: "Previous period: Yesterday" }).click();
		await showsRange(today - DAY, today, "0");
		await periodSelect().selectOption("7d");
		await page.getByRole("button", { name: /^Previous period/ }).click();
		await showsRange(today - 13 * DAY, today - 6 * DAY, "0");
		expect(new URL(page.url()).search).toBe(`?period=custom&from=${day(today - 13 * DAY)}&to=${day(today - 7 * DAY)}`);
	});

	it("takes custom dates typed digit by digit, asking for no period while a year is half typed", async () => {
		await page.goto(`${worker.url}/analytics/${site}?period=custom&from=${day(today - DAY)}&to=${day(today)}`);
		await showsRange(today - DAY, today + DAY, "2");
		const asking = asked.length;
		// The field's first part is the month (en-US); each part moves on to the next once typed whole.
		const typed = new Date(today - 40 * DAY);
		const parts = [typed.getUTCMonth() + 1, typed.getUTCDate()].map((n) => String(n).padStart(2, "0"));
		await page.getByLabel("From").focus();
		await page.keyboard.type(`${parts.join("")}${typed.getUTCFullYear()}`);
		await expect.poll(() => new URL(page.url()).searchParams.get("from")).toBe(day(typed.getTime()));
		await showsRange(typed.getTime(), today + DAY, "2");
		// The years 2, 20 and 202 on the way to 2026 are no period to count.
		expect(asked.slice(asking).filter((range) => range.startsWith("0"))).toEqual([]);
		expect(await page.getByRole("alert").count()).toBe(0);
	});

	it("says beside the dates that a custom period covers at most 400 days, showing the last 7 days meanwhile", async () => {
		// 401 days, today the last.
		await page.goto(`${worker.url}/analytics/${site}?period=custom&from=${day(today - 400 * DAY)}&to=${day(today)}`);
		await showsRange(today - 6 * DAY, today + DAY, "2");
		expect(await page.getByRole("alert").allTextContents()).toEqual(["A period covers at most 400 days: pick a later From or an earlier To; showing the last 7 days"]);
		// The same row as the dates, not a refusal of the page's address.
		const alertRow = await page.getByRole("alert").evaluate((alert) => alert.parentElement?.textContent);
		expect(alertRow).toContain("From");
		expect(await page.getByText("This page's address").count()).toBe(0);
		// A day later From: 400 days, which the statistics answer.
		await page.getByLabel("From").fill(day(today - 399 * DAY));
		await showsRange(today - 399 * DAY, today + DAY, "2");
		expect(await page.getByRole("alert").count()).toBe(0);
	});

	it("picks a period by its letter and steps it by the arrow keys, but not while a date is being typed", async () => {
		await page.goto(`${worker.url}/analytics/${site}?period=custom&from=${day(today - DAY)}&to=${day(today)}`);
		await showsRange(today - DAY, today + DAY, "2");
		const from = page.getByLabel("From");
		await from.focus();
		await page.keyboard.press("y");
		await page.keyboard.press("ArrowLeft");
		expect(new URL(page.url()).search).toBe(`?period=custom&from=${day(today - DAY)}&to=${day(today)}`);
		await from.blur();
		await page.keyboard.press("l");
		await showsRange(month(-11), today + DAY, "2");
		await expect.poll(() => periodSelect().inputValue()).toBe("12mo");
		// The 12 whole months before.
		await page.keyboard.press("ArrowLeft");
		await showsRange(month(-23), month(-11), "0");
		await page.keyboard.press("ArrowRight");
		await showsRange(month(-11), today + DAY, "2");
		// Two presses in a row step twice, though the page has not drawn the first step yet.
		await page.keyboard.press("ArrowLeft");
		await page.keyboard.press("ArrowLeft");
		await expect.poll(() => new URL(page.url()).search).toBe(`?period=custom&from=${day(month(-35))}&to=${day(month(-23) - DAY)}`);
		await page.keyboard.press("ArrowRight");
		await page.keyboard.press("ArrowRight");
		await showsRange(month(-11), today + DAY, "2");
		// Survives a reload, and a link to the site's crawlers keeps it.
		await page.reload();
		await showsRange(month(-11), today + DAY, "2");
		await expect.poll(() => periodSelect().inputValue()).toBe("12mo");
		await page.getByRole("link", { name: "AI crawlers of this site" }).click();
		await expect.poll(() => new URL(page.url()).searchParams.get("period")).toBe("12mo");
		await expect.poll(() => periodSelect().inputValue()).toBe("12mo");
	});
});
