/**
 * sentry-cli's artifact bundle: a zip holding `manifest.json` and the files it describes.
 *
 *   {"files": {"files/_/_/app.js": {"type": "minified_source", "url": "~/app.js",
 *              "headers": {"debug-id": "…", "sourcemap": "app.js.map"}}, …},
 *    "debug_id": "…", "release": "shop@1.0.0", …}
 *
 * The zip is read with fflate one file at a time, so a bundle never inflates whole: every size
 * is known from the zip's directory before anything is inflated, and inflating never writes past
 * the size the directory declares.
 */
import { type UnzipFileInfo, unzipSync } from "fflate";
import { ARTIFACT_TYPES, type ArtifactType } from "../../schema";
import { InvalidInput } from "../errors";
import { ARTIFACT_LIMITS } from "../limits";
import { artifactUrl, type FileFacts, normalizeDebugId, resolveReference } from "./artifactFiles";

interface BundleFile extends FileFacts {
	/** Where it is in the zip. */
	path: string;
	url: string;
	size: number;
}

export interface ArtifactBundle {
	release: string | null;
	files: BundleFile[];
	/** The bytes of one of `files`. */
	read: (file: BundleFile) => Uint8Array;
}

const MANIFEST = "manifest.json";
/** The manifest is a list of names and headers: far below this even for a thousand files. */
const MANIFEST_BYTES = 4 * 1024 * 1024;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

function inflateOne(zip: Uint8Array, name: string): Uint8Array {
	try {
		const out = unzipSync(zip, { filter: (entry) => entry.name === name });
		const bytes = out[name];
		if (!bytes) throw new InvalidInput(`The bundle has no ${name}`);
		return bytes;
	} catch (err) {
		if (err instanceof InvalidInput) throw err;
		throw new InvalidInput(`The bundle's ${name} cannot be read: ${(err as Error).message}`);
	}
}

/** The zip's directory: every entry's name and inflated size, without inflating anything. */
function directoryOf(zip: Uint8Array): Map<string, UnzipFileInfo> {
	const entries = new Map<string, UnzipFileInfo>();
	try {
		unzipSync(zip, {
			filter: (entry) => {
				entries.set(entry.name, entry);
				return false;
			},
		});
	} catch (err) {
		throw new InvalidInput(`The bundle is not a zip file: ${(err as Error).message}`);
	}
	return entries;
}

/** A header of the manifest, whatever its case (`Sourcemap`, `sourcemap`, `X-SourceMap`). */
function header(headers: unknown, ...names: string[]): string | null {
	if (!isObject(headers)) return null;
	for (const [name, value] of Object.entries(headers)) {
		if (names.includes(name.toLowerCase()) && typeof value === "string") return value;
	}
	return null;
}

function bundleFile(path: string, entry: Json, directory: Map<string, UnzipFileInfo>): BundleFile {
	const url = typeof entry.url === "string" ? artifactUrl(entry.url) : null;
	if (!url) throw new InvalidInput(`The bundle's manifest gives ${path} no usable "url"`);
	const info = directory.get(path);
	if (!info) throw new InvalidInput(`The bundle's manifest names ${path}, which the bundle does not hold`);
	const type: ArtifactType = ARTIFACT_TYPES.find((t) => t === entry.type) ?? "source";
	const reference = type === "minified_source" ? header(entry.headers, "sourcemap", "x-sourcemap") : null;
	return {
		path,
		url,
		size: info.originalSize,
		type,
		debugId: normalizeDebugId(header(entry.headers, "debug-id")),
		sourceMapUrl: reference ? resolveReference(url, reference) : null,
	};
}

/** Opens a bundle: its manifest, checked, and a reader for its files; a 400 for anything that is not a bundle. */
export function openBundle(zip: Uint8Array): ArtifactBundle {
	const directory = directoryOf(zip);
	const manifestInfo = directory.get(MANIFEST);
	if (!manifestInfo) throw new InvalidInput("The bundle has no manifest.json: upload it with sentry-cli sourcemaps upload");
	if (manifestInfo.originalSize > MANIFEST_BYTES) throw new InvalidInput("The bundle's manifest.json is too large");
	let manifest: unknown;
	try {
		manifest = JSON.parse(new TextDecoder().decode(inflateOne(zip, MANIFEST)));
	} catch (err) {
		if (err instanceof InvalidInput) throw err;
		throw new InvalidInput("The bundle's manifest.json is not valid JSON");
	}
	if (!isObject(manifest) || !isObject(manifest.files)) throw new InvalidInput('The bundle\'s manifest.json has no "files" object');
	const entries = Object.entries(manifest.files);
	if (entries.length > ARTIFACT_LIMITS.filesPerUpload) {
		throw new InvalidInput(`A bundle holds at most ${ARTIFACT_LIMITS.filesPerUpload} files; this one has ${entries.length}`);
	}
	const files = entries.map(([path, entry]) => {
		if (!isObject(entry)) throw new InvalidInput(`The bundle's manifest entry for ${path} is not an object`);
		return bundleFile(path, entry, directory);
	});
	const release = typeof manifest.release === "string" && manifest.release.trim() !== "" ? manifest.release.trim() : null;
	return { release, files, read: (file) => inflateOne(zip, file.path) };
}
