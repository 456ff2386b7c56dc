import { env } from "cloudflare:workers";
import { zipSync } from "fflate";
import { describe, it } from "vitest";
import { call, setPlan } from "./helpers";
import {
	artifactRows,
	assemble,
	bundleZip,
	chunkOptions,
	cut,
	fillProject,
	postChunks,
	projectWithUploadToken,
	sha1Hex,
	uploadBundle,
} from "./sourcemapHelpers";

const MiB = 1024 * 1024;
const DEBUG_ID = "e1e8570f-7c42-515d-a5d5-d407b0da4295";
const MAP = JSON.stringify({ version: 3, sources: ["../src/app.ts"], names: [], mappings: "AAAA", debug_id: DEBUG_ID });

/** What sentry-cli bundles after `sourcemaps inject`: the script and its map, sharing a debug id. */
const injectedBundle = (manifest: Record<string, unknown> = { release: "shop@1.0.0" }) =>
	bundleZip(
		[
			{ url: "~/assets/app.js", type: "minified_source", content: "x()", headers: { "debug-id": DEBUG_ID, Sourcemap: "app.js.map" } },
			{ url: "~/assets/app.js.map", type: "source_map", content: MAP, headers: { "debug-id": DEBUG_ID } },
		],
		manifest,
	);

/**
 * The error answers sentry-cli shows: `detail` beside the `error` every answer has.
 */
async function expectCliError(res: Response, status: number, message: string) {
	if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${await res.text()}`);
	const body = await res.json<any>();
	if (body.error !== message || body.detail !== message) throw new Error(`unexpected body ${JSON.stringify(body)}`);
}

describe("chunk-upload options", () => {
	it("tell sentry-cli the chunk size, gzip and artifact bundles, for an upload token", async ({ expect }) => {
		const { uploadToken } = await projectWithUploadToken();
		const res = await chunkOptions(uploadToken);
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({
			url: "/api/0/organizations/acme/chunk-upload/",
			chunkSize: 8 * MiB,
			chunksPerRequest: 2,
			maxFileSize: 32 * MiB,
			maxRequestSize: 17 * MiB,
			concurrency: 4,
			hashAlgorithm: "sha1",
			compression: ["gzip"],
			accept: ["release_files", "artifact_bundles"],
		});
	});

	it("chunks and assembly are refused without an upload token", async () => {
		const { token } = await projectWithUploadToken();
		const form = new FormData();
		form.append("file_gzip", new File([new Uint8Array([1])], "0".repeat(40)));
		await expectCliError(await call("/api/0/organizations/acme/chunk-upload/", { method: "POST", body: form }), 401, "Upload token required: send Authorization: Bearer <upload token>");
		await expectCliError(
			await assemble(token, { checksum: "0".repeat(40), chunks: ["0".repeat(40)], projects: ["1"] }),
			401,
			"Not an upload token: create one for the project (POST /api/upload-tokens); upload tokens start with svcu_",
		);
	});

	it("are refused without a token, with a session or a project key, with a revoked token, and for an owner without access", async () => {
		const { token, rawKey, uploadToken, projectName } = await projectWithUploadToken();
		await expectCliError(await chunkOptions(null), 401, "Upload token required: send Authorization: Bearer <upload token>");
		const notToken = "Not an upload token: create one for the project (POST /api/upload-tokens); upload tokens start with svcu_";
		await expectCliError(await chunkOptions(token), 401, notToken);
		await expectCliError(await chunkOptions(rawKey), 401, notToken);
		const [{ id }] = (await call(`/api/upload-tokens?project_name=${projectName}`, { token }).then((r) => r.json<any>())).tokens;
		await call(`/api/upload-tokens/${id}`, { method: "DELETE", token });
		await expectCliError(await chunkOptions(uploadToken), 401, "Upload token is not valid: it was revoked, or never existed");

		const other = await projectWithUploadToken();
		await setPlan(other.email, "free", "2000-01-01T00:00:00.000Z");
		await expectCliError(await chunkOptions(other.uploadToken), 402, "The project owner has neither a Pro subscription nor an active trial");
	});
});

describe("a bundle, chunk by chunk", () => {
	it("missing chunks are named, then sent, then the bundle's files are stored by debug id and release", async ({ expect }) => {
		const { uploadToken, dsnId, keyId } = await projectWithUploadToken();
		const zip = injectedBundle();
		const checksum = await sha1Hex(zip);
		const request = { checksum, chunks: [checksum], projects: [String(dsnId)], version: "shop@1.0.0" };

		const first = await assemble(uploadToken, request);
		expect(first.status).toBe(200);
		expect(await first.json()).toEqual({ state: "not_found", missingChunks: [checksum] });
		expect((await postChunks(uploadToken, [{ bytes: zip }])).status).toBe(200);
		const done = await assemble(uploadToken, request);
		expect(await done.json()).toEqual({ state: "ok", missingChunks: [] });

		const rows = await artifactRows(keyId);
		expect(rows.map((r) => [r.url, r.type, r.release, r.debug_id, r.source_map_url, r.bundle])).toEqual([
			["~/assets/app.js", "minified_source", "shop@1.0.0", DEBUG_ID, "~/assets/app.js.map", checksum],
			["~/assets/app.js.map", "source_map", "shop@1.0.0", DEBUG_ID, null, checksum],
		]);
		expect(await (await env.ARTIFACTS.get(rows[1].object_key))?.text()).toBe(MAP);
		// The chunks are gone once assembled; the same bundle again is `ok` at once.
		expect(await env.DB.prepare("select count(*) as n from upload_chunks where key_id = ?").bind(keyId).first("n")).toBe(0);
		expect((await env.ARTIFACTS.list({ prefix: `chunks/${keyId}/` })).objects).toHaveLength(0);
		expect(await (await assemble(uploadToken, request)).json()).toEqual({ state: "ok", missingChunks: [] });
	});

	it("takes chunks sent before the first assemble (sentry-cli 2), several chunks per bundle, uncompressed chunks, and the release from the manifest", async ({ expect }) => {
		const { uploadToken, dsnId, keyId } = await projectWithUploadToken();
		const zip = injectedBundle({ release: "from-manifest" });
		const chunks = cut(zip, 100);
		expect((await postChunks(uploadToken, [{ bytes: chunks[0] }, { bytes: chunks[1], raw: true }])).status).toBe(200);
		for (let i = 2; i < chunks.length; i += 2) await postChunks(uploadToken, chunks.slice(i, i + 2).map((bytes) => ({ bytes })));
		const res = await assemble(uploadToken, { checksum: await sha1Hex(zip), chunks: await Promise.all(chunks.map(sha1Hex)), projects: [dsnId] });
		expect(await res.json()).toEqual({ state: "ok", missingChunks: [] });
		expect((await artifactRows(keyId)).map((r) => r.release)).toEqual(["from-manifest", "from-manifest"]);
	});

	it("is refused for another project's id, with the token's project named in the answer", async ({ expect }) => {
		const { uploadToken, dsnId, projectName, keyId } = await projectWithUploadToken();
		const other = await projectWithUploadToken();
		const zip = injectedBundle();
		const res = await uploadBundle(uploadToken, zip, { projects: [String(other.dsnId)] });
		await expectCliError(res, 403, `This upload token is for project ${dsnId} (${projectName}), not ${other.dsnId}: set SENTRY_PROJECT to ${dsnId}`);
		expect(await artifactRows(keyId)).toHaveLength(0);
		expect(await artifactRows(other.keyId)).toHaveLength(0);
		// Another project's token cannot assemble this project's bundle either.
		await expectCliError(
			await uploadBundle(other.uploadToken, zip, { projects: [String(dsnId)] }),
			403,
			`This upload token is for project ${other.dsnId} (${other.projectName}), not ${dsnId}: set SENTRY_PROJECT to ${other.dsnId}`,
		);
	});

	it("answers what is not a bundle with 400, and forgets its chunks", async ({ expect }) => {
		const { uploadToken, dsnId, keyId } = await projectWithUploadToken();
		const projects = [String(dsnId)];
		const refused = async (zip: Uint8Array, message: string) => expectCliError(await uploadBundle(uploadToken, zip, { projects }), 400, message);
		await refused(new TextEncoder().encode("not a zip"), "The bundle is not a zip file: invalid zip data");
		await refused(zipSync({ "files/_/_/a.js": new TextEncoder().encode("x") }), "The bundle has no manifest.json: upload it with sentry-cli sourcemaps upload");
		await refused(zipSync({ "manifest.json": new TextEncoder().encode("{") }), "The bundle's manifest.json is not valid JSON");
		await refused(zipSync({ "manifest.json": new TextEncoder().encode("[]") }), 'The bundle\'s manifest.json has no "files" object');
		await refused(bundleZip([{ url: "", type: "source", content: "x" }]), 'The bundle\'s manifest gives files/_/_/0- no usable "url"');
		await refused(
			zipSync({ "manifest.json": new TextEncoder().encode(JSON.stringify({ files: { "files/gone.js": { type: "source", url: "~/gone.js" } } })) }),
			"The bundle's manifest names files/gone.js, which the bundle does not hold",
		);
		await refused(bundleZip([{ url: "~/a.js.map", type: "source_map", content: "{broken" }]), "~/a.js.map is not a source map: it is not valid JSON");
		await refused(
			bundleZip([{ url: "~/a.js.map", type: "source_map", content: JSON.stringify({ version: 3, sources: ["a.ts"], names: [], mappings: "AAAA;AAg" }) }]),
			'~/a.js.map is not a source map: "mappings" is not valid VLQ: the number ending at character 8 is cut short (its last digit says more follow)',
		);

		// A damaged chunk is refused as it arrives.
		const zip = injectedBundle();
		const zeros = "0".repeat(40);
		await expectCliError(await postChunks(uploadToken, [{ bytes: zip, name: zeros }]), 400, `Chunk ${zeros} does not match its SHA-1: it was damaged on the way`);
		await expectCliError(await postChunks(uploadToken, [{ bytes: zip, name: "app.zip" }]), 400, "Every chunk must be a file part named by the SHA-1 of its bytes");
		// Chunks whose bytes do not make the checksum.
		const part = zip.subarray(0, 50);
		await postChunks(uploadToken, [{ bytes: part }]);
		await expectCliError(
			await assemble(uploadToken, { checksum: await sha1Hex(zip), chunks: [await sha1Hex(part)], projects }),
			400,
			"The chunks do not make a bundle with the checksum sent",
		);
		await expectCliError(
			await assemble(uploadToken, { checksum: "abc", chunks: [], projects: [] }),
			400,
			"Invalid request: checksum: must be a SHA-1 in hexadecimal; chunks: must name at least one chunk; projects: must name the project: its DSN id",
		);
		await expectCliError(
			await assemble(uploadToken, { checksum: await sha1Hex(zip), chunks: [await sha1Hex(zip)], projects: [null] }),
			400,
			"Invalid request: projects.0: must be text or a number",
		);
		expect(await env.DB.prepare("select count(*) as n from upload_chunks where key_id = ?").bind(keyId).first("n")).toBe(0);
		expect((await env.ARTIFACTS.list({ prefix: `chunks/${keyId}/` })).objects).toHaveLength(0);
		expect(await artifactRows(keyId)).toHaveLength(0);
	});

	it("takes a chunk of 8 MiB and refuses one byte more with 413, compressed or not; three chunks in one request are 413", async ({ expect }) => {
		const { uploadToken } = await projectWithUploadToken();
		const full = new Uint8Array(8 * MiB).fill(7);
		const over = new Uint8Array(8 * MiB + 1).fill(7);
		expect((await postChunks(uploadToken, [{ bytes: full }])).status).toBe(200);
		const overName = await sha1Hex(over);
		await expectCliError(await postChunks(uploadToken, [{ bytes: over }]), 413, `Chunk ${overName} is larger than 8 MiB, the chunk size`);
		await expectCliError(await postChunks(uploadToken, [{ bytes: over, raw: true }]), 413, `Chunk ${overName} is larger than 8 MiB, the chunk size`);
		const small = (n: number) => ({ bytes: new Uint8Array([n]) });
		expect((await postChunks(uploadToken, [small(1), small(2)])).status).toBe(200);
		await expectCliError(await postChunks(uploadToken, [small(1), small(2), small(3)]), 413, "A request carries at most 2 chunks");
		const json = await call("/api/0/organizations/acme/chunk-upload/", { method: "POST", token: uploadToken, json: {} });
		await expectCliError(json, 415, 'Send multipart/form-data with one part per chunk in field "file_gzip" or "file"');
	});

	it("takes a request body of 17 MiB and refuses one byte more with 413", async ({ expect }) => {
		const { uploadToken } = await projectWithUploadToken();
		// Two whole chunks, uncompressed, and a field that pads the body to the size wanted.
		const chunks = [new Uint8Array(8 * MiB).fill(1), new Uint8Array(8 * MiB).fill(2)];
		const names = await Promise.all(chunks.map(sha1Hex));
		const body = (size: number) => {
			const boundary = "svc-test-boundary";
			const head = (name: string, file?: string) =>
				`--${boundary}\r\ncontent-disposition: form-data; name="${name}"${file ? `; filename="${file}"` : ""}\r\n\r\n`;
			const parts = [head("file", names[0]), chunks[0], "\r\n", head("file", names[1]), chunks[1], "\r\n", head("padding")];
			const tail = `\r\n--${boundary}--\r\n`;
			const framing = parts.reduce((n: number, p) => n + (typeof p === "string" ? p.length : p.byteLength), 0) + tail.length;
			const blob = new Blob([...parts, "x".repeat(size - framing), tail]);
			return { blob, type: `multipart/form-data; boundary=${boundary}` };
		};
		const send = ({ blob, type }: { blob: Blob; type: string }) =>
			call("/api/0/organizations/acme/chunk-upload/", { method: "POST", token: uploadToken, headers: { "content-type": type }, body: blob });
		const exactly = body(17 * MiB);
		expect(exactly.blob.size).toBe(17 * MiB);
		expect((await send(exactly)).status).toBe(200);
		await expectCliError(await send(body(17 * MiB + 1)), 413, `Request body exceeds ${17 * MiB} bytes`);
	});

	it("takes a bundle of 32 MiB and refuses one byte more with 413", { timeout: 60_000 }, async ({ expect }) => {
		const { uploadToken, dsnId, keyId } = await projectWithUploadToken();
		const projects = [String(dsnId)];
		// Two stored (uncompressed) files whose zip is exactly 32 MiB.
		const exactly = (extra: number) => {
			const probe = bundleZip([{ url: "~/a.bin", type: "source", content: new Uint8Array(0) }, { url: "~/b.bin", type: "source", content: new Uint8Array(0) }], { release: "r" }, 0);
			const room = 32 * MiB - probe.byteLength + extra;
			const first = Math.floor(room / 2);
			return bundleZip(
				[
					{ url: "~/a.bin", type: "source", content: new Uint8Array(first) },
					{ url: "~/b.bin", type: "source", content: new Uint8Array(room - first) },
				],
				{ release: "r" },
				0,
			);
		};
		const fits = exactly(0);
		expect(fits.byteLength).toBe(32 * MiB);
		expect(await (await uploadBundle(uploadToken, fits, { projects })).json()).toEqual({ state: "ok", missingChunks: [] });
		expect(await artifactRows(keyId)).toHaveLength(2);
		await expectCliError(await uploadBundle(uploadToken, exactly(1), { projects }), 413, `The bundle is larger than 32 MiB`);
	});

	it("counts chunks and artifacts against the project's 256 MiB: a chunk past it is 403", async ({ expect }) => {
		const { uploadToken, keyId } = await projectWithUploadToken();
		await fillProject(keyId, { bytes: 256 * MiB - 2, files: 1 });
		expect((await postChunks(uploadToken, [{ bytes: new Uint8Array([1]) }])).status).toBe(200);
		expect((await postChunks(uploadToken, [{ bytes: new Uint8Array([2]) }])).status).toBe(200);
		await expectCliError(
			await postChunks(uploadToken, [{ bytes: new Uint8Array([3]) }]),
			403,
			"The project's source maps would pass 256 MiB, the most one project may hold: delete old releases' artifacts first",
		);
	});

	it("a file in a bundle over 16 MiB is 413", async () => {
		const { uploadToken, dsnId } = await projectWithUploadToken();
		const zip = bundleZip([{ url: "~/big.js.map", type: "source", content: new Uint8Array(16 * MiB + 1) }]);
		await expectCliError(await uploadBundle(uploadToken, zip, { projects: [String(dsnId)] }), 413, "~/big.js.map is 16.0 MiB; a file may be at most 16.0 MiB");
	});
});
