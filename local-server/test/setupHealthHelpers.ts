// What the setup-health tests share: a server that asks a local npm registry for the latest
// logger (1.2.0 is published), and workspaces written into temporary folders.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { closedAfterEachTest, ownerCall, type TestServer } from "./helpers.js";
import { type LocalRegistry, startLocalRegistry } from "./localRegistry.js";

export const KIB = 1024;
export const MIB = 1024 * KIB;

/** Registers the suite's hooks: one local registry for the file, servers closed after each test. */
export function scanningServers() {
	let registry: LocalRegistry;
	beforeAll(async () => {
		registry = await startLocalRegistry();
		registry.publish("1.2.0");
	});
	afterAll(() => registry?.close());
	const { server } = closedAfterEachTest();
	return {
		registry: () => registry,
		server,
		serverWithRegistry: (url = registry.url, log: (line: string) => void = () => {}) => server({ env: { SVC_NPM_REGISTRY: url }, log }),
	};
}

/** Writes files (relative path: content) under root. */
export function writeTree(root: string, files: Record<string, string>) {
	for (const [rel, text] of Object.entries(files)) {
		fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
		fs.writeFileSync(path.join(root, rel), text);
	}
}

export const json = (value: unknown) => JSON.stringify(value, null, 2);

/** A file of `size` zero bytes that takes no room on disk. */
export function sparseFile(file: string, size: number) {
	fs.writeFileSync(file, "");
	fs.truncateSync(file, size);
}

export async function addWorkspace(t: TestServer, dir: string) {
	const r = await ownerCall(t, "POST", "/api/workspaces", { path: dir });
	expect(r.status).toBe(201);
	return r.json.id as string;
}

export async function scan(t: TestServer, id: string, force = false) {
	const r = await ownerCall(t, "GET", `/api/workspace/setup-health?workspaceId=${id}${force ? "&force=1" : ""}`);
	if (r.status !== 200) throw new Error(`scan: ${r.status} ${r.text}`);
	return r;
}

export const byDir = (answer: any) => Object.fromEntries(answer.packages.map((p: any) => [p.dir, p]));
export const codes = (p: any) => p.findings.map((f: any) => f.code);
