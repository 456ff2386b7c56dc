/**
 * An issue's page in what its walk-through (console-issues.test.ts) does not reach: an error the app did
 * not catch, marked Unhandled as Sentry marks it, on its event and on its issue (there and in the list); a browser west of UTC, where every time on the
 * page is in UTC, as its charts are; a link to an event it does not hold; an action taken while the service cannot be reached, or from the keyboard. Each starts from a new owner on a page of its own.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "./axe";
import { ARTIFACTS } from "./consolePage";
import { crash, issuePageOf } from "./issuePage";
import { api, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

beforeAll(() => mkdir(ARTIFACTS, { recursive: true }));

const issuePage = issuePageOf(stack);

/** A tag's value in the event's Tags card. */
const tag = (page: Page, name: string) => page.getByRole("region", { name: "Tags" }).locator("div", { has: page.getByRole("term").filter({ hasText: new RegExp(`^${name}$`) }) }).getByRole("definition");

describe("an error the app did not catch", () => {
	it("is marked Unhandled on its event and in the events list, as Sentry marks it; a handled one of the same issue is not", async () => {
		const { page, context, pageErrors } = await issuePage("unhandled", "10.97.0.1", [
			crash({ type: "generic", handled: true }),
			crash({ type: "onunhandledrejection", handled: false }),
		]);
		// The newest event, shown first, is the unhandled one.
		const heading = page.locator("#exception-heading");
		expect(await heading.getByText("Unhandled", { exact: true }).isVisible()).toBe(true);
		expect(await tag(page, "handled").textContent()).toBe("no");
		expect(await tag(page, "mechanism").textContent()).toBe("onunhandledrejection");
		const rows = page.getByRole("region", { name: "Newest events table" }).locator("tbody tr");
		expect(await rows.nth(0).getByText("Unhandled").count()).toBe(1);
		expect(await rows.nth(1).getByText("Unhandled").count()).toBe(0);
		expect(await axeViolations(page)).toEqual([]);
		await page.screenshot({ path: join(ARTIFACTS, "issue-unhandled.png"), fullPage: true });

		await rows.nth(1).getByRole("button").click();
		await expect.poll(() => tag(page, "handled").textContent()).toBe("yes");
		expect(await heading.getByText("Unhandled").count()).toBe(0);
		expect(await tag(page, "mechanism").textContent()).toBe("generic");
		expect(pageErrors).toEqual([]);
		await context.close();
	});

	it("marks its issue Unhandled in the issue list and the issue's header, for good; an issue with handled events only is not", async () => {
		const { page, context, pageErrors } = await issuePage("unhandled-list", "10.97.0.2", [
			{ exception: { type: "RangeError", value: "x is undefined", stacktrace: null, mechanism: { type: "generic", handled: true } } },
			crash({ type: "generic", handled: true }),
			crash({ type: "onerror", handled: false }),
			// The newest event was handled: the issue stays unhandled.
			crash({ type: "generic", handled: true }),
		]);
		const header = page.locator("p.row", { has: page.getByTestId("issue-status") });
		expect(await header.getByText("Unhandled", { exact: true }).isVisible()).toBe(true);
		expect(await page.locator("#exception-heading").getByText("Unhandled").count()).toBe(0);

		await page.getByRole("link", { name: "← Issues of shop" }).click();
		const row = (title: string) => page.locator("li.issue-row", { has: page.getByRole("link", { name: title }) });
		await row("TypeError: x is undefined").waitFor();
		expect(await row("TypeError: x is undefined").getByText("Unhandled", { exact: true }).isVisible()).toBe(true);
		expect(await row("RangeError: x is undefined").isVisible()).toBe(true);
		expect(await row("RangeError: x is undefined").getByText("Unhandled").count()).toBe(0);
		expect(await axeViolations(page)).toEqual([]);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("the event's tags", () => {
	it("include those Sentry derives from its contexts and request; the tags the app sent win", async () => {
		const { page, context, pageErrors } = await issuePage("derived-tags", "10.97.0.9", [
			crash(
				{ type: "onerror", handled: false },
				{
					contexts: { browser: { name: "Chrome", version: "153.0.0" }, os: { name: "Mac OS X", version: "15.1" }, device: { family: "Mac" } },
					request: { url: "https://shop.example/checkout?step=2", method: "GET" },
					tags: { "os.name": "macOS" },
				},
			),
		]);
		expect(await tag(page, "browser").textContent()).toBe("Chrome 153.0.0");
		expect(await tag(page, "browser.name").textContent()).toBe("Chrome");
		expect(await tag(page, "os").textContent()).toBe("Mac OS X 15.1");
		expect(await tag(page, "os.name").textContent()).toBe("macOS");
		expect(await tag(page, "device").textContent()).toBe("Mac");
		expect(await tag(page, "url").textContent()).toBe("https://shop.example/checkout");
		expect(await tag(page, "runtime").count()).toBe(0);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("stepping through its events", () => {
	it("goes newest to oldest by when they happened, as Sentry's Newer and Older do, whenever they came", async () => {
		const at = (hoursAgo: number) => new Date(Date.now() - hoursAgo * 3_600_000).toISOString();
		// Sent in this order; one held for an hour and one for two, as an app offline sends them.
		const { page, context, pageErrors } = await issuePage("steps", "10.97.0.9", [
			crash({ type: "generic", handled: true }, { tags: { step: "an hour ago" }, timestamp: at(1), message: "Paying again after an hour" }),
			crash({ type: "generic", handled: true }, { tags: { step: "now" } }),
			crash({ type: "generic", handled: true }, { tags: { step: "two hours ago" }, timestamp: at(2) }),
		]);
		// Each event's message in the list, else its exception's type and value, whole in its title.
		const messages = page.getByRole("region", { name: "Newest events table" }).locator("tbody td.event-message");
		expect(await messages.allTextContents()).toEqual(["TypeError: x is undefined", "Paying again after an hour", "TypeError: x is undefined"]);
		expect(await messages.nth(1).getAttribute("title")).toBe("Paying again after an hour");
		const steps = page.getByRole("navigation", { name: "Events of this issue" });
		const button = (name: string) => steps.getByRole("button", { name });
		expect(await tag(page, "step").textContent()).toBe("now");
		expect(await steps.getByText("1 of the 3 newest").isVisible()).toBe(true);
		expect([await button("Newest").isDisabled(), await button("‹ Newer").isDisabled()]).toEqual([true, true]);

		await button("Older ›").click();
		await expect.poll(() => tag(page, "step").textContent()).toBe("an hour ago");
		expect(await page.locator("#event-heading").textContent()).toContain("received");
		await button("Older ›").click();
		await expect.poll(() => tag(page, "step").textContent()).toBe("two hours ago");
		expect(await steps.getByText("3 of the 3 newest").isVisible()).toBe(true);
		expect([await button("Older ›").isDisabled(), await button("Oldest").isDisabled()]).toEqual([true, true]);
		await button("‹ Newer").click();
		await expect.poll(() => tag(page, "step").textContent()).toBe("an hour ago");
		await button("Newest").click();
		await expect.poll(() => tag(page, "step").textContent()).toBe("now");
		expect(await axeViolations(page)).toEqual([]);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("a link to an event the issue does not hold", () => {
	it("says the linked event was not found, and why it may not be, then shows the newest event", async () => {
		const { page, context, pageErrors, token, issue } = await issuePage("event-not-found", "10.97.0.6", [
			{ message: "Another failure", tags: { step: "other issue" } },
			crash({ type: "generic", handled: true }, { tags: { step: "older" } }),
			crash({ type: "generic", handled: true }, { tags: { step: "newest" } }),
		]);
		const path = new URL(page.url()).pathname;
		const { issues } = await api<{ issues: { group_hash: string; title: string }[] }>(stack.worker.url, "/api/issues?project_name=shop", { token });
		const other = issues.find((issue) => issue.title === "Another failure");
		const [otherEvent] = (await api<{ events: { id: string }[] }>(stack.worker.url, `/api/issues/${other?.group_hash}?project_name=shop`, { token })).events;
		const notice = page.getByTestId("event-not-found");
		const heading = page.locator("#event-heading");

		// One of its own events: shown, no notice.
		await page.getByRole("region", { name: "Newest events table" }).locator("tbody tr").nth(1).getByRole("button").click();
		await expect.poll(() => tag(page, "step").textContent()).toBe("older");
		expect(await notice.count()).toBe(0);

		// Another issue's event, and an id that is none at all: said so, the newest shown instead.
		for (const id of [otherEvent.id, "not-an-event"]) {
			await page.goto(`${stack.worker.url}${path}?event=${id}`);
			await notice.waitFor();
			expect(await notice.textContent()).toBe(
				`The linked event ${id} was not found among the events of this issue: it may have expired or belong to another issue. The newest event is shown instead.`,
			);
			expect(await tag(page, "step").textContent()).toBe("newest");
			expect(await heading.textContent()).toContain("(newest)");
		}
		// An event of its own that the search shown does not match.
		await page.goto(`${stack.worker.url}${path}?q=step:newest&event=${issue.events[1].id}`);
		await notice.waitFor();
		expect(await notice.textContent()).toBe(
			`The linked event ${issue.events[1].id} was not found among the events of this issue that match the search: it may not match, have expired or belong to another issue. The newest match is shown instead.`,
		);
		expect(await tag(page, "step").textContent()).toBe("newest");
		expect(await axeViolations(page)).toEqual([]);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("in a browser west of UTC", () => {
	const utc = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "medium", timeZone: "UTC" });
	const newYork = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "medium", timeZone: "America/New_York" });
	const inUtc = (iso: string) => `${utc.format(new Date(iso))} UTC`;

	it("shows first and last seen, the event's times and its breadcrumbs in UTC, said so, as the chart's UTC days", async () => {
		// Sent up to two hours before it arrived (an SDK that held it), with a breadcrumb at noon UTC;
		// sent today, UTC, whose day the 30-day chart's last bar is (in the first two minutes of a
		// UTC day, the test waits them out: it still came minutes after it was sent).
		const today = Math.floor(Date.now() / 86_400_000) * 86_400_000;
		if (Date.now() - today < 120_000) await new Promise((resolve) => setTimeout(resolve, today + 120_000 - Date.now()));
		const sent = new Date(Math.max(Date.now() - 2 * 3_600_000, today)).toISOString();
		const { page, context, pageErrors, issue } = await issuePage(
			"new-york-issue",
			"10.97.0.2",
			[crash({ type: "generic", handled: true }, { timestamp: sent, breadcrumbs: [{ timestamp: "2026-06-01T12:00:00Z", category: "ui.click", message: "Pay" }] })],
			"America/New_York",
		);
		const [event] = issue.events;
		expect(await page.getByText("Last seen", { exact: true }).locator("..").locator(".note").textContent()).toBe(inUtc(issue.last_seen));
		expect(await page.getByText("First seen", { exact: true }).locator("..").locator(".note").textContent()).toBe(inUtc(issue.first_seen));
		const eventHeading = page.locator("#event-heading");
		expect(await eventHeading.textContent()).toContain(inUtc(event.timestamp));
		expect(await eventHeading.textContent()).toContain(`received ${inUtc(event.received_at)}`);
		expect(await eventHeading.textContent()).not.toContain(newYork.format(new Date(event.timestamp)));
		expect(await page.getByRole("region", { name: "Newest events table" }).getByRole("button").textContent()).toBe(inUtc(event.timestamp));
		const crumbs = page.getByRole("region", { name: "Breadcrumbs table" });
		expect(await crumbs.getByRole("columnheader").first().textContent()).toBe("Time (UTC)");
		expect(await crumbs.getByRole("cell").first().textContent()).toBe("12:00:00 PM");

		// The 30-day chart's last bar, today's UTC day, holds the event: the date last seen shows.
		const overTime = page.getByRole("region", { name: /^Events, last/ });
		await overTime.getByRole("button", { name: "30 days" }).click();
		await expect.poll(() => overTime.getByRole("img").getAttribute("aria-label")).toBe("Events per UTC day over the last 30 days: 1 event in all");
		expect(await overTime.getByText("every time on this page is in UTC").isVisible()).toBe(true);
		const plot = await overTime.locator(".u-over").boundingBox();
		await page.mouse.move((plot?.x ?? 0) + (plot?.width ?? 0) - 2, (plot?.y ?? 0) + (plot?.height ?? 0) / 2);
		const legend = overTime.locator(".u-legend .u-series");
		await expect.poll(() => legend.nth(1).textContent()).toMatch(/Events\s*1/);
		expect(await legend.nth(0).textContent()).toContain("Time (UTC)");
		expect(await legend.nth(0).textContent()).toContain(issue.last_seen.slice(0, 10));
		expect(pageErrors).toEqual([]);
		await page.screenshot({ path: join(ARTIFACTS, "issue-new-york.png"), fullPage: true });
		await context.close();
	});
});

describe("the newest events on a phone", () => {
	it("show each event's message on two lines at most, cut there and whole in its title, in a column wide enough to read; the table scrolls sideways", async () => {
		const long = "Payment provider answered 502 Bad Gateway while confirming the order, retrying with the backup provider in 30 seconds";
		const { page, context, pageErrors } = await issuePage("phone-messages", "10.97.0.7", [
			crash({ type: "generic", handled: true }, { message: long }),
			crash({ type: "generic", handled: true }, { message: "Short" }),
		]);
		const table = page.getByRole("region", { name: "Newest events table" });
		const cells = table.locator("tbody td.event-message");
		// On a desktop the message has half the table.
		await expect.poll(() => cells.count()).toBe(2);
		const [desktopCell, desktopTable] = await Promise.all([cells.nth(1).boundingBox(), table.boundingBox()]);
		expect(desktopCell?.width).toBeGreaterThanOrEqual((desktopTable?.width ?? 0) * 0.45);
		await page.setViewportSize({ width: 390, height: 844 });
		await expect.poll(() => cells.allTextContents()).toEqual(["Short", long]);
		const measured = await cells.evaluateAll((tds) =>
			tds.map((td) => {
				const text = td.firstElementChild as HTMLElement;
				const lines = Math.round(text.clientHeight / Number.parseFloat(getComputedStyle(text).lineHeight));
				return { lines, cut: text.scrollHeight > text.clientHeight, width: td.getBoundingClientRect().width };
			}),
		);
		expect(measured.map(({ lines, cut }) => ({ lines, cut }))).toEqual([
			{ lines: 1, cut: false },
			{ lines: 2, cut: true },
		]);
		// A few words' worth of room, in view beside the time without scrolling.
		for (const cell of measured) expect(cell.width, JSON.stringify(cell)).toBeGreaterThanOrEqual(150);
		const [message, box] = await Promise.all([cells.nth(1).boundingBox(), table.boundingBox()]);
		expect((message?.x ?? 0) + (message?.width ?? 0)).toBeLessThanOrEqual((box?.x ?? 0) + (box?.width ?? 0));
		expect(await cells.nth(1).getAttribute("title")).toBe(long);
		// The page itself does not scroll sideways: the table does, inside its box.
		expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
		expect(await axeViolations(page)).toEqual([]);
		expect(pageErrors).toEqual([]);
		await page.screenshot({ path: join(ARTIFACTS, "issue-event-messages-390.png"), fullPage: true });
		await context.close();
	});
});

describe("breadcrumbs on a phone", () => {
	it("keep each word of a message whole: the table scrolls sideways rather than squeeze the message column", async () => {
		const breadcrumbs = [
			{ timestamp: "2026-06-01T12:00:00Z", category: "navigation", data: { from: "/cart", to: "/checkout" } },
			{ timestamp: "2026-06-01T12:00:05Z", category: "console", level: "warning", message: "Retrying payment with another provider" },
		];
		const { page, context, pageErrors } = await issuePage("phone-crumbs", "10.97.0.5", [crash({ type: "generic", handled: true }, { breadcrumbs })]);
		await page.setViewportSize({ width: 390, height: 844 });
		const cells = page.getByRole("region", { name: "Breadcrumbs table" }).locator("td:nth-child(3)");
		await expect.poll(() => cells.count()).toBe(2);
		// Each message cell against the widest word in it, measured in the cell's own font.
		const fits = await cells.evaluateAll((tds) =>
			tds.map((td) => {
				const style = getComputedStyle(td);
				const context = document.createElement("canvas").getContext("2d") as CanvasRenderingContext2D;
				context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
				const widest = Math.max(...(td.textContent ?? "").split(/\s+/).map((word) => context.measureText(word).width));
				const room = td.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
				return { text: td.textContent, widest: Math.ceil(widest), room };
			}),
		);
		for (const cell of fits) expect(cell.room, JSON.stringify(cell)).toBeGreaterThanOrEqual(cell.widest);
		expect(pageErrors).toEqual([]);
		await page.screenshot({ path: join(ARTIFACTS, "issue-breadcrumbs-390.png"), fullPage: true });
		await context.close();
	});
});

describe("an action while the service cannot be reached", () => {
	it("says so, and that it is the owner's to try again (a read retries by itself; a click does not)", async () => {
		const { page, context, pageErrors } = await issuePage("offline-resolve", "10.97.0.3", [crash({ type: "generic", handled: true })]);
		await page.route("**/api/issues/**", (route) => (route.request().method() === "PATCH" ? route.abort("internetdisconnected") : route.continue()));
		await page.getByRole("button", { name: "Resolve" }).click();
		const alert = page.getByRole("alert");
		await alert.waitFor();
		expect(await alert.textContent()).toBe("The service could not be reached. Check your connection; then try again.");
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("a status change from the keyboard", () => {
	it("leaves focus on the first action left, not on the page: the pressed button went with the status it set", async () => {
		const { page, context, pageErrors } = await issuePage("keyboard-resolve", "10.97.0.4", [crash({ type: "generic", handled: true })]);
		const focused = () => page.evaluate(() => (document.activeElement instanceof HTMLButtonElement ? document.activeElement.textContent : document.activeElement?.tagName));
		await page.getByRole("button", { name: "Resolve" }).focus();
		await page.keyboard.press("Enter");
		await page.getByRole("button", { name: "Reopen" }).waitFor();
		await expect.poll(focused).toBe("Ignore");
		// And on from there: Enter on Ignore, then on Reopen.
		await page.keyboard.press("Enter");
		await expect.poll(focused).toBe("Resolve");
		expect(await page.getByRole("button", { name: "Ignore" }).count()).toBe(0);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});
