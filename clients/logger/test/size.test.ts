import { readFile } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { describe, it } from "vitest";
import { BROWSER_GZIP_LIMIT, BROWSER_OUTPUT, MODULE_OUTPUT, NODE_OUTPUT } from "../build.mjs";

describe("the build", () => {
	it("keeps the browser script within 6 KB gzipped", async ({ expect }) => {
		const script = await readFile(BROWSER_OUTPUT);
		const gzipped = gzipSync(script).byteLength;
		console.log(`@svcapp/logger browser build: ${script.byteLength} bytes minified, ${gzipped} bytes gzipped`);
		expect(BROWSER_GZIP_LIMIT).toBe(6_144);
		expect(gzipped).toBeLessThanOrEqual(BROWSER_GZIP_LIMIT);
	});

	it("imports none of Node's modules but in the Node build, so browsers and their bundlers never meet one", async ({ expect }) => {
		const importOf = /\bimport\s*(?:\(|[^;]*?\bfrom\b)\s*["']([^"']+)["']/g;
		for (const file of [MODULE_OUTPUT, BROWSER_OUTPUT]) {
			const code = await readFile(file, "utf8");
			expect(code).not.toMatch(importOf);
			expect(code).not.toMatch(/\brequire\(/);
			expect(code).not.toContain("createReadStream");
		}
		const node = await readFile(NODE_OUTPUT, "utf8");
		expect([...node.matchAll(importOf)].map((match) => match[1]).sort()).toEqual(["node:fs", "node:fs/promises", "node:path", "node:readline"]);
		expect(node).not.toMatch(/\brequire\(/);
	});

	// The Node processes of node-process.test.ts import the package by name and get the Node build's frames.
	it("is what the package's exports point at: Node's build in Node, the other one elsewhere", async ({ expect }) => {
		const { exports } = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));
		expect(exports["."]).toEqual({ types: "./dist/index.d.ts", node: "./dist/svc-logger.node.js", default: "./dist/svc-logger.js" });
	});
});
