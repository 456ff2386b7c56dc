/**
 * Whether a crawler visit came from an address its operator publishes: anyone can send GPTBot's
 * User-Agent, only OpenAI sends it from OpenAI's ranges. The ranges are vendored as data
 * (`data/ip-ranges.json`, refreshed by `npm run crawlers:update`).
 */
import ipaddr from "ipaddr.js";
import ipRanges from "./data/ip-ranges.json";

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

const rangesByCrawler = new Map<string, Range[]>(
	Object.entries(ipRanges.ranges as Record<string, string[]>).map(([name, cidrs]) => [name.toLowerCase(), cidrs.map((cidr) => ipaddr.parseCIDR(cidr))]),
);

/**
 * true when `address` is inside a range the crawler's operator publishes, false when it is
 * outside them, null when the operator publishes none or there is no valid address to check.
 */
export function isVerifiedVisit(crawler: string, address: string | null): boolean | null {
	const ranges = rangesByCrawler.get(crawler.toLowerCase());
	// Only the usual notations: ipaddr.js also takes "1", "2130706433" and "0x7f.1" as IPv4
	// addresses, which no edge reports, so they are no address to check rather than a mismatch.
	if (!ranges || !address || !(ipaddr.IPv4.isValidFourPartDecimal(address) || ipaddr.IPv6.isValid(address))) return null;
	// An IPv4 address written as IPv6 (::ffff:1.2.3.4) is compared as the IPv4 address it is.
	const parsed = ipaddr.process(address);
	return ranges.some(([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits));
}
