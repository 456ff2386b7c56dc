import { defineProject } from "vitest/config";

// The SDK in Node: its parsers and event building on their own; the whole SDK, as Node
// processes of their own, sending to a real listening HTTP server.
export default defineProject({
	test: {
		name: "logger",
		include: ["test/**/*.test.ts"],
		environment: "node",
		// The child-process tests and the size test use the build.
		globalSetup: ["./build.mjs"],
		testTimeout: 30_000,
	},
});
