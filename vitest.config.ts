import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Every suite of the repository, run by `npm test`:
// - workers: the API Worker and its Durable Objects inside workerd, with the real migrations;
// - local-server: the desktop server, listening for real, driven by real HTTP and WebSocket clients;
// - e2e: pages, the tracker and the logger in a headless Chromium against the Worker on the local runtime;
// - logger: the @svcapp/logger SDK in Node processes against a recording HTTP server;
// - repository: checks of the repository as a whole (the licences of what it ships, `npm start` as a user runs it).
export default defineConfig({
	test: {
		projects: [
			{
				plugins: [
					cloudflareTest(async () => ({
						wrangler: { configPath: "./wrangler.toml" },
						miniflare: {
							bindings: {
								ADMIN_TOKEN: "test-admin-token",
								TEST_MIGRATIONS: await readD1Migrations("./schema/migrations"),
							},
						},
					})),
				],
				test: {
					name: "workers",
					include: ["test/**/*.test.ts"],
					// Many tests seed thousands of rows: a second alone, many on a shared and loaded machine
					// (vitest's 5 s default failed such tests in fresh-clone runs). A real hang still fails.
					testTimeout: 30_000,
					setupFiles: ["./test/apply-migrations.ts"],
					// The Worker imports the built tracker (GET /t.js); the symbolication tests import the
					// minified shop and its source maps.
					globalSetup: ["./clients/tracker/build.mjs", "./e2e/fixtures/sourcemaps/build.mjs"],
				},
			},
			"local-server",
			"e2e",
			"clients/logger",
			{ test: { name: "repository", include: ["scripts/**/*.test.ts"], environment: "node" } },
		],
	},
});
