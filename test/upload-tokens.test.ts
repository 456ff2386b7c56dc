import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { call, createProjectKey, ownerWithKey, setPlan, signUp } from "./helpers";
import { ingest } from "./logHelpers";
import { createUploadToken, plainUpload, projectWithUploadToken } from "./sourcemapHelpers";

const MAP = JSON.stringify({ version: 3, sources: ["a.ts"], names: [], mappings: "AAAA" });

describe("upload tokens (owner)", () => {
	it("create answers the raw token once; the list shows hints; only its SHA-256 is stored", async ({ expect }) => {
		const { token, projectName } = await ownerWithKey();
		const created = await call("/api/upload-tokens", { method: "POST", token, json: { project_name: projectName } });
		expect(created.status).toBe(201);
		expect(created.headers.get("cache-control")).toBe("no-store");
		expect(created.headers.get("pragma")).toBe("no-cache");
		const body = await created.json<any>();
		expect(body.token).toMatch(/^svcu_[A-Za-z0-9]{43}$/);
		expect(Object.keys(body).sort()).toEqual(["created_at", "id", "project_name", "token", "token_hint"]);
		expect(body).toMatchObject({ project_name: projectName, token_hint: body.token.slice(-4) });

		const list = await call(`/api/upload-tokens?project_name=${projectName}`, { token });
		expect(list.status).toBe(200);
		const text = await list.text();
		expect(text).not.toContain(body.token);
		expect(JSON.parse(text)).toEqual({ tokens: [{ id: body.id, project_name: projectName, token_hint: body.token_hint, created_at: body.created_at }] });

		const stored = await env.DB.prepare("select * from upload_tokens where id = ?").bind(body.id).first<Record<string, string>>();
		const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body.token));
		expect(stored?.token_hash).toBe([...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join(""));
		expect(JSON.stringify(stored)).not.toContain(body.token);
	});

	it("revoke stops the token at once; a second revoke and another owner's revoke are 404", async ({ expect }) => {
		const { token, projectName, uploadToken } = await projectWithUploadToken();
		expect((await plainUpload(uploadToken, "1.0.0", { "~/a.js.map": MAP })).status).toBe(201);
		const [{ id }] = (await call(`/api/upload-tokens?project_name=${projectName}`, { token }).then((r) => r.json<any>())).tokens;

		const stranger = await signUp();
		expect((await call(`/api/upload-tokens/${id}`, { method: "DELETE", token: stranger.token })).status).toBe(404);
		const revoked = await call(`/api/upload-tokens/${id}`, { method: "DELETE", token });
		expect(revoked.status).toBe(200);
		expect(await revoked.json()).toEqual({ deleted: true, id });
		expect((await call(`/api/upload-tokens/${id}`, { method: "DELETE", token })).status).toBe(404);
		expect((await call("/api/upload-tokens/not-a-uuid", { method: "DELETE", token })).status).toBe(404);

		const refused = await plainUpload(uploadToken, "1.0.0", { "~/a.js.map": MAP });
		expect(refused.status).toBe(401);
		expect(await refused.json()).toEqual({ error: "Upload token is not valid: it was revoked, or never existed" });
	});

	it("a project holds at most 20 tokens: the 20th is created, the 21st is 403", async ({ expect }) => {
		const { token, projectName } = await ownerWithKey();
		for (let i = 0; i < 20; i++) await createUploadToken(token, projectName);
		const refused = await call("/api/upload-tokens", { method: "POST", token, json: { project_name: projectName } });
		expect(refused.status).toBe(403);
		expect(await refused.json()).toEqual({ error: "A project holds at most 20 upload tokens: revoke one to add another" });
	});

	it("needs a session with access, and a project of the owner's", async ({ expect }) => {
		const owner = await ownerWithKey();
		const { projectName } = await createProjectKey((await signUp()).token);
		const create = (token: string | undefined, json: unknown) => call("/api/upload-tokens", { method: "POST", token, json });
		expect((await create(undefined, { project_name: owner.projectName })).status).toBe(401);
		expect((await create(owner.rawKey, { project_name: owner.projectName })).status).toBe(401);
		expect((await create(owner.token, { project_name: projectName })).status).toBe(404);
		expect((await create(owner.token, { project_name: "" })).status).toBe(400);
		expect((await call("/api/upload-tokens", { token: owner.token })).status).toBe(400);
		expect((await call(`/api/upload-tokens?project_name=${projectName}`, { token: owner.token })).status).toBe(404);

		const uploadToken = await createUploadToken(owner.token, owner.projectName);
		expect((await create(uploadToken, { project_name: owner.projectName })).status).toBe(401);
		await setPlan(owner.email, "free", "2000-01-01T00:00:00.000Z");
		expect((await create(owner.token, { project_name: owner.projectName })).status).toBe(402);
	});

	it("an upload token is no session and no project key", async ({ expect }) => {
		const { uploadToken } = await projectWithUploadToken();
		expect((await call("/api/auth/me", { token: uploadToken })).status).toBe(401);
		expect((await call("/api/feedback-keys", { token: uploadToken })).status).toBe(401);
		expect((await ingest(uploadToken, { message: "hello" })).status).toBe(401);
	});

	it("revoking the project key revokes its upload tokens", async ({ expect }) => {
		const { token, projectName, uploadToken } = await projectWithUploadToken();
		expect((await call(`/api/feedback-key?project_name=${projectName}`, { method: "DELETE", token })).status).toBe(200);
		expect((await plainUpload(uploadToken, "1.0.0", { "~/a.js.map": MAP })).status).toBe(401);
	});
});
