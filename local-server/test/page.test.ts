// The pairing page in a real browser (headless Chromium driven by
// playwright-core, found by e2e/browser.ts): sign-in with the owner token,
// QR code, refresh rule, new code button, devices list (10 s, focus,
// visibility), revoke, LAN toggle, and that signing out leaves no code behind.
// The page's clock is Playwright's fake clock, so the 10 s and 110 s timers
// are jumped over, not waited for. Then the Workspaces section: add and
// remove, the setup-health table with each finding's action, scan again,
// and a real logger update (npm against a local registry) with its outcome.
import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../../e2e/browser.js";
import { startServer } from "../src/index.js";
import { bootstrap, exchange, newDevice, openWs, ownerCall, startTestServer, tempDir, type TestServer, wsTicket } from "./helpers.js";
import { startLocalRegistry } from "./localRegistry.js";

let browser: Browser;
let t: TestServer;

beforeAll(async () => {
	t = await startTestServer({ now: Date.now });
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
	await t?.close();
});

async function currentPayload(page: Page) {
	const text = await page.locator("#qr").getAttribute("data-payload");
	return JSON.parse(text!);
}

describe("pairing page in chromium", () => {
	it("signs in, shows the QR code, lists, refreshes and revokes devices, toggles LAN", async () => {
		const context = await browser.newContext();
		const page = await context.newPage();
		const pageErrors: string[] = [];
		page.on("pageerror", (e) => pageErrors.push(e.message));
		page.on("dialog", (d) => void d.accept());
		await page.clock.install();
		await page.goto(`${t.base}/`);

		// The owner token is asked for; a wrong one is refused.
		await page.locator("#login").waitFor({ state: "visible" });
		await page.fill("#token", "wrong-token");
		await page.click("#login-form button");
		await expect.poll(() => page.textContent("#login-error")).toMatch(/owner session is not valid/);
		expect(await page.locator("#app").isHidden()).toBe(true);

		await page.fill("#token", t.token);
		await page.click("#login-form button");
		await page.locator("#app").waitFor({ state: "visible" });
		expect(page.url()).toBe(`${t.base}/`); // never in the URL
		expect(await page.evaluate(() => sessionStorage.getItem("svc-local-owner-token"))).toBe(t.token);

		// The QR image is rendered and carries a fresh v3 payload.
		await expect.poll(() => page.locator("#qr").getAttribute("src")).toMatch(/^data:image\/svg\+xml;base64,/);
		expect(await page.locator("#qr").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
		const first = await currentPayload(page);
		expect(first).toMatchObject({ v: 3, name: "Test Desk", baseUrls: [t.base], baseUrl: t.base });
		expect(await page.textContent("#devices-empty")).toMatch(/No paired devices/);
		expect(await page.textContent("#connect-command")).toContain(first.pairToken);

		// A device pairs with the code shown on the page; the 10 s refresh shows it.
		const dir = path.join(tempDir(), "devices");
		const laptop = newDevice(dir, "Laptop <img src=x onerror=alert(1)>");
		await laptop.pair(first);
		await laptop.connect();
		await page.clock.fastForward(10_000);
		const laptopRow = page.locator(`tr[data-device-id="${laptop.deviceId}"]`);
		await laptopRow.waitFor();
		// Text, not HTML; the ID below the name tells devices of one name apart, and is what svc-local revoke takes.
		expect(await laptopRow.locator("td").nth(0).textContent()).toBe(`Laptop <img src=x onerror=alert(1)>ID ${laptop.deviceId}`);
		expect(await laptopRow.locator("td .device-id").textContent()).toBe(`ID ${laptop.deviceId}`);
		expect(await laptopRow.locator("td").nth(1).textContent()).toBe("Desktop");
		expect(await laptopRow.locator("td").nth(2).textContent()).toBe("127.0.0.1");
		expect(await laptopRow.locator("td.state").textContent()).toBe("Online");

		// The code it used works once: the page shows a new one, so the next to scan is not refused.
		await expect.poll(async () => (await currentPayload(page)).pairToken).not.toBe(first.pairToken);
		const replaced = await currentPayload(page);

		// "New code" replaces the code at once.
		await page.click("#new-code");
		await expect.poll(async () => (await currentPayload(page)).pairToken).not.toBe(replaced.pairToken);
		const second = await currentPayload(page);

		// The code refreshes by itself 10 s before it expires (120 - 10 = 110 s).
		await page.clock.fastForward(100_000);
		expect((await currentPayload(page)).pairToken).toBe(second.pairToken);
		await page.clock.fastForward(11_000);
		await expect.poll(async () => (await currentPayload(page)).pairToken).not.toBe(second.pairToken);
		const third = await currentPayload(page);

		// Focus and visibility refresh the list too.
		const phone = newDevice(dir, "Phone");
		await phone.pair(third);
		await phone.connect();
		await page.evaluate(() => window.dispatchEvent(new Event("focus")));
		await page.locator(`tr[data-device-id="${phone.deviceId}"]`).waitFor();
		await phone.stop();
		await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
		await expect.poll(() => page.locator(`tr[data-device-id="${phone.deviceId}"] td.state`).textContent()).toBe("Offline");

		// Revoke: the row goes and the device's live connection ends.
		const revoked = new Promise((resolve) => laptop.once("revoked", resolve));
		await laptopRow.locator("button.revoke").click();
		await revoked;
		await laptopRow.waitFor({ state: "detached" });
		expect(t.server.pairing.isOnline(laptop.deviceId!)).toBe(false);
		expect(await page.locator("tbody tr").count()).toBe(1);

		// LAN toggle: the listener moves to 0.0.0.0 and back.
		expect(await page.isChecked("#lan")).toBe(false);
		await page.click("#lan");
		await expect.poll(() => page.textContent("#lan-note")).toMatch(/Listening on all interfaces \(0\.0\.0\.0:/);
		expect(t.server.host).toBe("0.0.0.0");
		expect(await page.isChecked("#lan")).toBe(true);
		await page.click("#lan");
		await expect.poll(() => page.textContent("#lan-note")).toMatch(/this computer only \(127\.0\.0\.1:/);
		expect(t.server.host).toBe("127.0.0.1");

		// A reload keeps the tab signed in; signing out forgets the token.
		await page.reload();
		await page.locator("#app").waitFor({ state: "visible" });
		await page.click("#sign-out");
		await page.locator("#login").waitFor({ state: "visible" });
		expect(await page.evaluate(() => sessionStorage.getItem("svc-local-owner-token"))).toBeNull();

		expect(pageErrors).toEqual([]);
		await context.close();
	});

	it("signing out leaves no pairing code and no device on the page", async () => {
		const context = await browser.newContext();
		const page = await context.newPage();
		await page.goto(`${t.base}/`);
		await page.fill("#token", t.token);
		await page.click("#login-form button");
		await page.locator("#app").waitFor({ state: "visible" });
		await expect.poll(() => page.locator("#qr").getAttribute("data-payload")).toBeTruthy();
		const code = await currentPayload(page);
		const phone = newDevice(path.join(tempDir(), "devices"), "Signed-out phone");
		await phone.pair(code);
		await page.click("#new-code");
		await expect.poll(async () => (await currentPayload(page)).pairToken).not.toBe(code.pairToken);
		const unused = await currentPayload(page);
		await page.evaluate(() => window.dispatchEvent(new Event("focus")));
		await page.locator(`tr[data-device-id="${phone.deviceId}"]`).waitFor();

		await page.click("#sign-out");
		await page.locator("#login").waitFor({ state: "visible" });
		// The code shown last is still valid for up to 120 s: a hidden copy of it (the
		// connect command, the image's payload) would let whoever uses the tab next pair.
		const html = await page.content();
		expect(html).not.toContain(unused.pairToken);
		expect(html).not.toContain("Signed-out phone");
		expect(await page.locator("#devices tbody tr").count()).toBe(0);
		await phone.stop();
		await context.close();
	});

	it("shows a device connected but yet to say hello as Connecting, not Online", async () => {
		const context = await browser.newContext();
		const page = await context.newPage();
		try {
			await page.clock.install();
			await page.goto(`${t.base}/`);
			await page.fill("#token", t.token);
			await page.click("#login-form button");
			await expect.poll(() => page.locator("#qr").getAttribute("data-payload")).toBeTruthy();
			const code = await bootstrap(t);
			const { credential } = (await exchange(t, { secret: code.secret, deviceId: "silent" })).json;
			const { ws } = await openWs(t.server.port, `?ticket=${(await wsTicket(t, credential)).json.ticket}`);
			await page.clock.fastForward(10_000);
			const state = page.locator('tr[data-device-id="silent"] td.state');
			await expect.poll(() => state.textContent()).toBe("Connecting");
			ws!.send(JSON.stringify({ type: "hello", data: { name: "Silent" } }));
			await page.clock.fastForward(10_000);
			await expect.poll(() => state.textContent()).toBe("Online");
			ws!.terminate();
			await ownerCall(t, "DELETE", "/api/pairing/devices/silent");
		} finally {
			await context.close();
		}
	});

	it("with the server down hides the code and says so plainly, and shows a new code once it is back", async () => {
		// A server of its own, stopped and started again on the same port (its devices know no other).
		const own = await startTestServer({ now: Date.now });
		const context = await browser.newContext();
		const page = await context.newPage();
		try {
			await page.clock.install();
			await page.goto(`${own.base}/`);
			await page.fill("#token", own.token);
			await page.click("#login-form button");
			await expect.poll(() => page.locator("#qr").getAttribute("data-payload")).toBeTruthy();
			const first = await currentPayload(page);

			const port = own.server.port;
			await own.close();
			await page.click("#new-code");
			await expect.poll(() => page.textContent("#server-down")).toBe(
				`svc-local is not reachable at ${own.base}: it has stopped, or this computer cannot reach it. This page tries again every few seconds and carries on once it answers.`,
			);
			// No dead code on screen, nor the browser's own words.
			expect(await page.locator("#qr").isHidden()).toBe(true);
			expect(await page.locator("#qr").getAttribute("src")).toBeNull();
			expect(await page.textContent("#connect-command")).toBe("");
			await page.clock.fastForward(10_000);
			expect(await page.textContent("body")).not.toContain("Failed to fetch");

			const again = await startServer({ stateDir: own.home, port, exactPort: true, env: {}, log: () => {}, overlayHostname: async () => null });
			try {
				await page.clock.fastForward(5_000);
				await expect.poll(() => page.textContent("#server-down")).toBe("");
				await expect.poll(() => page.locator("#qr").isVisible()).toBe(true);
				expect((await currentPayload(page)).pairToken).not.toBe(first.pairToken);
			} finally {
				await again.close();
			}
		} finally {
			await context.close();
			await own.close();
		}
	});

	it("fits a 390 px wide phone screen: the token and folder fields are no wider than the page, nor are the tables", async () => {
		const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
		const page = await context.newPage();
		const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
		await page.goto(`${t.base}/`);
		await page.locator("#login").waitFor({ state: "visible" });
		expect(await overflow()).toBe(0);
		await page.fill("#token", t.token);
		await page.click("#login-form button");
		await page.locator("#app").waitFor({ state: "visible" });
		await page.locator("#workspace-path").waitFor({ state: "visible" });
		const field = await page.locator("#workspace-path").boundingBox();
		expect(field!.x + field!.width).toBeLessThanOrEqual(390);

		// A paired device and a workspace: the page does not scroll sideways (page-layout.test.ts: nor the tables).
		await expect.poll(() => page.locator("#qr").getAttribute("data-payload")).toBeTruthy();
		const phone = newDevice(path.join(tempDir(), "devices"), "Phone on a narrow screen");
		await phone.pair(await currentPayload(page));
		await page.evaluate(() => window.dispatchEvent(new Event("focus")));
		await page.locator(`tr[data-device-id="${phone.deviceId}"]`).waitFor();
		await page.fill("#workspace-path", tempDir("svc-page-a-folder-with-a-long-name-"));
		await page.click("#workspace-form button");
		await page.locator("#workspaces tbody tr").first().waitFor();
		expect(await overflow()).toBe(0);
		const revoke = page.locator(`tr[data-device-id="${phone.deviceId}"] button.revoke`);
		await revoke.scrollIntoViewIfNeeded();
		const box = await revoke.boundingBox();
		expect(box!.x + box!.width).toBeLessThanOrEqual(390);
		await phone.stop();
		await context.close();
	});
});

describe("Workspaces section in chromium", () => {
	it("adds and removes workspaces, shows the scan with what to do, scans again, and updates the logger", async () => {
		const registry = await startLocalRegistry();
		registry.publish("1.0.0");
		const npmCache = process.env.npm_config_cache;
		process.env.npm_config_cache = path.join(tempDir("svc-page-npm-"), "cache"); // inherited by the npm the server runs
		const desk = await startTestServer({ now: Date.now, env: { SVC_NPM_REGISTRY: registry.url } });
		const context = await browser.newContext();
		try {
			const root = tempDir("svc-page-ws-");
			const key = "svc_page0123456789abcdefghijklmnopqrstuvwxyzABC";
			const files: Record<string, string> = {
				"app/package.json": JSON.stringify({ name: "app", version: "1.0.0", private: true, dependencies: { "@svcapp/logger": "^1.0.0" } }),
				"app/.env": `SVC_KEY=${key}\n`,
				"app/src/index.js": 'import * as logger from "@svcapp/logger";\nlogger.init({ key: process.env.SVC_KEY, endpoint: "https://svc.example.com" });\n',
				"lib/package.json": JSON.stringify({ name: "<img src=x onerror=alert(1)>" }),
				"lib/big.js": "x".repeat(513 * 1024),
			};
			for (const [rel, text] of Object.entries(files)) {
				fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
				fs.writeFileSync(path.join(root, rel), text);
			}
			const page = await context.newPage();
			const pageErrors: string[] = [];
			page.on("pageerror", (e) => pageErrors.push(e.message));
			page.on("dialog", (d) => void d.accept());
			await page.goto(`${desk.base}/`);
			await page.fill("#token", desk.token);
			await page.click("#login-form button");
			await page.locator("#app").waitFor({ state: "visible" });
			await expect.poll(() => page.isVisible("#workspaces-empty")).toBe(true);

			// A folder that does not exist is refused with the server's reason.
			await page.fill("#workspace-path", path.join(root, "nowhere"));
			await page.click("#workspace-form button");
			await expect.poll(() => page.textContent("#workspaces-error")).toContain("nowhere does not exist");
			await page.fill("#workspace-path", root);
			await page.click("#workspace-form button");
			// The form clears itself once the first is added: wait for that before typing the second.
			await expect.poll(() => page.locator("#workspaces tbody tr").count()).toBe(1);
			await page.fill("#workspace-path", "dev@box:code/shop");
			await page.click("#workspace-form button");
			await expect.poll(() => page.locator("#workspaces tbody tr").count()).toBe(2);
			expect(await page.textContent("#workspaces-error")).toBe("");
			const sshRow = page.locator("#workspaces tbody tr").nth(1);
			expect(await sshRow.locator("td").nth(1).textContent()).toBe("SSH (not scanned)");
			expect(await sshRow.locator("button.scan").count()).toBe(0);

			// The scan: one row per package, each finding with its action, the limit it reached.
			await page.locator("#workspaces tbody tr").first().locator("button.scan").click();
			const appRow = page.locator('tr[data-package-dir="app"]');
			await appRow.waitFor();
			expect(await page.textContent("#health-workspace")).toBe(fs.realpathSync(root));
			expect(await appRow.locator("td").nth(2).textContent()).toBe("not installed (latest 1.0.0)");
			expect(await appRow.locator(".setup").textContent()).toContain(`key: found in app/.env (…${key.slice(-4)})`);
			const notInstalled = appRow.locator('li[data-code="logger_not_installed"]');
			expect(await notInstalled.locator(".action").textContent()).toBe("Run `npm install` in app.");
			expect(await appRow.getAttribute("class")).toBe("attention");
			const libRow = page.locator('tr[data-package-dir="lib"]');
			expect(await libRow.locator("td").first().textContent()).toContain("<img src=x onerror=alert(1)>"); // text, not HTML
			expect(await libRow.locator('li[data-code="logger_not_listed"] .action').textContent()).toContain("`npm install @svcapp/logger` in lib");
			expect(await libRow.locator("button.update").count()).toBe(0);
			expect(await page.textContent("#health-limits")).toContain("Limit reached: only the first 512 KiB of these files were read: lib/big.js");
			expect(await page.textContent("#health-status")).toMatch(/^2 of 2 packages need attention\. Scanned .*; access: local\.$/);
			expect(await page.content()).not.toContain(key);

			// A second look comes from the cache; "Scan again" scans.
			await page.locator("#workspaces tbody tr").first().locator("button.scan").click();
			await expect.poll(() => page.textContent("#health-status")).toContain("(from the last hour's scan)");
			await page.click("#rescan");
			await expect.poll(() => page.textContent("#health-status")).not.toContain("(from the last hour's scan)");

			// Update: npm runs for real; the outcome stays beside the package, and the table shows the install.
			await appRow.locator("button.update").click();
			const outcome = appRow.locator(".outcome");
			await outcome.waitFor({ timeout: 60_000 });
			expect(await outcome.getAttribute("class")).toBe("outcome ok");
			expect(await outcome.textContent()).toMatch(/Updated \(exit code 0, \d+ s\): npm install @svcapp\/logger@latest/);
			expect(await outcome.locator("pre").textContent()).toContain("added 1 package");
			await expect.poll(() => appRow.locator("td").nth(2).textContent()).toBe("1.0.0 (latest 1.0.0)");
			expect(await appRow.locator("li").count()).toBe(0);

			// Removing the workspace takes its scan off the page.
			await page.locator("#workspaces tbody tr").first().locator("button.remove").click();
			await expect.poll(() => page.locator("#workspaces tbody tr").count()).toBe(1);
			expect(await page.isHidden("#health")).toBe(true);
			expect(pageErrors).toEqual([]);
		} finally {
			await context.close();
			await desk.close();
			await registry.close();
			process.env.npm_config_cache = npmCache;
		}
	});
});
