// The tail of a command's output that `update-logger` answers: real processes, their output cut to
// its last 4,000 characters without leaving half of a character at the cut.
import { describe, expect, it } from "vitest";
import { runProcessTree } from "../src/processTree.js";

/** What `node -e script` printed, as runProcessTree keeps it. */
async function tailOf(script: string) {
	const { done } = runProcessTree([process.execPath, "-e", script], { cwd: process.cwd(), env: process.env, timeoutMs: 60_000 });
	return (await done).outputTail;
}

describe("runProcessTree's output tail", () => {
	it("keeps the last 4,000 characters, and drops the half of an emoji the cut falls in", async () => {
		// 3,000 emoji (two UTF-16 units each) and a letter: the cut 4,000 units from the end falls inside an emoji.
		const split = await tailOf(`process.stdout.write("😀".repeat(3000) + "z")`);
		expect(split.isWellFormed()).toBe(true);
		expect(split).toBe(`${"😀".repeat(1999)}z`);
		// Between two emoji the cut takes exactly 4,000 units.
		const whole = await tailOf(`process.stdout.write("😀".repeat(3000))`);
		expect(whole).toBe("😀".repeat(2000));
		// 4,000 characters are kept whole, the one before them not.
		expect(await tailOf(`process.stdout.write("a".repeat(4000))`)).toBe("a".repeat(4000));
		expect(await tailOf(`process.stdout.write("b" + "a".repeat(4000))`)).toBe("a".repeat(4000));
	});
});
