// A bounded walk of a workspace: at most 8 folders deep, 6,000 files read (the
// ones the scan reads: package.json, sources, .env files...; others are only
// listed), 512 KiB read per file and 48 MiB read in all (docs/limits.md, "Setup health").
// `node_modules`, `.git`, tools' output (`.next`, `.wrangler`...) and the folders a `.gitignore` lists are skipped; a
// symbolic link is followed only when its target is inside the workspace, and
// a linked folder only after the rest, so that a folder is reported under its
// own path rather than a link's (each folder is walked once). A limit that is reached is recorded with where, never
// passed silently: depth and bytes per file skip what is beyond them, files
// and total bytes end the walk.
import { constants } from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import ignore from "ignore";
import { withoutBom } from "./json.js";

export const SCAN_LIMITS = Object.freeze({ depth: 8, files: 6000, bytesPerFile: 512 * 1024, totalBytes: 48 * 1024 * 1024 });

/** @typedef {keyof typeof SCAN_LIMITS} LimitName */
/** @typedef {{limit: LimitName, count: number, paths: string[], message: string}} LimitHit */

/**
 * Dependencies, git's store, and what frameworks and tools generate (Next.js writes a
 * package.json into .next): never a package of the owner's, even where no .gitignore lists it.
 */
const ALWAYS_SKIPPED = new Set(["node_modules", ".git", ".next", ".nuxt", ".output", ".svelte-kit", ".astro", ".angular", ".wrangler", ".vercel", ".netlify", ".turbo", ".parcel-cache", ".expo"]);
/** Paths kept per limit hit; the count says how many there were. */
const HIT_PATHS_KEPT = 10;
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** @type {Record<LimitName, string>} */
const HIT_MESSAGES = {
	depth: `folders more than ${SCAN_LIMITS.depth} levels deep were not scanned`,
	files: `the scan stopped here: at most ${SCAN_LIMITS.files.toLocaleString("en-US")} files are read`,
	bytesPerFile: `only the first ${SCAN_LIMITS.bytesPerFile / 1024} KiB of these files were read`,
	totalBytes: `the scan stopped here: at most ${SCAN_LIMITS.totalBytes / 1024 / 1024} MiB are read in all`,
};

/**
 * Whether `target` is `root` or inside it (both absolute and resolved).
 * @param {string} root @param {string} target
 */
export function isInside(root, target) {
	const rel = path.relative(root, target);
	return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * Reads files of one workspace within the limits, and keeps the count.
 * Paths are relative to the root, with "/" separators.
 */
export class BoundedReader {
	/** @param {string} root the workspace's real path */
	constructor(root) {
		this.root = root;
		this.files = 0;
		this.bytes = 0;
		/** Set when the files or total-bytes limit is reached: nothing more is read. */
		this.stopped = false;
		/** @type {Map<LimitName, LimitHit>} */
		this.hits = new Map();
		/** Files and folders the walk met but could not read, with why ("permission denied"). @type {Map<string, string>} */
		this.unreadable = new Map();
		/** Which of those are folders: nothing in them was seen. @type {Set<string>} */
		this.unreadableDirs = new Set();
		/** Symbolic links whose target is out of the workspace: not followed, but said. @type {string[]} */
		this.linksOut = [];
	}

	/** @param {string} rel @param {unknown} err */
	cannotRead(rel, err) {
		const code = /** @type {NodeJS.ErrnoException} */ (err).code;
		if (code === "ENOENT") return; // gone since it was listed
		this.unreadable.set(rel, code === "EACCES" || code === "EPERM" ? "permission denied" : (code ?? String(err)));
	}

	/** @param {LimitName} limit @param {string} rel */
	hit(limit, rel) {
		const h = this.hits.get(limit) ?? { limit, count: 0, paths: [], message: HIT_MESSAGES[limit] };
		h.count++;
		if (h.paths.length < HIT_PATHS_KEPT) h.paths.push(rel);
		this.hits.set(limit, h);
		if (limit === "files" || limit === "totalBytes") this.stopped = true;
	}

	/** Counts a file the walk is about to read; false (and the walk ends) past the limit. @param {string} rel */
	countFile(rel) {
		if (this.files === SCAN_LIMITS.files) {
			this.hit("files", rel);
			return false;
		}
		this.files++;
		return true;
	}

	/**
	 * A file's text, at most 512 KiB of it; null when it is missing, not a
	 * regular file, reached through a link out of the workspace, or the total
	 * would pass 48 MiB (which ends the scan). A `lookup` (the installed logger's
	 * package.json, a lockfile: read once the walk is over, whatever it read) is
	 * neither ended by the walk's stop nor by the total, only by the per-file limit.
	 * @param {string} rel @param {{lookup?: boolean}} [o]
	 * @returns {Promise<string | null>}
	 */
	async read(rel, { lookup = false } = {}) {
		if (this.stopped && !lookup) return null;
		/** @type {string} */
		let real;
		try {
			real = await fsp.realpath(path.join(this.root, rel));
		} catch (err) {
			this.cannotRead(rel, err);
			return null;
		}
		if (!isInside(this.root, real)) return null;
		/** @type {import("node:fs/promises").FileHandle} */
		let file;
		try {
			file = await fsp.open(real, OPEN_FLAGS);
		} catch (err) {
			this.cannotRead(rel, err);
			return null;
		}
		try {
			const stat = await file.stat();
			if (!stat.isFile()) return null;
			const size = stat.size;
			const wanted = Math.min(size, SCAN_LIMITS.bytesPerFile);
			if (!lookup && this.bytes + wanted > SCAN_LIMITS.totalBytes) {
				this.hit("totalBytes", rel);
				return null;
			}
			if (size > SCAN_LIMITS.bytesPerFile) this.hit("bytesPerFile", rel);
			const buffer = Buffer.alloc(wanted);
			let got = 0;
			while (got < wanted) {
				const { bytesRead } = await file.read(buffer, got, wanted - got, got);
				if (bytesRead === 0) break;
				got += bytesRead;
			}
			this.bytes += got;
			return withoutBom(buffer.toString("utf8", 0, got));
		} finally {
			await file.close();
		}
	}

	/** The limits, what was used of them, which were reached, what could not be read, and the links not followed. */
	report() {
		const unreadable = [...this.unreadable.keys()];
		return {
			...SCAN_LIMITS,
			used: { files: this.files, bytes: this.bytes },
			hit: [...this.hits.values()],
			unreadable: { count: unreadable.length, paths: unreadable.slice(0, HIT_PATHS_KEPT) },
			linksOut: { count: this.linksOut.length, paths: this.linksOut.slice(0, HIT_PATHS_KEPT) },
		};
	}
}

/**
 * @typedef {object} Visitor
 * @property {(name: string) => boolean} wants whether a file of this name is read
 * @property {(rel: string, name: string, text: string | null) => void} onFile every file of the
 *   walk, with its text when it was wanted and could be read
 */

/** @typedef {{base: string, rules: import("ignore").Ignore}} IgnoreRules */

/**
 * Walks the workspace depth first, in name order, files of a folder before its subfolders.
 * @param {BoundedReader} reader @param {Visitor} visitor
 */
export async function walk(reader, visitor) {
	const visited = new Set([reader.root]);
	/** Linked folders, walked once everything else has been. @type {{rel: string, depth: number, ignored: IgnoreRules[]}[]} */
	const links = [];

	/** @param {string} dir @param {number} depth @param {IgnoreRules[]} ignored */
	async function walkDir(dir, depth, ignored) {
		/** @type {import("node:fs").Dirent[]} */
		let entries;
		try {
			entries = await fsp.readdir(path.join(reader.root, dir), { withFileTypes: true });
		} catch (err) {
			reader.cannotRead(dir || ".", err);
			if (reader.unreadable.has(dir || ".")) reader.unreadableDirs.add(dir || ".");
			return;
		}
		entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
		/** @type {{name: string, link: boolean}[]} */
		const subdirs = [];
		for (const entry of entries) {
			const rel = dir ? `${dir}/${entry.name}` : entry.name;
			const kind = entry.isSymbolicLink() ? await linkKind(reader.root, rel) : entry.isDirectory() ? "dir" : entry.isFile() ? "file" : "other";
			if (kind === "dir") subdirs.push({ name: entry.name, link: entry.isSymbolicLink() });
			if (kind === "outside") reader.linksOut.push(rel);
			if (kind !== "file") continue;
			// Only a file the scan reads counts: images, archives and the other files it only lists
			// cost a name, and must not stop the scan before it reaches the sources after them.
			const wanted = entry.name === ".gitignore" || visitor.wants(entry.name);
			if (wanted && !reader.countFile(rel)) return;
			const text = wanted ? await reader.read(rel) : null;
			if (reader.stopped) return;
			if (entry.name === ".gitignore" && text !== null) ignored = [...ignored, { base: dir, rules: ignore().add(text) }];
			visitor.onFile(rel, entry.name, text);
		}
		for (const { name, link } of subdirs) {
			const rel = dir ? `${dir}/${name}` : name;
			if (ALWAYS_SKIPPED.has(name) || ignored.some(({ base, rules }) => rules.ignores(`${path.posix.relative(base, rel)}/`))) continue;
			if (depth === SCAN_LIMITS.depth) reader.hit("depth", rel);
			else if (link) links.push({ rel, depth: depth + 1, ignored });
			else await enter(rel, depth + 1, ignored);
			if (reader.stopped) return;
		}
	}

	/** @param {string} rel @param {number} depth @param {IgnoreRules[]} ignored */
	async function enter(rel, depth, ignored) {
		const real = await fsp.realpath(path.join(reader.root, rel)).catch(() => null);
		if (real === null || visited.has(real)) return;
		visited.add(real);
		await walkDir(rel, depth, ignored);
	}

	await walkDir("", 0, []);
	for (let link = links.shift(); link && !reader.stopped; link = links.shift()) await enter(link.rel, link.depth, link.ignored);
}

/**
 * What a symbolic link stands for in the walk: its target's kind when the
 * target is inside the workspace, else "outside".
 * @param {string} root @param {string} rel
 * @returns {Promise<"dir" | "file" | "other" | "outside">}
 */
async function linkKind(root, rel) {
	try {
		const real = await fsp.realpath(path.join(root, rel));
		if (!isInside(root, real)) return "outside";
		const stat = await fsp.stat(real);
		return stat.isDirectory() ? "dir" : stat.isFile() ? "file" : "other";
	} catch {
		return "other";
	}
}
