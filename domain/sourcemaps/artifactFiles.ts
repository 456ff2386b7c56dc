/**
 * What an uploaded file is and where the browser loads it from: its URL as artifacts name it
 * (`~/assets/app.js`, any scheme and host), whether it is a source map or a minified script, and
 * the debug id and source map reference a script carries after `sentry-cli sourcemaps inject`.
 */
import type { ArtifactType } from "../../schema";
import { InvalidInput } from "../errors";
import { ARTIFACT_LIMITS } from "../limits";
import { isObject } from "../logs/jsonFields";

/** Stands for "any scheme and host" while a `~/` URL is resolved like a real one. */
const ANY_ORIGIN = "https://any-origin.invalid";

/**
 * An uploaded file's name as the URL artifacts are found by: `~/path` as sent, a whole URL as
 * sent (without its query or fragment), and a bare path (`/assets/app.js`, `assets/app.js`) as
 * `~/assets/app.js`. Null for a name that is none of these.
 */
export function artifactUrl(name: string): string | null {
	const trimmed = name.trim();
	if (trimmed === "" || trimmed.length > ARTIFACT_LIMITS.urlChars || /[\p{Cc}\s]/u.test(trimmed)) return null;
	if (trimmed.startsWith("~/")) return tildeUrl(`${ANY_ORIGIN}/${trimmed.slice(2)}`);
	if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed)) {
		if (!URL.canParse(trimmed)) return null;
		const url = new URL(trimmed);
		return url.host === "" ? null : `${url.protocol}//${url.host}${url.pathname}`;
	}
	return tildeUrl(`${ANY_ORIGIN}/${trimmed.replace(/^\/+/, "")}`);
}

/** `~` and the path of a URL (no query or fragment): how a frame's file is looked up whatever its host. */
export function tildeUrl(url: string): string | null {
	if (!URL.canParse(url)) return null;
	const { pathname } = new URL(url);
	return pathname === "/" ? null : `~${pathname}`;
}

/** `reference` (a `sourceMappingURL`) resolved against the file's own artifact URL; null for data URLs. */
export function resolveReference(fileUrl: string, reference: string): string | null {
	const ref = reference.trim();
	if (ref === "" || /^data:/i.test(ref)) return null;
	const base = fileUrl.startsWith("~/") ? ANY_ORIGIN + fileUrl.slice(1) : fileUrl;
	if (!URL.canParse(ref, base)) return null;
	const resolved = new URL(ref, base);
	return resolved.origin === ANY_ORIGIN ? tildeUrl(resolved.href) : artifactUrl(resolved.href);
}

const UUID_HEX = /^[0-9a-f]{32}$/;

/** A debug id as stored: a lower-case UUID with dashes; null when `value` is not one. */
export function normalizeDebugId(value: unknown): string | null {
	if (typeof value !== "string") return null;
	const hex = value.trim().toLowerCase().replaceAll("-", "");
	if (!UUID_HEX.test(hex)) return null;
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface FileFacts {
	type: ArtifactType;
	debugId: string | null;
	/** For a minified script: its source map's artifact URL. */
	sourceMapUrl: string | null;
}

const SCRIPT_PATH = /\.(?:js|mjs|cjs)$/i;
/** The comments a bundler and `sentry-cli sourcemaps inject` leave at the end of a script. */
const SOURCE_MAPPING_URL = /\/\/[#@]\s*sourceMappingURL=(\S+)\s*$/gm;
const DEBUG_ID_COMMENT = /\/\/#\s*debugId=([0-9a-fA-F-]{32,36})\s*$/gm;
/** The end of a script where those comments are; a comment further up is code, not a directive. */
const SCRIPT_TAIL_CHARS = 4_096;

const lastMatch = (pattern: RegExp, text: string) => [...text.matchAll(pattern)].pop()?.[1] ?? null;

/** Each base64 digit's 6 bits by character code; -1 for every other character. */
const BASE64 = new Int8Array(128).fill(-1);
for (const [i, digit] of [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].entries()) BASE64[digit.charCodeAt(0)] = i;
const COMMA = 0x2c;
const SEMICOLON = 0x3b;
/** A digit with this bit is followed by more digits of the same number. */
const CONTINUES = 32;

/**
 * What is wrong with `mappings`, or null when it is well-formed: lines split by `;`, segments by
 * `,`, each segment 1, 4 or 5 numbers of base64 VLQ (an empty segment says nothing and is
 * tolerated). The decoder symbolication uses reads anything without complaint, mapping frames
 * to garbage, so the check is made at upload, in one pass that allocates nothing, as a map may
 * be megabytes long.
 */
function mappingsProblem(mappings: string): string | null {
	let segmentStart = 0;
	let fields = 0;
	let continues = false;
	for (let i = 0; i <= mappings.length; i++) {
		const code = i < mappings.length ? mappings.charCodeAt(i) : SEMICOLON;
		if (code === COMMA || code === SEMICOLON) {
			if (continues) return `the number ending at character ${i} is cut short (its last digit says more follow)`;
			if (fields === 2 || fields === 3 || fields > 5) return `the segment at character ${segmentStart + 1} has ${fields} fields, not 1, 4 or 5`;
			segmentStart = i + 1;
			fields = 0;
			continue;
		}
		const digit = code < 128 ? BASE64[code] : -1;
		if (digit === -1) return `character ${i + 1} (${JSON.stringify(String.fromCodePoint(mappings.codePointAt(i) ?? code))}) is not base64`;
		continues = (digit & CONTINUES) !== 0;
		if (!continues) fields++;
	}
	return null;
}

/** A 400 naming the file and the member when `mappings` is a string that is not valid VLQ. */
function checkMappings(url: string, member: string, mappings: unknown): void {
	const problem = typeof mappings === "string" ? mappingsProblem(mappings) : null;
	if (problem) throw new InvalidInput(`${url} is not a source map: "${member}" is not valid VLQ: ${problem}`);
}

/**
 * A source map's own facts, or a 400 naming the file when it says it is one and is not: a file
 * `claimed` to be one (by default: named `.map`) or holding JSON with `mappings` must be a
 * version 3 source map, its mappings valid VLQ. Null for a file that is no source map and does
 * not claim to be.
 */
function sourceMapFacts(url: string, text: string, claimed = url.endsWith(".map")): FileFacts | null {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		if (claimed) throw new InvalidInput(`${url} is not a source map: it is not valid JSON`);
		return null;
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		if (claimed) throw new InvalidInput(`${url} is not a source map: it is not a JSON object`);
		return null;
	}
	const map = value as Record<string, unknown>;
	if (!claimed && !("mappings" in map) && !("sections" in map)) return null;
	if (map.version !== 3) throw new InvalidInput(`${url} is not a source map: "version" must be 3`);
	if (typeof map.mappings !== "string" && !Array.isArray(map.sections)) {
		throw new InvalidInput(`${url} is not a source map: it has neither "mappings" nor "sections"`);
	}
	checkMappings(url, "mappings", map.mappings);
	// An index map's sections are maps of their own, read the same way.
	if (Array.isArray(map.sections)) {
		for (const [i, section] of (map.sections as unknown[]).entries()) {
			const inner = isObject(section) ? section.map : undefined;
			if (isObject(inner)) checkMappings(url, `sections[${i}].map.mappings`, inner.mappings);
		}
	}
	return { type: "source_map", debugId: normalizeDebugId(map.debug_id ?? map.debugId), sourceMapUrl: null };
}

/** A file said to be a source map (by a bundle's manifest): a 400 naming it when it is not one. */
export function checkSourceMap(url: string, bytes: Uint8Array): void {
	sourceMapFacts(url, new TextDecoder().decode(bytes), true);
}

/**
 * What a file of the plain upload is, from its URL and content: a source map (validated), a
 * script (with the debug id and source map its last comments name), or another source.
 */
export function factsOfFile(url: string, bytes: Uint8Array): FileFacts {
	const text = new TextDecoder().decode(bytes);
	const map = sourceMapFacts(url, text);
	if (map) return map;
	if (!SCRIPT_PATH.test(url)) return { type: "source", debugId: null, sourceMapUrl: null };
	const tail = text.slice(-SCRIPT_TAIL_CHARS);
	const reference = lastMatch(SOURCE_MAPPING_URL, tail);
	return {
		type: "minified_source",
		debugId: normalizeDebugId(lastMatch(DEBUG_ID_COMMENT, tail)),
		sourceMapUrl: reference ? resolveReference(url, reference) : null,
	};
}
