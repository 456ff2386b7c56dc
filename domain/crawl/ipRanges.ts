/**
 * Whether a crawler visit came from an address its operator publishes: anyone can send GPTBot's
 * User-Agent, only OpenAI sends it from OpenAI's ranges. The published lists are vendored as data
 * (`data/ip-ranges.json`, refreshed by `npm run crawlers:update`; see data/README.md), each
 * serving the crawlers it names.
 */
import ipaddr from "ipaddr.js";
import ipRanges from "./data/ip-ranges.json";
import { compileRangeFile } from "./rangeLists";

/** The check against the lists of a ranges file (the vendored one below; the tests' own). */
export function rangeVerifier(file: unknown) {
	// Compiled at the first visit to check rather than at load: most requests never need it, and a
	// malformed range is left out (and named by `problems`) instead of failing the Worker's start.
	let compiled: ReturnType<typeof compileRangeFile> | undefined;
	const lists = () => {
		compiled ??= compileRangeFile(file);
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
			const published = lists().byCrawler.get(crawler.toLowerCase());
			// Only the usual notations: ipaddr.js also takes "1", "2130706433" and "0x7f.1" as IPv4
			// addresses, which no edge reports, so they are no address to check rather than a mismatch.
			if (!published || !address || !(ipaddr.IPv4.isValidFourPartDecimal(address) || ipaddr.IPv6.isValid(address))) return null;
			// An IPv4 address written as IPv6 (::ffff:1.2.3.4) is compared as the IPv4 address it is.
			const parsed = ipaddr.process(address);
			return published.some(([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits));
		},
	};
}

const vendored = rangeVerifier(ipRanges);

export const isVerifiedVisit = vendored.isVerifiedVisit;
/** What is wrong with the vendored ranges: nothing, or a test fails. */
export const rangeProblems = vendored.problems;
