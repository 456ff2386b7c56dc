import { readFile } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { describe, it } from "vitest";
import { TRACKER_OUTPUT } from "../clients/tracker/build.mjs";

describe("the tracker's size", () => {
	it("is at most 1.5 KB gzipped", async ({ expect }) => {
		const script = await readFile(TRACKER_OUTPUT);
		const gzipped = gzipSync(script).byteLength;
		console.log(`tracker: ${script.byteLength} bytes minified, ${gzipped} bytes gzipped`);
		expect(gzipped).toBeLessThanOrEqual(1_536);
	});
});
