import { describe, it } from "vitest";
import { readablePath } from "../domain/analytics/pagePath";

/*
 * The one rule for a page's path, as the tracker sends it and crawler telemetry stores it (each
 * checks it is applied: e2e/tracker.test.ts, crawl.test.ts).
 */

describe("a page's path as people read it", () => {
	it.for([
		// [what, path, readable]
		["percent-encoding that spells characters, decoded", "/intl/gr%C3%B6%C3%9Fe%20caf%C3%A9", "/intl/größe café"],
		["an encoded slash kept", "/a%2Fb", "/a%2Fb"],
		["an encoded ? and # kept", "/q%3Fa%23b", "/q%3Fa%23b"],
		["a malformed escape kept as sent", "/100%", "/100%"],
		["an escape of no UTF-8 character kept as sent", "/x%C3", "/x%C3"],
		["a plain path as it is", "/docs/start", "/docs/start"],
	])("%s", ([, path, readable], { expect }) => {
		expect(readablePath(path)).toBe(readable);
	});
});
