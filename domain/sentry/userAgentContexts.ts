/**
 * The browser, operating system and device a request's User-Agent names, as Sentry's Relay adds
 * them to an event's contexts: browser SDKs send the User-Agent header and leave these to it.
 */
import UAParser from "ua-parser-js";
import { memoizeByText } from "../textMemo";

interface NameAndVersion {
	name: string;
	version?: string;
}

export interface UserAgentContexts {
	browser?: NameAndVersion;
	os?: NameAndVersion;
	device?: { family: string; model?: string; brand?: string };
}

// Used synchronously, so sharing one parser is safe.
const parser = new UAParser();

/** `153.0.8010.0` → `153.0.8010`: major, minor and patch, as Relay writes versions. */
const upToPatch = (version: string | undefined) => version?.split(".").slice(0, 3).join(".") || undefined;

const nameAndVersion = ({ name, version }: { name?: string; version?: string }): NameAndVersion | undefined =>
	name ? Object.freeze(version ? { name, version: upToPatch(version) } : { name }) : undefined;

function parse(userAgent: string): UserAgentContexts {
	const { browser, os, device } = parser.setUA(userAgent).getResult();
	const family = device.model ?? device.vendor;
	const contexts: UserAgentContexts = {
		browser: nameAndVersion(browser),
		os: nameAndVersion(os),
		// A desktop's User-Agent names no device (Relay's "Other"), a phone's its model and maker.
		device: family ? Object.freeze({ family, ...(device.model && { model: device.model }), ...(device.vendor && { brand: device.vendor }) }) : undefined,
	};
	return Object.freeze(Object.fromEntries(Object.entries(contexts).filter(([, value]) => value !== undefined)));
}

/**
 * What `userAgent` names; the same frozen answer for the same text, remembered as the analytics
 * collector remembers its parses (real traffic repeats a few User-Agents; parsing one is costly).
 */
export const userAgentContexts: (userAgent: string) => Readonly<UserAgentContexts> = memoizeByText(parse, { entries: 1_000, maxChars: 512 });
