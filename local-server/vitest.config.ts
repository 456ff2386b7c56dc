import { defineProject } from "vitest/config";

export default defineProject({
	test: { name: "local-server", include: ["test/**/*.test.ts"], environment: "node" },
});
