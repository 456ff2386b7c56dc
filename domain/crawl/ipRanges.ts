/**
 * Whether a crawler visit came from an address its operator publishes: anyone can send GPTBot's
 * User-Agent, only OpenAI sends it from OpenAI's ranges. The published lists are vendored as data
 * (`data/ip-ranges.json`, refreshed by `npm run crawlers:update`; see data/README.md), each
 * serving the crawlers it names.
 */
import ipaddr from "ipaddr.js";
import ipRanges from "./data/ip-ranges.json";
import { compileRangeFile, type Range } from "./rangeLists";

/**
 * An interval of addresses, first and last: IPv4 as a number (it fits a double exactly), IPv6 as
 * its 32 hex digits, which order as the numbers they stand for.
 */
type Interval<T extends number | string> = [T, T];

const v4Value = (address: ipaddr.IPv4) => address.octets.reduce((value, octet) => value * 256 + octet, 0);
const v6Value = (address: ipaddr.IPv6) => address.parts.map((part) => part.toString(16).padStart(4, "0")).join("");

/** A range's first and last address, whatever host bits the published text carried. */
function intervalOf([network, bits]: Range): Interval<number> | Interval<string> {
	if (network.kind() === "ipv4") {
		const block = 2 ** (32 - bits);
		const first = Math.floor(v4Value(network as ipaddr.IPv4) / block) * block;
		return [first, first + block - 1];
	}
	const block = 1n << BigInt(128 - bits);
	const first = (BigInt(`0x${v6Value(network as ipaddr.IPv6)}`) / block) * block;
	const hex = (value: bigint) => value.toString(16).padStart(32, "0");
	return [hex(first), hex(first + block - 1n)];
}

/** Sorted intervals with the overlapping ones merged, so that at most one holds an address. */
function merged<T extends number | string>(intervals: Interval<T>[]): Interval<T>[] {
	const sorted = [...intervals].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
	const result: Interval<T>[] = [];
	for (const [first, last] of sorted) {
		const previous = result.at(-1);
		// IPv6 intervals are text, which Math.max cannot compare.
		if (!previous || first > previous[1]) result.push([first, last]);
		else if (last > previous[1]) previous[1] = last;
	}
	return result;
}

/** Whether `value` is inside one of the sorted, disjoint `intervals`: a binary search. */
function inside<T extends number | string>(intervals: Interval<T>[], value: T): boolean {
	let low = 0;
	let high = intervals.length - 1;
	while (low <= high) {
		const middle = (low + high) >> 1;
		const [first, last] = intervals[middle];
		if (value < first) high = middle - 1;
		else if (value > last) low = middle + 1;
		else return true;
	}
	return false;
}

/**
 * A crawler's published ranges, searchable per visit in the time of a few comparisons: Google's
 * user-triggered fetchers alone are over 1,500 ranges, which one by one took 35-75 µs a visit.
 */
function addressSet(ranges: Range[]) {
	const intervals = ranges.map(intervalOf);
	const v4 = merged(intervals.filter((interval): interval is Interval<number> => typeof interval[0] === "number"));
	const v6 = merged(intervals.filter((interval): interval is Interval<string> => typeof interval[0] === "string"));
	return (address: ipaddr.IPv4 | ipaddr.IPv6) =>
		address.kind() === "ipv4" ? inside(v4, v4Value(address as ipaddr.IPv4)) : inside(v6, v6Value(address as ipaddr.IPv6));
}

/** The check against the lists of a ranges file (the vendored one below; the tests' own). */
export function rangeVerifier(file: unknown) {
	// Compiled at the first visit to check rather than at load: most requests never need it, and a
	// malformed range is left out (and named by `problems`) instead of failing the Worker's start.
	let compiled: { sets: Map<string, ReturnType<typeof addressSet>>; problems: string[] } | undefined;
	const lists = () => {
		if (!compiled) {
			const { byCrawler, problems } = compileRangeFile(file);
			compiled = { sets: new Map([...byCrawler].map(([crawler, ranges]) => [crawler, addressSet(ranges)])), problems };
		}
		return compiled;
	};
	return {
		/** What is wrong with the file, in words. */
		problems: (): string[] => lists().problems,
		/**
		 * true when `address` is inside a range the crawler's operator publishes, false when it is
		 * outside them, null when the operator publishes none or there is no valid address to check.
		 */
		isVerifiedVisit(crawler: string, address: string | null): boolean | null {
			const published = lists().sets.get(crawler.toLowerCase());
			if (!published || !address) return null;
			// Only the usual notations: ipaddr.js also takes "1", "2130706433" and "0x7f.1" as IPv4
			// addresses, which no edge reports, so they are no address to check rather than a mismatch.
			// IPv6 is told by its colon first: ipaddr.js's IPv4 check of one throws and catches (15 µs).
			if (!(address.includes(":") ? ipaddr.IPv6.isValid(address) : ipaddr.IPv4.isValidFourPartDecimal(address))) return null;
			// An IPv4 address written as IPv6 (::ffff:1.2.3.4) is compared as the IPv4 address it is.
			const parsed = ipaddr.process(address);
			return published(parsed);
		},
	};
}

const vendored = rangeVerifier(ipRanges);

export const isVerifiedVisit = vendored.isVerifiedVisit;
/** What is wrong with the vendored ranges: nothing, or a test fails. */
export const rangeProblems = vendored.problems;
