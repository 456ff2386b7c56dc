// An npm registry on a free local port for the setup-health tests: it serves
// the packument of @svcapp/logger (GET /@svcapp%2flogger), and of any other
// package a test publishes (GET /<name>), and the tarballs of their versions,
// each built with `npm pack` from a tiny fake package in a temporary folder.
// The real package managers install from it.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { tempDir } from "./helpers.js";

const NAME = "@svcapp/logger";

interface Version {
	manifest: Record<string, unknown>;
	tarball: Buffer;
}

export interface LocalRegistry {
	url: string;
	/** Every request path, in order. */
	requests: string[];
	/** Packs and publishes a version; `latest` moves to it. */
	publish(version: string, extra?: { scripts?: Record<string, string>; files?: Record<string, string> }): void;
	/** Packs and publishes a version of another (unscoped) package. */
	publishOther(name: string, version: string): void;
	/** The version the `latest` dist-tag names. */
	latest(): string | undefined;
	/** Moves the `latest` dist-tag to a published version. */
	tag(version: string): void;
	/** While held, packument requests get no answer (a package manager waits). */
	hold(held: boolean): void;
	packumentRequests(): number;
	close(): Promise<void>;
}

/** A package folder packed with `npm pack`: the tarball's bytes. */
function pack(manifest: Record<string, unknown>, files: Record<string, string>) {
	const dir = tempDir("svc-fake-logger-");
	fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(manifest, null, 2));
	for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
	const out = execFileSync("npm", ["pack", "--silent", "--pack-destination", dir], { cwd: dir, encoding: "utf8" }).trim().split("\n").pop()!;
	return fs.readFileSync(path.join(dir, out));
}

/** A package's packument, its tarballs served from `base`. */
function packument(base: string, name: string, versions: Map<string, Version>, latest: string | undefined) {
	const file = name.split("/").pop();
	return {
		name,
		"dist-tags": { latest },
		versions: Object.fromEntries(
			[...versions].map(([v, { manifest, tarball }]) => [
				v,
				{
					...manifest,
					dist: {
						tarball: `${base}/${name}/-/${file}-${v}.tgz`,
						integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
						shasum: createHash("sha1").update(tarball).digest("hex"),
					},
				},
			]),
		),
	};
}

export async function startLocalRegistry(): Promise<LocalRegistry> {
	const versions = new Map<string, Version>();
	const others = new Map<string, Map<string, Version>>();
	let latest: string | undefined;
	let held = false;
	const waiting: http.ServerResponse[] = [];
	const requests: string[] = [];
	const server = http.createServer((req, res) => {
		const url = req.url ?? "/";
		requests.push(url);
		const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		if (url.toLowerCase() === "/@svcapp%2flogger") {
			if (held) return void waiting.push(res);
			if (versions.size === 0) return void res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
			const answer = packument(base, NAME, versions, latest);
			return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
		}
		const other = others.get(url.slice(1));
		if (other) return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(packument(base, url.slice(1), other, [...other.keys()].pop())));
		const m = /^\/(@svcapp\/logger|[\w.-]+)\/-\/[\w.-]+?-(\d[^/]*)\.tgz$/.exec(url);
		const version = m ? (m[1] === NAME ? versions : others.get(m[1]))?.get(m[2]) : undefined;
		if (version) return void res.writeHead(200, { "content-type": "application/octet-stream" }).end(version.tarball);
		res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
		requests,
		publish(version, extra = {}) {
			const manifest = { name: NAME, version, type: "module", main: "index.js", license: "MIT", ...(extra.scripts ? { scripts: extra.scripts } : {}) };
			const tarball = pack(manifest, { "index.js": `export function init() {}\nexport const version = ${JSON.stringify(version)};\n`, ...extra.files });
			versions.set(version, { manifest, tarball });
			latest = version;
		},
		publishOther(name, version) {
			const manifest = { name, version, main: "index.js", license: "MIT" };
			const published = others.get(name) ?? new Map<string, Version>();
			published.set(version, { manifest, tarball: pack(manifest, { "index.js": "module.exports = {};\n" }) });
			others.set(name, published);
		},
		latest: () => latest,
		tag(version) {
			if (!versions.has(version)) throw new Error(`${version} is not published`);
			latest = version;
		},
		hold(value) {
			held = value;
			if (!held) for (const res of waiting.splice(0)) res.destroy();
		},
		packumentRequests: () => requests.filter((r) => r.toLowerCase() === "/@svcapp%2flogger").length,
		close: () =>
			new Promise<void>((resolve) => {
				for (const res of waiting.splice(0)) res.destroy();
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
