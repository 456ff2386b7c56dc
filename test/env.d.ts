declare namespace Cloudflare {
	// Test-only bindings added in vitest.config.ts.
	interface Env {
		TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
	}
}

// Files imported as text (Vite's `?raw`): the built fixtures the symbolication tests upload.
declare module "*?raw" {
	const text: string;
	export default text;
}
