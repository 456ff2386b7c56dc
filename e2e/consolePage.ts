/**
 * The owner console's pages as the walk-throughs check them: a real Worker serving the built
 * console (`npm run build --workspace console` first), one browser page, and the checks every page
 * gets, with screenshots under e2e/artifacts/; and the log event the walk-through's issue is made of.
 */
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Locator, Page } from "playwright-core";
import { beforeAll, expect } from "vitest";
import { cutText } from "../domain/text";
import { axeViolations } from "./axe";
import { api, launchChromium, signUpOwner, startWorker } from "./stack";

export const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), "artifacts");
export const DESKTOP = { width: 1280, height: 900 };

export interface ConsoleUnderTest {
	worker: Awaited<ReturnType<typeof startWorker>>;
	browser: Browser;
	page: Page;
	/** Uncaught errors in the console's pages: there should be none. */
	pageErrors: string[];
	/**
	 * The checks every page gets: no uncaught error, axe in both colour schemes and at 390 px, no
	 * sideways scrolling at 390 px, and screenshots (desktop, dark, 390 px).
	 */
	checkPage(name: string): Promise<void>;
	/** Waits for `locator` to show; if it never does, the error says what the page showed instead, at which URL. */
	waitShown(locator: Locator): Promise<void>;
	close(): Promise<void>;
}

/** A Worker, a browser and one desktop page of it, in a fixed locale so dates and figures read the same on every machine. */
export async function openConsole(): Promise<ConsoleUnderTest> {
	const [worker, browser] = await Promise.all([startWorker(), launchChromium(), mkdir(ARTIFACTS, { recursive: true })]);
	const page = await browser.newPage({ viewport: DESKTOP, locale: "en-US" });
	const pageErrors: string[] = [];
	page.on("pageerror", (error) => pageErrors.push(error.message));
	return {
		worker,
		browser,
		page,
		pageErrors,
		checkPage: (name) => checkPage(page, pageErrors, name),
		waitShown: (locator) => waitShown(page, pageErrors, locator),
		close: async () => {
			await browser.close();
			await worker.close();
		},
	};
}

/**
 * Clicks the button named `button`, then picks `value` in the select whose label starts with
 * `select`, in one task of the page: no render can come between the two, as with a fast user.
 */
export function clickThenSelect(page: Page, target: { button: string; select: string; value: string }): Promise<void> {
	return page.evaluate(({ button, select, value }) => {
		const clicked = Array.from(document.querySelectorAll("button")).find((b) => b.textContent === button);
		const picked = Array.from(document.querySelectorAll("label")).find((l) => l.textContent?.startsWith(select))?.querySelector("select");
		if (!clicked || !picked) throw new Error(`no button "${button}" or select "${select}"`);
		clicked.click();
		picked.value = value;
		picked.dispatchEvent(new Event("change", { bubbles: true }));
	}, target);
}

async function waitShown(page: Page, pageErrors: string[], locator: Locator) {
	try {
		await locator.waitFor();
	} catch (error) {
		const shown = (await page.locator("main").textContent().catch(() => null))?.replace(/\s+/g, " ").trim();
		throw new Error(`${(error as Error).message}\nthe page at ${page.url()} showed: ${shown ? cutText(shown, 2_000) : "nothing"}\npage errors: ${pageErrors.join("\n") || "none"}`);
	}
}

async function checkPage(page: Page, pageErrors: string[], name: string) {
	await page.waitForLoadState("networkidle");
	expect(pageErrors).toEqual([]);
	await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
	expect(await axeViolations(page), `${name}, light`).toEqual([]);

	await page.emulateMedia({ colorScheme: "dark" });
	await page.screenshot({ path: join(ARTIFACTS, `${name}-dark.png`), fullPage: true });
	expect(await axeViolations(page), `${name}, dark`).toEqual([]);
	await page.emulateMedia({ colorScheme: "light" });

	await page.setViewportSize({ width: 390, height: 844 });
	// Let charts and wrapped rows settle at the new width.
	await page.waitForTimeout(150);
	// What sticks out past the right edge, if anything (the widest first).
	const overflowing = await page.evaluate(() => {
		const width = document.documentElement.clientWidth;
		if (document.documentElement.scrollWidth <= width) return [];
		return Array.from(document.querySelectorAll("body *"))
			.map((element) => ({ element, right: element.getBoundingClientRect().right }))
			.filter(({ right }) => right > width + 0.5)
			.sort((a, b) => b.right - a.right)
			.slice(0, 3)
			.map(({ element, right }) => `${element.tagName.toLowerCase()}.${element.className} ends at ${Math.round(right)} px`);
	});
	await page.screenshot({ path: join(ARTIFACTS, `${name}-390.png`), fullPage: true });
	expect(overflowing, `${name} scrolls sideways at 390 px`).toEqual([]);
	expect(await axeViolations(page), `${name}, 390 px`).toEqual([]);
	await page.setViewportSize(DESKTOP);
}

/** Signs the page in with a session token, where the console keeps it, at the console's root. */
export async function useSession(page: Page, url: string, token: string): Promise<void> {
	await page.goto(`${url}/`);
	await page.evaluate((t) => localStorage.setItem("svc.session", t), token);
}

/**
 * Owners each signed in on a page of a browser context of their own, for a file's tests against its
 * Worker and browser (workerAndBrowser() in stack.ts); the screenshots' folder is made before the
 * first test.
 */
export function ownerPages(stack: { readonly worker: { url: string }; readonly browser: Browser }) {
	beforeAll(() => mkdir(ARTIFACTS, { recursive: true }));

	/**
	 * A new owner (`before` runs with their token first) signed in on a page of a context of its own,
	 * at the console's root; `pageErrors` collects the page's uncaught errors.
	 */
	async function signedIn(
		name: string,
		ip: string,
		{ locale = "en-US", timezoneId, before }: { locale?: string; timezoneId?: string; before?: (token: string) => Promise<unknown> } = {},
	) {
		const { email, token } = await signUpOwner(stack.worker.url, name, ip);
		await before?.(token);
		const context = await stack.browser.newContext({ viewport: DESKTOP, locale, timezoneId });
		const page = await context.newPage();
		const pageErrors: string[] = [];
		page.on("pageerror", (error) => pageErrors.push(error.message));
		await useSession(page, stack.worker.url, token);
		return { email, context, page, pageErrors };
	}

	/** A project key "shop" of the owner whose token this is; its raw key. */
	const addShopKey = async (token: string) => (await api<{ raw_api_key: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } })).raw_api_key;

	/** A new analytics site of the owner whose token this is; its tracking id. */
	const addSite = async (token: string, domain: string) => (await api<{ tracking_id: string }>(stack.worker.url, "/api/sites", { token, json: { domain } })).tracking_id;

	return { signedIn, addShopKey, addSite };
}

/** A log event of the checkout crash, as one user ran into it. */
export const checkoutCrash = (user: string, release = "1.4.2") => ({
	level: "error",
	exception: {
		type: "TypeError",
		value: "Cannot read properties of undefined (reading 'id')",
		stacktrace: {
			frames: [
				{ filename: "node_modules/react-dom/client.js", function: "commitRoot", lineno: 10, in_app: false },
				{
					filename: "src/checkout.ts",
					function: "submitOrder",
					lineno: 42,
					colno: 7,
					pre_context: ["export function submitOrder(cart) {"],
					context_line: "const id = cart.owner.id;",
					post_context: ["return api.post(\"/orders\", id);"],
					in_app: true,
					vars: { cart: { items: 2, owner: null } },
				},
			],
		},
	},
	environment: "production",
	release,
	tags: { route: "/checkout" },
	breadcrumbs: [{ category: "ui.click", message: "Pay button" }, { category: "fetch", timestamp: "2026-06-01T12:00:00Z", data: { method: "POST", url: "/api/order", status_code: 500 } }],
	request: { method: "POST", url: "https://shop.example/checkout" },
	user: { email: user },
	contexts: { cart: { items: 3, currency: "EUR" } },
	extra: { orderId: 7 },
});
