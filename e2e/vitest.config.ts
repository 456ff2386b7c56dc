import { defineProject } from "vitest/config";

// In Node: the real Worker on the local runtime (wrangler's test harness, real migrations),
// driven by Debian's chromium through playwright-core.
export default defineProject({
	test: {
		name: "e2e",
		include: ["**/*.test.ts"],
		environment: "node",
		globalSetup: ["../clients/tracker/build.mjs", "../clients/logger/build.mjs"],
		testTimeout: 60_000,
		hookTimeout: 120_000,
	},
});
