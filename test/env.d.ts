declare namespace Cloudflare {
	// Test-only bindings added in vitest.config.ts.
	interface Env {
		TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
	}
}
