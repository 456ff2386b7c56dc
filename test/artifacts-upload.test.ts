import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { call, ownerWithKey, setPlan } from "./helpers";
import { artifactRows, createUploadToken, fillProject, plainUpload, projectWithUploadToken } from "./sourcemapHelpers";

const MiB = 1024 * 1024;
const MAP = JSON.stringify({ version: 3, file: "app.js", sources: ["../src/app.ts"], names: [], mappings: "AAAA" });
const SCRIPT = "console.log(1);\n//# sourceMappingURL=app.js.map\n";
const DEBUG_ID = "E1E8570F7C42515DA5D5D407B0DA4295";

/** A file of exactly `size` bytes that is not a source map. */
const sourceOf = (size: number) => new Uint8Array(size).fill(0x61);

describe("the plain upload", () => {
	it("stores each part by release and URL, with what it is and its source map, and answers 201", async ({ expect }) => {
		const { uploadToken, projectName, keyId } = await projectWithUploadToken();
		const res = await plainUpload(uploadToken, "shop@1.0.0", {
			"~/assets/app.js": `${SCRIPT}//# debugId=${DEBUG_ID}\n`,
			"~/assets/app.js.map": MAP,
			"/assets/readme.txt": "hello",
		});
		expect(res.status).toBe(201);
		const body = await res.json<any>();
		expect(body).toMatchObject({ project_name: projectName, release: "shop@1.0.0" });
		expect(body.artifacts.map((a: any) => [a.url, a.type, a.debug_id, a.source_map_url, a.size])).toEqual([
			["~/assets/app.js", "minified_source", "e1e8570f-7c42-515d-a5d5-d407b0da4295", "~/assets/app.js.map", SCRIPT.length + 45],
			["~/assets/app.js.map", "source_map", null, null, MAP.length],
			["~/assets/readme.txt", "source", null, null, 5],
		]);
		const rows = await artifactRows(keyId);
		expect(rows).toHaveLength(3);
		const object = await env.ARTIFACTS.get(rows.find((r) => r.url === "~/assets/app.js.map")!.object_key);
		expect(await object?.text()).toBe(MAP);
	});

	it("takes the owner's session with project_name, and releases URL-encoded or raw", async ({ expect }) => {
		const { token, projectName, keyId } = await ownerWithKey().then(async (o) => ({
			...o,
			keyId: (await env.DB.prepare("select id from project_keys where project_name = ?").bind(o.projectName).first<{ id: string }>())!.id,
		}));
		expect((await plainUpload(token, "web/2.0 beta", { "~/a.js.map": MAP }, projectName)).status).toBe(201);
		const raw = await call(`/api/releases/web/3.0/artifacts?project_name=${projectName}`, {
			method: "POST",
			token,
			body: (() => {
				const form = new FormData();
				form.append("file", new File([MAP], "~/a.js.map"));
				return form;
			})(),
		});
		expect(raw.status).toBe(201);
		expect((await artifactRows(keyId)).map((r) => r.release).sort()).toEqual(["web/2.0 beta", "web/3.0"]);
	});

	it("a new upload of the same release and URL replaces the file, and its R2 object goes", async ({ expect }) => {
		const { uploadToken, keyId } = await projectWithUploadToken();
		await plainUpload(uploadToken, "1.0.0", { "~/app.js.map": MAP });
		const [first] = await artifactRows(keyId);
		const newer = MAP.replace("AAAA", "AACA");
		expect((await plainUpload(uploadToken, "1.0.0", { "~/app.js.map": newer })).status).toBe(201);
		const rows = await artifactRows(keyId);
		expect(rows).toHaveLength(1);
		expect(await env.ARTIFACTS.get(first.object_key)).toBeNull();
		expect(await (await env.ARTIFACTS.get(rows[0].object_key))?.text()).toBe(newer);
		// Another release keeps its own copy.
		await plainUpload(uploadToken, "1.0.1", { "~/app.js.map": MAP });
		expect(await artifactRows(keyId)).toHaveLength(2);
	});

	it("is refused without a token, with a revoked one, another project's, a project key or another owner's session", async ({ expect }) => {
		const a = await projectWithUploadToken();
		const b = await projectWithUploadToken();
		const files = { "~/app.js.map": MAP };
		const expectError = async (res: Response, status: number, error: string) => {
			expect(res.status).toBe(status);
			expect(await res.json()).toEqual({ error });
		};
		await expectError(await plainUpload(null, "1.0.0", files, a.projectName), 401, "Sign in required: send Authorization: Bearer <session token>");
		await expectError(await plainUpload(b.uploadToken, "1.0.0", files, a.projectName), 403, `This upload token is for another project, not "${a.projectName}"`);
		await expectError(await plainUpload(a.rawKey, "1.0.0", files, a.projectName), 401, "Session is invalid or expired: sign in again");
		await expectError(await plainUpload(b.token, "1.0.0", files, a.projectName), 404, `No project key for project "${a.projectName}"`);
		await expectError(await plainUpload(a.token, "1.0.0", files), 400, "Invalid request: project_name: is required with a session token");
		await expectError(await plainUpload("svcu_nothing", "1.0.0", files), 401, "Upload token is not valid: it was revoked, or never existed");
		// The token's own project by name is fine, and so is no name at all.
		expect((await plainUpload(a.uploadToken, "1.0.0", files, a.projectName)).status).toBe(201);
		expect((await plainUpload(a.uploadToken, "1.0.1", files)).status).toBe(201);
		expect(await artifactRows(b.keyId)).toHaveLength(0);

		await setPlan(a.email, "free", "2000-01-01T00:00:00.000Z");
		await expectError(await plainUpload(a.uploadToken, "1.0.2", files), 402, "The project owner has neither a Pro subscription nor an active trial");
	});

	it("answers bad input with 400 or 415 naming the problem", async ({ expect }) => {
		const { uploadToken } = await projectWithUploadToken();
		const expectError = async (res: Response, status: number, error: string) => {
			expect(res.status).toBe(status);
			expect((await res.json<any>()).error).toBe(error);
		};
		await expectError(await plainUpload(uploadToken, "1.0.0", {}), 400, 'No files: send each one as a part in field "file", named by its URL (~/assets/app.js)');
		await expectError(await plainUpload(uploadToken, "1.0.0", { "~/app.js.map": "{not json" }), 400, "~/app.js.map is not a source map: it is not valid JSON");
		await expectError(
			await plainUpload(uploadToken, "1.0.0", { "~/app.js.map": JSON.stringify({ version: 2, mappings: "" }) }),
			400,
			'~/app.js.map is not a source map: "version" must be 3',
		);
		await expectError(await plainUpload(uploadToken, "1.0.0", { "https://": MAP }), 400, 'File name "https://" is not a URL path: name each file by the URL the browser loads it from, like ~/assets/app.js');
		await expectError(await plainUpload(uploadToken, " ", { "~/a.js": "x" }), 400, "Invalid request: release: is required");
		await expectError(await plainUpload(uploadToken, "r".repeat(501), { "~/a.js": "x" }), 400, "Invalid request: release: must be at most 500 characters");
		const json = await call("/api/releases/1.0.0/artifacts", { method: "POST", token: uploadToken, json: { files: [] } });
		await expectError(json, 415, 'Send multipart/form-data with one part per file in field "file"');
		const broken = await call("/api/releases/1.0.0/artifacts", {
			method: "POST",
			token: uploadToken,
			headers: { "content-type": "multipart/form-data; boundary=x" },
			body: "not multipart at all",
		});
		await expectError(broken, 400, "The body is not valid multipart/form-data");
	});

	// A segment has 1, 4 or 5 fields; the last has a digit for each, and `g`-`z`, digits, `+` and `/` say more of a number follows.
	it.for(["", ";;", "A", "AAAA,CAAC,gBAAA;;EAAAA,C,", "AAAAA;ACAAC"])("a map whose mappings are %j (valid VLQ) is stored", async (mappings, { expect }) => {
		const { uploadToken, keyId } = await projectWithUploadToken();
		const res = await plainUpload(uploadToken, "1.0.0", { "~/app.js.map": JSON.stringify({ version: 3, sources: ["a.ts"], names: ["n"], mappings }) });
		expect(res.status).toBe(201);
		expect((await artifactRows(keyId)).map((r) => r.type)).toEqual(["source_map"]);
	});

	it.for([
		["AAAA,AA!A", 'character 8 ("!") is not base64'],
		["AAAA=", 'character 5 ("=") is not base64'],
		["AAAA;AAÄA", 'character 8 ("Ä") is not base64'],
		["AAAA,AA", "the segment at character 6 has 2 fields, not 1, 4 or 5"],
		["AAA;AAAA", "the segment at character 1 has 3 fields, not 1, 4 or 5"],
		["AAAA;;AAAAAA", "the segment at character 7 has 6 fields, not 1, 4 or 5"],
		["AAAg", "the number ending at character 4 is cut short (its last digit says more follow)"],
		["AAAA,AAg;AAAA", "the number ending at character 8 is cut short (its last digit says more follow)"],
	])("a map whose mappings are %j is refused with 400: %s", async ([mappings, problem], { expect }) => {
		const { uploadToken, keyId } = await projectWithUploadToken();
		const map = JSON.stringify({ version: 3, sources: ["a.ts"], names: [], mappings });
		const res = await plainUpload(uploadToken, "1.0.0", { "~/app.js": SCRIPT, "~/app.js.map": map });
		expect(res.status).toBe(400);
		expect(await res.json()).toEqual({ error: `~/app.js.map is not a source map: "mappings" is not valid VLQ: ${problem}` });
		expect(await artifactRows(keyId)).toHaveLength(0);
	});

	it("an index map whose section's mappings are not valid VLQ is refused with 400", async ({ expect }) => {
		const { uploadToken } = await projectWithUploadToken();
		const section = (mappings: string, line: number) => ({ offset: { line, column: 0 }, map: { version: 3, sources: ["a.ts"], names: [], mappings } });
		const map = JSON.stringify({ version: 3, sections: [section("AAAA", 0), section("AAAA,AA", 1)] });
		const res = await plainUpload(uploadToken, "1.0.0", { "~/app.js.map": map });
		expect(res.status).toBe(400);
		expect((await res.json<any>()).error).toBe('~/app.js.map is not a source map: "sections[1].map.mappings" is not valid VLQ: the segment at character 6 has 2 fields, not 1, 4 or 5');
		const valid = JSON.stringify({ version: 3, sections: [section("AAAA", 0), section("AAAAA", 1)] });
		expect((await plainUpload(uploadToken, "1.0.0", { "~/app.js.map": valid })).status).toBe(201);
	});

	it("concurrent uploads of the same file end with one row and one object: each is stored or told to try again", async ({ expect }) => {
		const { uploadToken, keyId } = await projectWithUploadToken();
		const statuses = await Promise.all(Array.from({ length: 8 }, (_, i) => plainUpload(uploadToken, "1.0.0", { "~/app.js.map": MAP.replace("AAAA", `AA${"ABCDEFGH"[i]}A`) }).then((r) => r.status)));
		for (const status of statuses) expect([201, 409]).toContain(status);
		expect(statuses).toContain(201);
		const rows = await artifactRows(keyId);
		expect(rows).toHaveLength(1);
		const objects = await env.ARTIFACTS.list({ prefix: `artifacts/${keyId}/` });
		expect(objects.objects.map((o) => o.key)).toEqual([rows[0].object_key]);
	});

	it("takes a file of 16 MiB and refuses one byte more with 413", async ({ expect }) => {
		const { uploadToken, keyId } = await projectWithUploadToken();
		expect((await plainUpload(uploadToken, "1.0.0", { "~/big.txt": sourceOf(16 * MiB) })).status).toBe(201);
		const refused = await plainUpload(uploadToken, "1.0.0", { "~/bigger.txt": sourceOf(16 * MiB + 1) });
		expect(refused.status).toBe(413);
		expect(await refused.json()).toEqual({ error: "~/bigger.txt is 16.0 MiB; a file may be at most 16.0 MiB" });
		expect((await artifactRows(keyId)).map((r) => r.size)).toEqual([16 * MiB]);
	});

	it("refuses a body over 24 MiB with 413", async ({ expect }) => {
		const { uploadToken } = await projectWithUploadToken();
		const refused = await plainUpload(uploadToken, "1.0.0", { "~/a.txt": sourceOf(12 * MiB), "~/b.txt": sourceOf(12 * MiB) });
		expect(refused.status).toBe(413);
		expect(await refused.json()).toEqual({ error: `Request body exceeds ${24 * MiB} bytes` });
	});

	it("a project holds 256 MiB: an upload up to it is stored, one byte past it is 403, and what it replaces counts as freed", async ({ expect }) => {
		const { uploadToken, keyId } = await projectWithUploadToken();
		await fillProject(keyId, { bytes: 256 * MiB - 10, files: 1 });
		const refused = await plainUpload(uploadToken, "1.0.0", { "~/a.txt": sourceOf(11) });
		expect(refused.status).toBe(403);
		expect(await refused.json()).toEqual({
			error: "The project would hold 256.0 MiB of source maps and files; the most is 256.0 MiB: delete old releases' artifacts first",
		});
		expect((await plainUpload(uploadToken, "1.0.0", { "~/a.txt": sourceOf(10) })).status).toBe(201);
		// At the cap, a file replacing one of the same size still fits.
		expect((await plainUpload(uploadToken, "1.0.0", { "~/a.txt": sourceOf(10) })).status).toBe(201);
		expect((await plainUpload(uploadToken, "1.0.0", { "~/a.txt": sourceOf(11) })).status).toBe(403);
	});

	it("a project holds 10,000 files: the 10,000th is stored, the 10,001st is 403", async ({ expect }) => {
		const { uploadToken, keyId } = await projectWithUploadToken();
		await fillProject(keyId, { bytes: 9_999, files: 9_999 });
		expect((await plainUpload(uploadToken, "1.0.0", { "~/a.txt": "a" })).status).toBe(201);
		const refused = await plainUpload(uploadToken, "1.0.0", { "~/b.txt": "b" });
		expect(refused.status).toBe(403);
		expect((await refused.json<any>()).error).toBe("The project would hold 10001 files; the most is 10000: delete old releases' artifacts first");
	});

	it("one upload holds 1,000 files; 1,001 is 413", async ({ expect }) => {
		const { uploadToken, keyId } = await projectWithUploadToken();
		const files = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`~/f/${i}.txt`, "x"]));
		expect((await plainUpload(uploadToken, "1.0.0", files(1_000))).status).toBe(201);
		const refused = await plainUpload(uploadToken, "1.0.1", files(1_001));
		expect(refused.status).toBe(413);
		expect(await refused.json()).toEqual({ error: "An upload holds at most 1000 files; this one has 1001" });
		expect(await artifactRows(keyId)).toHaveLength(1_000);
		// 2,001 files written through R2 and D1: seconds on a loaded machine, more than the default 5.
	}, 60_000);
});

describe("the owner's artifacts", () => {
	it("lists them newest first with the project's totals, by release too", async ({ expect }) => {
		const { token, uploadToken, projectName } = await projectWithUploadToken();
		await plainUpload(uploadToken, "1.0.0", { "~/app.js.map": MAP });
		const uploaded = await plainUpload(uploadToken, "1.0.1", { "~/app.js": SCRIPT, "~/app.js.map": MAP }).then((r) => r.json<any>());
		const list = await call(`/api/artifacts?project_name=${projectName}`, { token }).then((r) => r.json<any>());
		// The upload's answer says what the list says, times included.
		const byId = (artifacts: any[]) => Object.fromEntries(artifacts.map((a) => [a.id, a]));
		expect(byId(list.artifacts.slice(0, 2))).toEqual(byId(uploaded.artifacts));
		expect(list).toMatchObject({ total_files: 3, total_bytes: 2 * MAP.length + SCRIPT.length, cap_bytes: 256 * MiB, cap_files: 10_000 });
		expect(list.artifacts.map((a: any) => a.release)).toEqual(["1.0.1", "1.0.1", "1.0.0"]);
		expect(Object.keys(list.artifacts[0]).sort()).toEqual(["created_at", "debug_id", "id", "release", "size", "source_map_url", "type", "url", "used_at"]);
		const one = await call(`/api/artifacts?project_name=${projectName}&release=1.0.0`, { token }).then((r) => r.json<any>());
		expect(one.artifacts.map((a: any) => a.url)).toEqual(["~/app.js.map"]);
	});

	it("deletes one, or every one of a release, with their R2 objects; another owner's are 404", async ({ expect }) => {
		const { token, uploadToken, projectName, keyId } = await projectWithUploadToken();
		const other = await projectWithUploadToken();
		await plainUpload(uploadToken, "1.0.0", { "~/app.js": SCRIPT, "~/app.js.map": MAP });
		await plainUpload(uploadToken, "1.0.1", { "~/app.js.map": MAP });
		const rows = await artifactRows(keyId);
		const target = rows.find((r) => r.release === "1.0.1")!;

		expect((await call(`/api/artifacts/${target.id}?project_name=${other.projectName}`, { method: "DELETE", token: other.token })).status).toBe(404);
		expect((await call(`/api/artifacts/${target.id}?project_name=${projectName}`, { method: "DELETE", token: other.token })).status).toBe(404);
		const deleted = await call(`/api/artifacts/${target.id}?project_name=${projectName}`, { method: "DELETE", token });
		expect(deleted.status).toBe(200);
		expect(await deleted.json()).toEqual({ deleted: 1 });
		expect(await env.ARTIFACTS.get(target.object_key)).toBeNull();
		expect((await call(`/api/artifacts/${target.id}?project_name=${projectName}`, { method: "DELETE", token })).status).toBe(404);

		const release = await call(`/api/artifacts?project_name=${projectName}&release=1.0.0`, { method: "DELETE", token });
		expect(await release.json()).toEqual({ deleted: 2 });
		expect(await artifactRows(keyId)).toHaveLength(0);
		for (const row of rows) expect(await env.ARTIFACTS.get(row.object_key)).toBeNull();
		expect((await call(`/api/artifacts?project_name=${projectName}`, { method: "DELETE", token })).status).toBe(400);
	});

	it("revoking the project key deletes its artifacts and their R2 objects", async ({ expect }) => {
		const { token, uploadToken, projectName, keyId } = await projectWithUploadToken();
		await plainUpload(uploadToken, "1.0.0", { "~/app.js": SCRIPT, "~/app.js.map": MAP });
		const rows = await artifactRows(keyId);
		await call(`/api/feedback-key?project_name=${projectName}`, { method: "DELETE", token });
		expect(await artifactRows(keyId)).toHaveLength(0);
		expect((await env.ARTIFACTS.list({ prefix: `artifacts/${keyId}/` })).objects).toHaveLength(0);
		for (const row of rows) expect(await env.ARTIFACTS.get(row.object_key)).toBeNull();
	});

	it("needs the owner's session, a project name and a project of the owner's", async ({ expect }) => {
		const { token, uploadToken, projectName } = await projectWithUploadToken();
		const other = await projectWithUploadToken();
		expect((await call("/api/artifacts", { token })).status).toBe(400);
		expect((await call(`/api/artifacts?project_name=${other.projectName}`, { token })).status).toBe(404);
		expect((await call(`/api/artifacts?project_name=${projectName}&release=${"r".repeat(501)}`, { token })).status).toBe(400);
		expect((await call(`/api/artifacts?project_name=${projectName}`, { token: uploadToken })).status).toBe(401);
		expect((await call(`/api/artifacts?project_name=${projectName}`)).status).toBe(401);
		const owner = await ownerWithKey();
		await createUploadToken(owner.token, owner.projectName);
		await setPlan(owner.email, "free", "2000-01-01T00:00:00.000Z");
		expect((await call(`/api/artifacts?project_name=${owner.projectName}`, { token: owner.token })).status).toBe(402);
	});
});
