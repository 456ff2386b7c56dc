/**
 * The chunk-upload protocol sentry-cli speaks (docs/api.md#sentry-cli), with an upload token as
 * its SENTRY_AUTH_TOKEN and the project's DSN id as its SENTRY_PROJECT:
 *
 * 1. `GET /api/0/organizations/<org>/chunk-upload/`: the options (chunk size, how many per request,
 *    gzip, artifact bundles);
 * 2. `POST …/artifactbundle/assemble/ {checksum, chunks, projects, version}`: which chunks are
 *    missing (sentry-cli 3 asks first; 2 sends every chunk first);
 * 3. `POST …/chunk-upload/`: the chunks, one multipart part each, named by their SHA-1;
 * 4. assemble again: the chunks make the bundle (a zip), its files are stored, the answer is `ok`.
 *
 * The org in the path means nothing here: the token says which project. Errors carry `detail`
 * beside `error`, which is what sentry-cli shows before it exits 1.
 */
import type { IRequest } from "itty-router";
import { z } from "zod";
import { concatBytes } from "../../domain/bytes";
import { InvalidInput } from "../../domain/errors";
import type { ProjectKey } from "../../domain/keys/keyStore";
import { ARTIFACT_LIMITS, CHUNK_UPLOAD } from "../../domain/limits";
import { checkSourceMap } from "../../domain/sourcemaps/artifactFiles";
import { openBundle } from "../../domain/sourcemaps/artifactBundle";
import { bundleStored, chunkObjectKey, deleteChunks, insertChunk, projectUsage, storedChunks } from "../../domain/sourcemaps/artifactStore";
import { HttpError, json, readJsonObject, readMultipartWithin } from "../http";
import { parseBody } from "../validation";
import { authenticateUploadToken, namedProjects, requireTokenProjects } from "./authenticateUpload";
import { storeArtifacts } from "./storeArtifacts";
import { releaseSchema } from "./uploadArtifacts";

type Handler = (request: IRequest, env: Env) => Promise<Response>;

/** sentry-cli shows an error answer's `detail`; everything else reads `error`. */
export const forSentryCli =
	(handler: Handler): Handler =>
	async (request, env) => {
		try {
			return await handler(request, env);
		} catch (err) {
			if (err instanceof InvalidInput) throw new HttpError(400, err.message, { detail: err.message });
			if (err instanceof HttpError) throw new HttpError(err.status, err.message, { ...err.body, detail: err.message }, err.headers);
			throw err;
		}
	};

const SHA1 = /^[0-9a-f]{40}$/;

async function sha1Hex(bytes: Uint8Array): Promise<string> {
	const digest = await crypto.subtle.digest("SHA-1", bytes);
	return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const MiB = 1024 * 1024;

/** GET /api/0/organizations/:org/chunk-upload/ → the options sentry-cli cuts and sends its bundle by. */
export async function chunkUploadOptions(request: IRequest, env: Env): Promise<Response> {
	await authenticateUploadToken(request, env);
	return json({
		url: `/api/0/organizations/${encodeURIComponent(request.params.org ?? "-")}/chunk-upload/`,
		chunkSize: CHUNK_UPLOAD.chunkBytes,
		chunksPerRequest: CHUNK_UPLOAD.chunksPerRequest,
		maxFileSize: CHUNK_UPLOAD.bundleBytes,
		maxRequestSize: CHUNK_UPLOAD.requestBytes,
		concurrency: CHUNK_UPLOAD.concurrency,
		hashAlgorithm: "sha1",
		compression: ["gzip"],
		// sentry-cli 2 sends artifact bundles only to servers that also take release files.
		accept: ["release_files", "artifact_bundles"],
	});
}

/** A part's bytes as sent, or inflated from gzip: at most one chunk's size (413), never inflating past it. */
async function chunkBytes(part: File, gzipped: boolean): Promise<Uint8Array> {
	const tooLarge = () => new HttpError(413, `Chunk ${part.name} is larger than ${CHUNK_UPLOAD.chunkBytes / MiB} MiB, the chunk size`);
	if (!gzipped) {
		if (part.size > CHUNK_UPLOAD.chunkBytes) throw tooLarge();
		return new Uint8Array(await part.arrayBuffer());
	}
	const out = new Uint8Array(CHUNK_UPLOAD.chunkBytes);
	let length = 0;
	const reader = part.stream().pipeThrough(new DecompressionStream("gzip")).getReader();
	try {
		for (;;) {
			const { done, value } = await reader.read();
			if (done) return out.slice(0, length);
			if (length + value.byteLength > out.byteLength) {
				await reader.cancel().catch(() => {});
				throw tooLarge();
			}
			out.set(value, length);
			length += value.byteLength;
		}
	} catch (err) {
		if (err instanceof HttpError) throw err;
		throw new HttpError(400, `Chunk ${part.name} is not valid gzip data`);
	}
}

/**
 * POST /api/0/organizations/:org/chunk-upload/ → 200 {}: chunks in parts `file_gzip` (gzip) or
 * `file`, each named by the SHA-1 of its uncompressed bytes. 413 for a body, a part or a chunk too
 * large or too many parts, 400 for a part whose bytes do not match its name, 403 past the
 * project's storage cap.
 */
export async function uploadChunks(request: IRequest, env: Env): Promise<Response> {
	const key = await authenticateUploadToken(request, env);
	const form = await readMultipartWithin(request, CHUNK_UPLOAD.requestBytes, 'Send multipart/form-data with one part per chunk in field "file_gzip" or "file"');
	const parts = [...form.getAll("file_gzip").map((part) => ({ part, gzipped: true })), ...form.getAll("file").map((part) => ({ part, gzipped: false }))];
	if (parts.length > CHUNK_UPLOAD.chunksPerRequest) throw new HttpError(413, `A request carries at most ${CHUNK_UPLOAD.chunksPerRequest} chunks`);
	const chunks: Array<{ checksum: string; bytes: Uint8Array }> = [];
	for (const { part, gzipped } of parts) {
		if (typeof part === "string" || !SHA1.test(part.name)) throw new HttpError(400, "Every chunk must be a file part named by the SHA-1 of its bytes");
		const bytes = await chunkBytes(part, gzipped);
		if ((await sha1Hex(bytes)) !== part.name) throw new HttpError(400, `Chunk ${part.name} does not match its SHA-1: it was damaged on the way`);
		chunks.push({ checksum: part.name, bytes });
	}

	const usage = await projectUsage(env, key.id);
	const bytesAfter = usage.bytes + chunks.reduce((sum, c) => sum + c.bytes.byteLength, 0);
	if (bytesAfter > ARTIFACT_LIMITS.projectBytes) {
		throw new HttpError(403, `The project's source maps would pass ${ARTIFACT_LIMITS.projectBytes / MiB} MiB, the most one project may hold: delete old releases' artifacts first`);
	}
	for (const { checksum, bytes } of chunks) {
		await env.ARTIFACTS.put(chunkObjectKey(key.id, checksum), bytes);
		await insertChunk(env, key.id, checksum, bytes.byteLength);
	}
	return json({});
}

const assembleSchema = z.object({
	checksum: z.string().regex(SHA1, "must be a SHA-1 in hexadecimal"),
	chunks: z.array(z.string().regex(SHA1, "must be SHA-1s in hexadecimal")).min(1, "must name at least one chunk").max(ARTIFACT_LIMITS.filesPerUpload),
	projects: namedProjects.min(1, "must name the project: its DSN id"),
	version: releaseSchema.optional(),
});

/** The bundle's bytes from its chunks, in order; null when one has gone from R2 meanwhile. */
async function bundleBytes(env: Env, key: ProjectKey, chunks: string[]): Promise<Uint8Array | null> {
	const objects = [];
	for (const checksum of chunks) {
		const object = await env.ARTIFACTS.get(chunkObjectKey(key.id, checksum));
		if (!object) return null;
		objects.push(new Uint8Array(await object.arrayBuffer()));
		if (objects.reduce((sum, o) => sum + o.byteLength, 0) > CHUNK_UPLOAD.bundleBytes) {
			throw new HttpError(413, `The bundle is larger than ${CHUNK_UPLOAD.bundleBytes / MiB} MiB`);
		}
	}
	return concatBytes(objects);
}

async function forgetChunks(env: Env, key: ProjectKey, chunks: string[]) {
	await deleteChunks(env, key.id, chunks);
	await env.ARTIFACTS.delete(chunks.map((checksum) => chunkObjectKey(key.id, checksum))).catch(() => {});
}

/**
 * POST /api/0/organizations/:org/artifactbundle/assemble/ {checksum, chunks, projects, version}
 * → {state: "not_found", missingChunks} while chunks are missing, then {state: "ok",
 * missingChunks: []} once the bundle is stored (at once: assembly runs in the request). 403 when
 * `projects` is not the token's project; 400 for a bundle that does not match its checksum or is
 * not a sentry-cli bundle; 413 and 403 for the caps.
 */
export async function assembleBundle(request: IRequest, env: Env): Promise<Response> {
	const key = await authenticateUploadToken(request, env);
	const input = parseBody(assembleSchema, await readJsonObject(request));
	requireTokenProjects(key, input.projects);
	const done = () => json({ state: "ok", missingChunks: [] });
	if (await bundleStored(env, key.id, input.checksum)) return done();

	const chunks = [...new Set(input.chunks)];
	const stored = await storedChunks(env, key.id, chunks);
	const missing = chunks.filter((checksum) => !stored.has(checksum));
	if (missing.length > 0) return json({ state: "not_found", missingChunks: missing });

	const zip = await bundleBytes(env, key, input.chunks);
	if (!zip) {
		await deleteChunks(env, key.id, chunks);
		return json({ state: "not_found", missingChunks: chunks });
	}
	try {
		if ((await sha1Hex(zip)) !== input.checksum) throw new InvalidInput("The chunks do not make a bundle with the checksum sent");
		const bundle = openBundle(zip);
		const release = input.version ?? (bundle.release === null ? null : parseBody(z.object({ release: releaseSchema }), { release: bundle.release }).release);
		const files = bundle.files.map((file) => ({
			...file,
			bytes: () => {
				const bytes = bundle.read(file);
				if (file.type === "source_map") checkSourceMap(file.url, bytes);
				return bytes;
			},
		}));
		await storeArtifacts(env, key, release, files, input.checksum);
	} catch (err) {
		// A bundle that cannot be stored will not become one later: its chunks go now, not after a day.
		if (err instanceof InvalidInput || (err instanceof HttpError && err.status !== 409)) await forgetChunks(env, key, chunks);
		throw err;
	}
	await forgetChunks(env, key, chunks);
	return done();
}
