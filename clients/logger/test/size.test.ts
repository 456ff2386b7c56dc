import { readFile } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { describe, it } from "vitest";
import { BROWSER_GZIP_LIMIT, BROWSER_OUTPUT, NODE_OUTPUT } from "../build.mjs";

describe("the build", () => {
	it("keeps the browser script within 6 KB gzipped", async ({ expect }) => {
		const script = await readFile(BROWSER_OUTPUT);
		const gzipped = gzipSync(script).byteLength;
		console.log(`@svcapp/logger browser build: ${script.byteLength} bytes minified, ${gzipped} bytes gzipped`);
		expect(BROWSER_GZIP_LIMIT).toBe(6_144);
		expect(gzipped).toBeLessThanOrEqual(BROWSER_GZIP_LIMIT);
	});

	it("ships no import of Node's modules, so browsers and bundlers take the same module", async ({ expect }) => {
		for (const file of [NODE_OUTPUT, BROWSER_OUTPUT]) {
			const code = await readFile(file, "utf8");
			expect(code).not.toMatch(/\bimport\s*(?:\(|[^;]*?\bfrom\b)\s*["']/);
			expect(code).not.toMatch(/\brequire\(/);
		}
	});
});
