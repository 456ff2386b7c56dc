import { readFile } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { describe, it } from "vitest";
import { LINKS_TRACKER_OUTPUT, TRACKER_OUTPUT } from "../clients/tracker/build.mjs";

describe("the tracker's size", () => {
	it("is at most 1.5 KB gzipped", async ({ expect }) => {
		const script = await readFile(TRACKER_OUTPUT);
		const gzipped = gzipSync(script).byteLength;
		console.log(`tracker: ${script.byteLength} bytes minified, ${gzipped} bytes gzipped`);
		expect(gzipped).toBeLessThanOrEqual(1_536);
	});

	it("with link clicks counted (t.links.js), is at most 1.75 KB gzipped", async ({ expect }) => {
		const script = await readFile(LINKS_TRACKER_OUTPUT);
		const gzipped = gzipSync(script).byteLength;
		console.log(`tracker with links: ${script.byteLength} bytes minified, ${gzipped} bytes gzipped`);
		expect(gzipped).toBeLessThanOrEqual(1_792);
	});
});
