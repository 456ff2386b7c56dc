import { type Browser, chromium } from "playwright-core";

/** Debian's chromium, as the project's browser tests use it everywhere. */
export function launchChromium(): Promise<Browser> {
	return chromium.launch({
		executablePath: "/usr/bin/chromium",
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
	});
}
