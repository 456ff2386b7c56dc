import { env } from "cloudflare:workers";
import { zipSync } from "fflate";
import { call, ownerWithKey } from "./helpers";

const encoder = new TextEncoder();
export const bytesOf = (content: string | Uint8Array) => (typeof content === "string" ? encoder.encode(content) : content);

/** An owner with a project key, its DSN id, its key id, and an upload token for it. */
export async function projectWithUploadToken() {
	const owner = await ownerWithKey();
	const row = await env.DB.prepare("select id, dsn_id from project_keys where user_id = ? and project_name = ?")
		.bind(owner.user.id, owner.projectName)
		.first<{ id: string; dsn_id: number }>();
	const uploadToken = await createUploadToken(owner.token, owner.projectName);
	return { ...owner, keyId: row!.id, dsnId: row!.dsn_id, uploadToken };
}

export async function createUploadToken(sessionToken: string, projectName: string): Promise<string> {
	const res = await call("/api/upload-tokens", { method: "POST", token: sessionToken, json: { project_name: projectName } });
	if (res.status !== 201) throw new Error(`upload token creation failed: ${res.status} ${await res.text()}`);
	return (await res.json<{ token: string }>()).token;
}

/** The plain upload: one multipart part in field `file` per file, named by its URL. */
export function plainUpload(credential: string | null, release: string, files: Record<string, string | Uint8Array>, projectName?: string) {
	const form = new FormData();
	for (const [name, content] of Object.entries(files)) form.append("file", new File([bytesOf(content)], name));
	const query = projectName === undefined ? "" : `?project_name=${encodeURIComponent(projectName)}`;
	return call(`/api/releases/${encodeURIComponent(release)}/artifacts${query}`, { method: "POST", token: credential ?? undefined, body: form });
}

export async function sha1Hex(bytes: Uint8Array): Promise<string> {
	const digest = await crypto.subtle.digest("SHA-1", bytes);
	return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
	return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
}

export interface BundleEntry {
	url: string;
	type: "minified_source" | "source_map" | "source";
	content: string | Uint8Array;
	headers?: Record<string, string>;
}

/** A bundle as sentry-cli makes one: a zip of the files and manifest.json. `level: 0` stores them uncompressed. */
export function bundleZip(entries: BundleEntry[], manifest: Record<string, unknown> = {}, level: 0 | 6 = 6): Uint8Array {
	const files: Record<string, Uint8Array> = {};
	const described: Record<string, unknown> = {};
	entries.forEach((entry, i) => {
		const path = `files/_/_/${i}-${entry.url.split("/").pop()}`;
		files[path] = bytesOf(entry.content);
		described[path] = { type: entry.type, url: entry.url, headers: entry.headers ?? {} };
	});
	files["manifest.json"] = encoder.encode(JSON.stringify({ files: described, debug_id: crypto.randomUUID(), org: "anything", ...manifest }));
	return zipSync(files, { level });
}

const CLI = "/api/0/organizations/acme";

export const chunkOptions = (token: string | null) => call(`${CLI}/chunk-upload/`, { token: token ?? undefined });

/** One chunk request: each chunk gzip-compressed in field `file_gzip`, named by its SHA-1 unless `name` says otherwise. */
export async function postChunks(token: string, chunks: Array<{ bytes: Uint8Array; name?: string; raw?: boolean }>) {
	const form = new FormData();
	for (const chunk of chunks) {
		const name = chunk.name ?? (await sha1Hex(chunk.bytes));
		form.append(chunk.raw ? "file" : "file_gzip", new File([chunk.raw ? chunk.bytes : await gzip(chunk.bytes)], name));
	}
	return call(`${CLI}/chunk-upload/`, { method: "POST", token, body: form });
}

export const assemble = (token: string, body: Record<string, unknown>) => call(`${CLI}/artifactbundle/assemble/`, { method: "POST", token, json: body });

/** Cuts `bytes` into chunks of `size`, as sentry-cli does with the options' chunkSize. */
export function cut(bytes: Uint8Array, size: number): Uint8Array[] {
	const chunks: Uint8Array[] = [];
	for (let i = 0; i < bytes.byteLength; i += size) chunks.push(bytes.subarray(i, i + size));
	return chunks;
}

/**
 * What sentry-cli 3 does with a bundle: ask which chunks are missing, send them, assemble again.
 * Answers the last assemble response.
 */
export async function uploadBundle(token: string, zip: Uint8Array, body: { projects: unknown[]; version?: string }, chunkSize = 8 * 1024 * 1024) {
	const chunks = cut(zip, chunkSize);
	const request = { checksum: await sha1Hex(zip), chunks: await Promise.all(chunks.map(sha1Hex)), ...body };
	const first = await assemble(token, request);
	if (first.status !== 200) return first;
	const { state, missingChunks } = await first.json<{ state: string; missingChunks: string[] }>();
	if (state === "ok") return assemble(token, request);
	for (let i = 0; i < chunks.length; i += 2) {
		const sent = await postChunks(token, chunks.slice(i, i + 2).map((bytes) => ({ bytes })));
		if (sent.status !== 200) throw new Error(`chunk upload failed: ${sent.status} ${await sent.text()}`);
	}
	if (missingChunks.length === 0) throw new Error("nothing was missing before the chunks were sent");
	return assemble(token, request);
}

/** A project's artifact rows in D1, oldest first. */
export async function artifactRows(keyId: string) {
	const { results } = await env.DB.prepare("select * from artifacts where key_id = ? order by created_at, url").bind(keyId).all<Record<string, any>>();
	return results;
}

/**
 * Makes the project hold `bytes` of artifacts and `files` files without uploading them: rows
 * whose R2 objects do not exist, so the caps can be tested at their boundaries cheaply.
 */
export async function fillProject(keyId: string, { bytes, files }: { bytes: number; files: number }) {
	const rows = Array.from({ length: files }, (_, i) => ({
		id: crypto.randomUUID(),
		url: `~/filler/${i}.js`,
		size: i === 0 ? bytes - Math.floor(bytes / files) * (files - 1) : Math.floor(bytes / files),
	}));
	for (let i = 0; i < rows.length; i += 2_000) {
		await env.DB.prepare(
			`INSERT INTO artifacts (id, key_id, release, url, debug_id, type, source_map_url, object_key, size, bundle, created_at, used_at)
			SELECT json_extract(value, '$.id'), ?1, 'filler', json_extract(value, '$.url'), NULL, 'source', NULL, 'nowhere', json_extract(value, '$.size'), NULL, ?2, ?2
			FROM json_each(?3)`,
		)
			.bind(keyId, Date.now(), JSON.stringify(rows.slice(i, i + 2_000)))
			.run();
	}
}
