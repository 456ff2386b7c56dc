import { describe, it } from "vitest";
import { describeClient } from "../domain/analytics/client";
import { matchCrawler } from "../domain/crawl/crawlers";
import { memoizeByText } from "../domain/textMemo";
import { CHROME, GOOGLEBOT, HEADLESS, IPHONE } from "./analytics-helpers";

/** A memo of `text → text + "!"` that counts how often it computed. */
function counted(limits: { entries: number; maxChars: number }) {
	const computed: string[] = [];
	const memo = memoizeByText((text) => {
		computed.push(text);
		return `${text}!`;
	}, limits);
	return { memo, computed };
}

describe("memoizeByText: answers remembered by text, within bounds", () => {
	it("computes each text once while at most `entries` texts are held", ({ expect }) => {
		const { memo, computed } = counted({ entries: 3, maxChars: 10 });
		for (const text of ["a", "b", "c", "a", "b", "c"]) expect(memo(text)).toBe(`${text}!`);
		expect(computed).toEqual(["a", "b", "c"]);
	});

	it("one text past `entries` drops the oldest, which is computed again", ({ expect }) => {
		const { memo, computed } = counted({ entries: 3, maxChars: 10 });
		for (const text of ["a", "b", "c", "d"]) memo(text);
		expect(memo("d")).toBe("d!");
		expect(memo("b")).toBe("b!");
		expect(computed).toEqual(["a", "b", "c", "d"]);
		expect(memo("a")).toBe("a!");
		expect(computed).toEqual(["a", "b", "c", "d", "a"]);
	});

	it("remembers a text of exactly `maxChars` characters, not one of `maxChars` + 1", ({ expect }) => {
		const { memo, computed } = counted({ entries: 3, maxChars: 4 });
		memo("abcd");
		memo("abcd");
		memo("abcde");
		memo("abcde");
		expect(computed).toEqual(["abcd", "abcde", "abcde"]);
	});
});

describe("User-Agent answers are never another User-Agent's", () => {
	const expected = new Map([
		[CHROME, { bot: false, suspicious: null, browser: "Chrome", os: "Windows", device: "desktop" }],
		[IPHONE, { bot: false, suspicious: null, browser: "Mobile Safari", os: "iOS", device: "mobile" }],
		[GOOGLEBOT, { bot: true, suspicious: null }],
		[HEADLESS, { bot: true, suspicious: "headless", os: "Linux" }],
		["curl/8.5.0", { bot: true, suspicious: "short" }],
	]);

	it("interleaved, repeated and after the memo has been filled past its size", ({ expect }) => {
		const check = () => {
			for (const [userAgent, answer] of expected) expect(describeClient(userAgent), userAgent).toMatchObject(answer);
		};
		check();
		check();
		for (let i = 0; i < 1_100; i++) describeClient(`${CHROME} Build/${i}`);
		check();
		expect(Object.isFrozen(describeClient(CHROME))).toBe(true);
	});

	it("crawler matches likewise", ({ expect }) => {
		const gptbot = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
		const claude = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)";
		for (let round = 0; round < 2; round++) {
			expect(matchCrawler(gptbot)?.name).toBe("GPTBot");
			expect(matchCrawler(claude)?.name).toBe("ClaudeBot");
			expect(matchCrawler(CHROME)).toBeNull();
		}
	});
});
