// The pairing page's tables on a 390 px phone and a 1280 px desktop, in a real
// browser: with a paired device and the scan of a workspace whose packages have
// long paths and many findings, no table scrolls sideways, and the buttons (Revoke,
// Remove, Update logger) and each finding's action are on screen within the page.
import fs from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../../e2e/browser.js";
import { newDevice, startTestServer, tempDir, type TestServer } from "./helpers.js";

let browser: Browser;
let t: TestServer;

beforeAll(async () => {
	// A registry that answers nothing: the scan says so (an info finding) at once.
	t = await startTestServer({ now: Date.now, env: { SVC_NPM_REGISTRY: "http://127.0.0.1:9/" } });
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
	await t?.close();
});

function workspace() {
	const root = tempDir("svc-layout-");
	const dir = "services/payments-reconciliation-worker";
	const files: Record<string, string> = {
		[`${dir}/package.json`]: JSON.stringify({ name: "@shop/payments-reconciliation-worker", dependencies: { "@svcapp/logger": "^1.0.0" } }),
		[`${dir}/.env.production.local`]: "SVC_KEY=svc_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG\n",
		[`${dir}/src/bootstrap/instrumentation-and-telemetry.ts`]: 'import * as logger from "@svcapp/logger";\nlogger.init({ key: process.env.SVC_KEY, endpoint: "svc.internal.example.com/without/a/scheme/at/all" });\n',
		"apps/storefront-with-a-long-name/package.json": JSON.stringify({ name: "storefront" }),
	};
	for (const [rel, text] of Object.entries(files)) {
		fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
		fs.writeFileSync(path.join(root, rel), text);
	}
	return root;
}

describe("pairing page layout in chromium", () => {
	it.each([390, 1280])("at %i px the tables do not scroll sideways and their buttons and actions are in sight", async (width) => {
		const context = await browser.newContext({ viewport: { width, height: 900 } });
		const phone = newDevice(path.join(tempDir(), "devices"), "Ana's phone with a rather long name");
		try {
			const page = await context.newPage();
			await page.goto(`${t.base}/`);
			await page.fill("#token", t.token);
			await page.click("#login-form button");
			await expect.poll(() => page.locator("#qr").getAttribute("data-payload")).toBeTruthy();
			await phone.pair(JSON.parse((await page.locator("#qr").getAttribute("data-payload"))!));
			await page.evaluate(() => window.dispatchEvent(new Event("focus")));
			await page.locator(`tr[data-device-id="${phone.deviceId}"]`).waitFor();

			await page.fill("#workspace-path", workspace());
			await page.click("#workspace-form button");
			await page.locator("#workspaces tbody tr button.scan").first().click();
			const row = page.locator('tr[data-package-dir="services/payments-reconciliation-worker"]');
			await row.locator('li[data-code="endpoint_invalid"]').waitFor();

			// The registry's answer is the same for every package: said once above the table, in no row.
			expect(await page.locator("#health-limits li.registry").textContent()).toMatch(/^The latest version of @svcapp\/logger is unknown: .* then scan again\.$/);
			expect(await page.locator('li[data-code="registry_unreachable"]').count()).toBe(0);

			const sideways = await page.evaluate(() => Array.from(document.querySelectorAll(".table-scroll"), (e) => e.scrollWidth - e.clientWidth));
			expect(sideways).toEqual([0, 0, 0]);
			const right = await page.evaluate(() => document.querySelector("main")!.getBoundingClientRect().right);
			for (const selector of [
				`tr[data-device-id="${phone.deviceId}"] button.revoke`,
				"#workspaces button.remove",
				'tr[data-package-dir="services/payments-reconciliation-worker"] button.update',
				'tr[data-package-dir="services/payments-reconciliation-worker"] li[data-code="endpoint_invalid"] .action',
			]) {
				const box = await page.locator(selector).first().boundingBox();
				expect(box!.x + box!.width, selector).toBeLessThanOrEqual(Math.min(width, right));
			}
		} finally {
			await phone.stop();
			await context.close();
		}
	});
});
