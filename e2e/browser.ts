/**
 * The browser that every browser test drives (e2e/ and local-server/test/page.test.ts), headless
 * through playwright-core, found with nothing installed by hand: the executable `SVC_BROWSER`
 * names, else a system Chrome or Chromium, else the Chromium build that ships inside the
 * @sparticuz/chromium package (unpacked into the temp directory on first use).
 */
import { existsSync } from "node:fs";
import { type Browser, chromium, type LaunchOptions } from "playwright-core";

const SYSTEM_BROWSERS = [
	"/usr/bin/chromium",
	"/usr/bin/chromium-browser",
	"/usr/bin/google-chrome",
	"/usr/bin/google-chrome-stable",
	"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
	"/Applications/Chromium.app/Contents/MacOS/Chromium",
];

// The tests run without a network beyond the machine: nothing that phones home (updates, sync,
// component downloads, first-run pages), no GPU, and no sandbox (CI runs as root).
const HEADLESS_ARGS = [
	"--no-sandbox",
	"--disable-gpu",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
	"--no-first-run",
];

export async function browserExecutable(): Promise<string> {
	const named = process.env.SVC_BROWSER;
	if (named) {
		if (!existsSync(named)) throw new Error(`SVC_BROWSER names ${named}, which does not exist`);
		return named;
	}
	const system = SYSTEM_BROWSERS.find((path) => existsSync(path));
	if (system) return system;
	const { default: packaged } = await import("@sparticuz/chromium");
	return packaged.executablePath();
}

/** Headless, with the flags above before the caller's own `args`. */
export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
	return chromium.launch({
		...options,
		executablePath: await browserExecutable(),
		headless: true,
		args: [...HEADLESS_ARGS, ...(options.args ?? [])],
	});
}

/**
 * As a vitest globalSetup: unpack the packaged browser once, in one process, before test files
 * launch it side by side (the package unpacks to a fixed path and takes an existing file as done).
 */
export async function setup() {
	await browserExecutable();
}
