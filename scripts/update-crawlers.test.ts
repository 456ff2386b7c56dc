/**
 * `npm run crawlers:update` run for real, on a copy of the crawler data, with the crawler list and
 * the operators' published documents from files (there is no network to download them from).
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DATA = join(ROOT, "domain", "crawl", "data");
const work = mkdtempSync(join(tmpdir(), "update-crawlers-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const GPTBOT_LIST = "https://openai.com/gptbot.json";
const GOOGLE_COMMON = "https://developers.google.com/static/crawling/ipranges/common-crawlers.json";

interface RangeFile {
	lists: Array<{ url: string; crawlers: string[]; ranges: string[] }>;
}

let runs = 0;
/** A fresh copy of the data, the script run on it; its exit code, output and the files it left. */
async function update(published: Record<string, unknown>, robots: Record<string, unknown> = readJson(join(DATA, "ai-robots.json"))) {
	const dir = join(work, `run-${++runs}`);
	cpSync(DATA, join(dir, "data"), { recursive: true });
	writeFileSync(join(dir, "robots.json"), JSON.stringify(robots));
	writeFileSync(join(dir, "published.json"), JSON.stringify(published));
	const args = ["--from", join(dir, "robots.json"), "--ranges-from", join(dir, "published.json"), "--data", join(dir, "data")];
	const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
		execFile(process.execPath, [join(ROOT, "scripts", "update-crawlers.mjs"), ...args], (error, stdout, stderr) =>
			resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
		);
	});
	const data = (file: string) => readJson(join(dir, "data", file));
	return { code, stdout, stderr, ranges: data("ip-ranges.json") as RangeFile, robots: data("ai-robots.json"), names: data("crawler-names.json") as string[] };
}

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));
const vendored = () => readJson(join(DATA, "ip-ranges.json")) as RangeFile;
const listOf = (file: RangeFile, url: string) => file.lists.find((list) => list.url === url);

describe("npm run crawlers:update", () => {
	it("writes each published list's ranges, IPv4 and IPv6, under the crawlers the list serves; a list it cannot read keeps its ranges", async ({ expect }) => {
		const { code, stdout, ranges } = await update({
			[GPTBOT_LIST]: { prefixes: [{ ipv4Prefix: "192.0.2.0/24" }, { ipv6Prefix: "2001:db8:1::/48" }] },
			[GOOGLE_COMMON]: { prefixes: [{ ipv4Prefix: "198.51.100.0/24" }, { ipv6Prefix: "2001:db8:2::/64" }] },
		});
		expect(code).toBe(0);
		expect(listOf(ranges, GPTBOT_LIST)).toEqual({ url: GPTBOT_LIST, crawlers: ["GPTBot"], ranges: ["192.0.2.0/24", "2001:db8:1::/48"] });
		expect(listOf(ranges, GOOGLE_COMMON)?.crawlers).toEqual(expect.arrayContaining(["GoogleOther", "Google-CloudVertexBot"]));
		expect(listOf(ranges, GOOGLE_COMMON)?.ranges).toEqual(["198.51.100.0/24", "2001:db8:2::/64"]);
		const chatgpt = "https://openai.com/chatgpt-user.json";
		expect(listOf(ranges, chatgpt)).toEqual(listOf(vendored(), chatgpt));
		expect(stdout).toContain(`${chatgpt}: could not be read`);
	});

	it("fills a list added by hand with no ranges yet (Google's user-triggered agents'), under the crawlers it names", async ({ expect }) => {
		const agents = "https://developers.google.com/static/crawling/ipranges/user-triggered-agents.json";
		expect(listOf(vendored(), agents)?.ranges).toEqual([]);
		const { code, stdout, ranges } = await update({ [agents]: { creationTime: "2026-01-01T00:00:00.000000", prefixes: [{ ipv6Prefix: "2001:db8:3::/64" }, { ipv4Prefix: "203.0.113.0/27" }] } });
		expect(code).toBe(0);
		expect(listOf(ranges, agents)).toEqual({ url: agents, crawlers: listOf(vendored(), agents)?.crawlers, ranges: ["2001:db8:3::/64", "203.0.113.0/27"] });
		expect(listOf(ranges, agents)?.crawlers).toContain("Google-Agent");
		expect(stdout).toContain(`${agents} (Google-NotebookLM, Google-Agent): 2 ranges (was 0)`);
	});

	it.for([
		["a range without its whole address", "20.171/24"],
		["a prefix longer than the address", "20.171.206.0/33"],
		["an IPv6 prefix past 128 bits", "2001:db8::/129"],
		["no prefix length", "20.171.206.0"],
		["not an address", "openai.com/24"],
		["a prefix that is no number", { ipv4Prefix: null }],
	] as const)("refuses %s and writes nothing", async ([, bad], { expect }) => {
		const robots = { ...readJson(join(DATA, "ai-robots.json")), NewBot: { operator: "[New](https://new.example)", function: "Scrapes data to train LLMs." } };
		const prefix = typeof bad === "string" ? { ipv4Prefix: bad } : bad;
		const { code, stderr, ranges, robots: written } = await update({ [GPTBOT_LIST]: { prefixes: [{ ipv4Prefix: "192.0.2.0/24" }, prefix] } }, robots);
		expect(code).toBe(1);
		expect(stderr).toContain("ip-ranges.json would not be valid");
		expect(stderr).toContain(`list 1 (${GPTBOT_LIST}): ${JSON.stringify(typeof bad === "string" ? bad : undefined)} is not an address range`);
		expect(stderr).toContain("nothing written");
		expect(ranges).toEqual(vendored());
		expect(written).not.toHaveProperty("NewBot");
	});

	it("refuses a list that names a crawler the list does not have", async ({ expect }) => {
		const robots = readJson(join(DATA, "ai-robots.json"));
		delete robots.GPTBot;
		const { code, stderr } = await update({}, robots);
		expect(code).toBe(1);
		expect(stderr).toContain(`${GPTBOT_LIST}: GPTBot is no crawler of the table`);
	});

	it("names the new entries too vague to read without an override, and what each lacks", async ({ expect }) => {
		const robots = {
			...readJson(join(DATA, "ai-robots.json")),
			MysteryBot: { operator: "Unclear at this time.", function: "Undocumented AI Agents" },
			ClearBot: { operator: "[Clear](https://clear.example)", function: "Scrapes data to train LLMs." },
		};
		const { code, stdout, names } = await update({}, robots);
		expect(code).toBe(0);
		expect(stdout).toContain("2 added");
		// The names the Crawlers page's forwarder looks for, the new ones among them.
		expect(names).toEqual(expect.arrayContaining(["ClearBot", "MysteryBot", "GPTBot", "archive.org_bot"]));
		expect(stdout).toContain("MysteryBot: operator and purpose");
		expect(stdout).not.toContain("ClearBot:");
	});
});
