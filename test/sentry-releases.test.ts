// Sentry's release calls (sentry-cli's release steps, the bundler plugins): accepted with an upload
// token of the project, answered as Sentry answers, recorded nowhere. e2e/sourcemaps.test.ts runs
// the real sentry-cli against them.
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { call } from "./helpers";
import { ingestOk } from "./logHelpers";
import { projectWithUploadToken } from "./sourcemapHelpers";

type Json = Record<string, any>;

describe("Sentry's release calls", () => {
	it("201 for a new release, 200 to read or finalize it, 201 for a deploy, no repositories, and nothing stored", async ({ expect }) => {
		const p = await projectWithUploadToken();
		const artifactCount = async () => (await env.DB.prepare("SELECT count(*) AS n FROM artifacts WHERE key_id = ?").bind(p.keyId).first<{ n: number }>())?.n;
		const created = await call("/api/0/organizations/any/releases/", { method: "POST", token: p.uploadToken, json: { version: "web@3.0.0", projects: [String(p.dsnId)] } });
		expect(created.status).toBe(201);
		expect(await created.json<Json>()).toMatchObject({ version: "web@3.0.0", dateReleased: null, projects: [{ slug: String(p.dsnId), name: p.projectName }] });

		const byProject = await call(`/api/0/projects/any/${p.dsnId}/releases/`, { method: "POST", token: p.uploadToken, json: { version: "web@3.0.0" } });
		expect(byProject.status).toBe(201);
		for (const path of ["/api/0/organizations/any/releases/web%403.0.0/", `/api/0/projects/any/${p.dsnId}/releases/web%403.0.0/`]) {
			const finalized = await call(path, { method: "PUT", token: p.uploadToken, json: { dateReleased: "2026-11-27T12:00:00Z" } });
			expect(finalized.status).toBe(200);
			expect((await finalized.json<Json>()).version).toBe("web@3.0.0");
			expect((await call(path, { token: p.uploadToken })).status).toBe(200);
		}
		const deploy = await call("/api/0/organizations/any/releases/web%403.0.0/deploys/", { method: "POST", token: p.uploadToken, json: { environment: "production" } });
		expect(deploy.status).toBe(201);
		expect(await deploy.json<Json>()).toMatchObject({ environment: "production", id: expect.any(String) });
		const repos = await call("/api/0/organizations/any/repos/", { token: p.uploadToken });
		expect(await repos.json()).toEqual([]);
		expect(await artifactCount()).toBe(0);
	});

	it("the API root says what the token may do, as sentry-cli info reads it; 401 for another token", async ({ expect }) => {
		const p = await projectWithUploadToken();
		for (const path of ["/api/0/", "/api/0"]) {
			const root = await call(path, { token: p.uploadToken });
			expect(root.status).toBe(200);
			expect(await root.json()).toEqual({ version: "0", auth: { scopes: ["project:releases"] }, user: null });
		}
		const session = await call("/api/0/", { token: p.token });
		expect(session.status).toBe(401);
		expect((await session.json<Json>()).detail).toMatch(/^Not an upload token/);
		expect((await call("/api/0/")).status).toBe(401);
	});

	it("lists the releases the project's events named, most recently seen first, as sentry-cli releases list reads them", async ({ expect }) => {
		const p = await projectWithUploadToken();
		const other = await projectWithUploadToken();
		const empty = await call(`/api/0/projects/any/${p.dsnId}/releases/`, { token: p.uploadToken });
		expect(empty.status).toBe(200);
		expect(await empty.json()).toEqual([]);
		await ingestOk(p.rawKey, { message: "first", release: "web@1.0.0", timestamp: new Date(Date.now() - 60_000).toISOString() });
		await ingestOk(p.rawKey, { message: "second", release: "web@1.1.0" });
		for (const path of [`/api/0/projects/any/${p.dsnId}/releases/`, `/api/0/projects/any/${p.projectName}/releases/`, "/api/0/organizations/any/releases/"]) {
			const listed = await call(path, { token: p.uploadToken });
			expect(listed.status, path).toBe(200);
			const releases = await listed.json<Json[]>();
			expect(releases.map((release) => release.version)).toEqual(["web@1.1.0", "web@1.0.0"]);
			expect(releases[0]).toMatchObject({ shortVersion: "web@1.1.0", projects: [{ slug: String(p.dsnId), name: p.projectName }] });
		}
		expect((await call(`/api/0/projects/any/${other.dsnId}/releases/`, { token: p.uploadToken })).status).toBe(403);
		expect((await call(`/api/0/projects/any/${p.dsnId}/releases/`, { token: p.token })).status).toBe(401);
	});

	it("401 without an upload token, 403 for another project, 400 without a version or an environment", async ({ expect }) => {
		const p = await projectWithUploadToken();
		const other = await projectWithUploadToken();
		expect((await call("/api/0/organizations/any/releases/", { method: "POST", json: { version: "v1" } })).status).toBe(401);
		expect((await call("/api/0/organizations/any/repos/", { token: p.token })).status).toBe(401);

		const wrong = await call("/api/0/organizations/any/releases/", { method: "POST", token: p.uploadToken, json: { version: "v1", projects: [String(other.dsnId)] } });
		expect(wrong.status).toBe(403);
		expect((await wrong.json<Json>()).error).toBe(`This upload token is for project ${p.dsnId} (${p.projectName}), not ${other.dsnId}: set SENTRY_PROJECT to ${p.dsnId}`);
		expect((await call(`/api/0/projects/any/${other.dsnId}/releases/`, { method: "POST", token: p.uploadToken, json: { version: "v1" } })).status).toBe(403);

		for (const json of [{}, { version: " " }, { version: 5 }]) {
			expect((await call("/api/0/organizations/any/releases/", { method: "POST", token: p.uploadToken, json })).status).toBe(400);
		}
		const notAProject = await call("/api/0/organizations/any/releases/", { method: "POST", token: p.uploadToken, json: { version: "v1", projects: [{ slug: "web" }] } });
		expect(notAProject.status).toBe(400);
		expect((await notAProject.json<Json>()).error).toBe("Invalid request: projects.0: must be text or a number");
		expect((await call("/api/0/organizations/any/releases/v1/deploys/", { method: "POST", token: p.uploadToken, json: {} })).status).toBe(400);
		expect((await call("/api/0/organizations/any/releases/v1%E0%A4%A/", { token: p.uploadToken })).status).toBe(400);
	});

	it.for([
		[500, 201, 200],
		[501, 400, 400],
	])("a version of %d characters, as every release name: %d in the body, %d in the path", async ([length, inBody, inPath], { expect }) => {
		const p = await projectWithUploadToken();
		const version = "v".repeat(length);
		expect((await call("/api/0/organizations/any/releases/", { method: "POST", token: p.uploadToken, json: { version } })).status).toBe(inBody);
		expect((await call(`/api/0/organizations/any/releases/${version}/`, { token: p.uploadToken })).status).toBe(inPath);
		expect((await call("/api/0/organizations/any/releases/", { method: "POST", token: p.uploadToken, body: "{", headers: { "content-type": "application/json" } })).status).toBe(400);
	});
});
