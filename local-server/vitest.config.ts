import { defineProject } from "vitest/config";

// Real servers, sockets and a real browser on a shared 2-core machine: generous
// per-test limits (they bound a stuck test; no test asserts a duration). The pairing page's
// test finds its browser through ../e2e/browser.ts, which unpacks a packaged one up front.
export default defineProject({
	test: {
		name: "local-server",
		include: ["test/**/*.test.ts"],
		environment: "node",
		globalSetup: ["../e2e/browser.ts"],
		testTimeout: 60_000,
		hookTimeout: 60_000,
	},
});
