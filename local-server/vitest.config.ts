import { defineProject } from "vitest/config";

// Real servers, sockets and a real browser on a shared 2-core machine: generous
// per-test limits (they bound a stuck test; no test asserts a duration).
export default defineProject({
	test: { name: "local-server", include: ["test/**/*.test.ts"], environment: "node", testTimeout: 60_000, hookTimeout: 60_000 },
});
