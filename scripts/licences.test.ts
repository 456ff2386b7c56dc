import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, it } from "vitest";
import { isPermissive, productionDependencies } from "./licences";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("the licence judge", () => {
	it.for([
		"MIT",
		"ISC",
		"BSD-2-Clause",
		"BSD-3-Clause",
		"Apache-2.0",
		"Unlicense",
		"0BSD",
		"CC0-1.0",
		"(MIT OR Apache-2.0)",
		"(MIT OR GPL-3.0-or-later)",
		"(MIT AND BSD-3-Clause)",
	])("takes %s", (expression, { expect }) => {
		expect(isPermissive(expression)).toBe(true);
	});

	it.for([
		"AGPL-3.0-or-later",
		"GPL-3.0-only",
		"GPL-2.0",
		"LGPL-3.0-or-later",
		"SSPL-1.0",
		"BUSL-1.1",
		"(MIT AND GPL-3.0-only)",
		"CC-BY-4.0",
		"UNLICENSED",
		"SEE LICENSE IN LICENSE.md",
		"",
	])("refuses %j", (expression, { expect }) => {
		expect(isPermissive(expression)).toBe(false);
	});

	it("refuses a package that declares no licence", ({ expect }) => {
		expect(isPermissive(undefined)).toBe(false);
	});
});

describe("the production dependency walk", () => {
	const trees: string[] = [];
	afterAll(() => {
		for (const dir of trees) rmSync(dir, { recursive: true, force: true });
	});

	/** A project on disk: package.json contents by directory. */
	function tree(packages: Record<string, object>): string {
		const root = mkdtempSync(join(tmpdir(), "svc-licences-"));
		trees.push(root);
		for (const [dir, manifest] of Object.entries(packages)) {
			mkdirSync(join(root, dir), { recursive: true });
			writeFileSync(join(root, dir, "package.json"), JSON.stringify(manifest));
		}
		return root;
	}

	it("finds what dependencies bring in, nested and from every workspace, and no dev dependency", ({ expect }) => {
		const root = tree({
			".": { name: "app", workspaces: ["clients/*"], dependencies: { a: "1" }, devDependencies: { dev: "1" } },
			"clients/x": { name: "x", dependencies: { c: "1" }, optionalDependencies: { absent: "1" } },
			"node_modules/a": { name: "a", version: "1.0.0", license: "MIT", dependencies: { b: "1" } },
			"node_modules/a/node_modules/b": { name: "b", version: "2.0.0", license: "AGPL-3.0-only" },
			"node_modules/c": { name: "c", version: "1.0.0", licenses: [{ type: "GPL-2.0" }], peerDependencies: { a: "1" } },
			"node_modules/dev": { name: "dev", version: "1.0.0", license: "GPL-3.0-only" },
		});
		const found = productionDependencies(root);
		expect(found.map((p) => [p.name, p.license, p.requiredBy]).sort()).toEqual([
			["a", "MIT", "app"],
			["b", "AGPL-3.0-only", "app"],
			["c", "GPL-2.0", "x"],
		]);
		expect(found.filter((p) => !isPermissive(p.license)).map((p) => p.name).sort()).toEqual(["b", "c"]);
	});

	it("refuses to answer when a required dependency is not installed", ({ expect }) => {
		const root = tree({ ".": { name: "app", dependencies: { missing: "1" } } });
		expect(() => productionDependencies(root)).toThrow("missing, a dependency of app, is not installed");
	});
});

describe("what the project ships", () => {
	const shipped = productionDependencies(ROOT);

	it("walks the Worker's, the console's and svc-local's dependencies, not the dev tools", ({ expect }) => {
		const names = new Set(shipped.map((p) => p.name));
		for (const name of ["zod", "isbot", "ua-parser-js", "react", "react-dom", "scheduler", "ws", "qrcode"]) {
			expect(names, name).toContain(name);
		}
		for (const name of ["vitest", "wrangler", "playwright-core", "@sparticuz/chromium", "typescript"]) {
			expect(names, name).not.toContain(name);
		}
	});

	it("carries only permissive licences", ({ expect }) => {
		const refused = shipped
			.filter((p) => !isPermissive(p.license))
			.map((p) => `${p.name}@${p.version} (${p.license || "no licence"}), via ${p.requiredBy}`);
		expect(refused).toEqual([]);
	});
});
