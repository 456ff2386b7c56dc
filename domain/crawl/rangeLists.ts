/**
 * The address lists operators publish for their crawlers, as `data/ip-ranges.json` holds them
 * (data/README.md): each list where it is published, the crawlers it verifies (one list can serve
 * several: Google's common crawlers are GoogleOther, GoogleOther-Image, Google-CloudVertexBot...)
 * and its ranges. Read by the Worker (ipRanges.ts) and by `npm run crawlers:update`
 * (scripts/update-crawlers.mjs), which runs this file on Node as it is: it imports nothing but
 * ipaddr.js, and uses only types Node can strip.
 */
import ipaddr from "ipaddr.js";

export type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

interface RangeList {
	/** Where the operator publishes the list (`{prefixes: [{ipv4Prefix} | {ipv6Prefix}]}`). */
	url: string;
	/** The crawlers (names of the crawler table) whose visits an address in the list verifies. */
	crawlers: string[];
	ranges: string[];
}

/**
 * A range as operators publish it, "20.171.206.0/24" or "2001:4860:4801:2::/64", else null.
 * Stricter than ipaddr.parseCIDR, which also takes "20.171/24" and "1.2.3.4/024" and throws on
 * the rest: the whole address, a prefix length in decimal within the address's bits. An
 * IPv4-mapped IPv6 range is the IPv4 range it stands for, as the visits' addresses are compared.
 */
export function parseRange(text: unknown): Range | null {
	if (typeof text !== "string") return null;
	const match = /^([0-9A-Fa-f.:]+)\/(0|[1-9]\d{0,2})$/.exec(text);
	if (!match) return null;
	const [, address, bitsText] = match;
	const bits = Number(bitsText);
	if (ipaddr.IPv4.isValidFourPartDecimal(address)) return bits <= 32 ? [ipaddr.IPv4.parse(address), bits] : null;
	if (!ipaddr.IPv6.isValid(address) || bits > 128) return null;
	const network = ipaddr.IPv6.parse(address);
	if (!network.isIPv4MappedAddress()) return [network, bits];
	return bits >= 96 ? [network.toIPv4Address(), bits - 96] : null;
}

const isText = (value: unknown): value is string => typeof value === "string" && value.trim() !== "";

/**
 * The ranges of a ranges file per crawler (lower-case name), and what is wrong with it, in
 * words. Never throws: a malformed list or range is left out and named in `problems`, so a bad
 * refresh verifies fewer visits instead of failing every request (the tests and the update
 * script refuse any problem).
 */
export function compileRangeFile(file: unknown): { byCrawler: Map<string, Range[]>; problems: string[] } {
	const byCrawler = new Map<string, Range[]>();
	const problems: string[] = [];
	const lists = (file as { lists?: unknown } | null)?.lists;
	if (!Array.isArray(lists)) return { byCrawler, problems: ["the file has no `lists` array"] };
	lists.forEach((list: Partial<Record<keyof RangeList, unknown>> | null, i) => {
		const url = list?.url;
		const where = `list ${i + 1}${isText(url) ? ` (${url})` : ""}`;
		if (!isText(url) || !url.startsWith("https://")) problems.push(`${where}: url must be an https:// address`);
		const crawlers = list?.crawlers;
		if (!Array.isArray(crawlers) || crawlers.length === 0 || !crawlers.every(isText)) {
			problems.push(`${where}: crawlers must be a non-empty array of crawler names`);
			return;
		}
		if (!Array.isArray(list?.ranges)) {
			problems.push(`${where}: ranges must be an array`);
			return;
		}
		const ranges: Range[] = [];
		for (const text of list.ranges) {
			const range = parseRange(text);
			if (range) ranges.push(range);
			else problems.push(`${where}: ${JSON.stringify(text)} is not an address range such as 192.0.2.0/24 or 2001:db8::/32`);
		}
		// A list with no ranges yet (added, not refreshed) verifies nothing: its crawlers stay unchecked.
		if (ranges.length === 0) return;
		for (const name of crawlers) {
			const key = name.toLowerCase();
			byCrawler.set(key, [...(byCrawler.get(key) ?? []), ...ranges]);
		}
	});
	return { byCrawler, problems };
}
