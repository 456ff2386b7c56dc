import { defineProject } from "vitest/config";

// In Node: the real Worker on the local runtime (wrangler's test harness, real migrations),
// driven by a headless Chromium through playwright-core (found by ./browser.ts).
export default defineProject({
	test: {
		name: "e2e",
		include: ["**/*.test.ts"],
		environment: "node",
		globalSetup: ["../clients/tracker/build.mjs", "../clients/logger/build.mjs", "./browser.ts"],
		testTimeout: 60_000,
		hookTimeout: 120_000,
		// A page is polled until it shows what the test waits for: a second (vitest's default) is too
		// short when other test runs share the machine's two cores and a read takes several.
		expect: { poll: { timeout: 10_000 } },
	},
});
