// The setup-health scan over real HTTP, of workspaces generated in temporary
// folders, where a package reports its errors other than with its own logger
// or is no package of the owner's: a library of the workspace, an app that
// reports with a Sentry SDK, a Cloudflare Worker's bindings, the folders
// frameworks and tools generate, a logger that only tests start, and one
// started where it is not listed. The rest is in setupHealth.test.ts.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./helpers.js";
import { addWorkspace, byDir, codes, json, scan, scanningServers, writeTree } from "./setupHealthHelpers.js";

const { serverWithRegistry } = scanningServers();

/** A key of a project key's shape (svc_ and 43 letters and digits) that ends in `tail`. */
const keyEndingIn = (tail: string) => `svc_${"K".repeat(43 - tail.length)}${tail}`;

describe("setup-health scan of what reports otherwise", () => {
	it("a library that another package of the workspace depends on needs no logger of its own; an app without one does", async () => {
		const root = tempDir("svc-libs-");
		const key = keyEndingIn("wxyz");
		writeTree(root, {
			"package.json": json({ name: "acme", private: true, workspaces: ["apps/*", "packages/*"] }),
			"node_modules/@svcapp/logger/package.json": json({ name: "@svcapp/logger", version: "1.2.0" }),
			"apps/web/package.json": json({ name: "@acme/web", dependencies: { "@svcapp/logger": "^1.2.0", "@acme/ui": "*" } }),
			"apps/web/.env": `SVC_KEY=${key}\n`,
			"apps/web/src/main.ts": 'import { init } from "@svcapp/logger";\ninit({ key: process.env.SVC_KEY, endpoint: "https://svc.example.com" });\n',
			"apps/admin/package.json": json({ name: "@acme/admin", dependencies: { react: "19.0.0" }, devDependencies: { "@acme/config": "*" } }),
			"packages/ui/package.json": json({ name: "@acme/ui", version: "0.0.0" }),
			"packages/config/package.json": json({ name: "@acme/config", version: "0.0.0" }),
			// Named like a dependency of nobody here: still a package that reports nothing.
			"packages/orphan/package.json": json({ name: "@acme/orphan", version: "0.0.0" }),
		});
		const t = await serverWithRegistry();
		const answer = (await scan(t, await addWorkspace(t, root))).json;
		const p = byDir(answer);
		expect(p["packages/ui"].findings).toEqual([
			{
				code: "library_of_workspace",
				severity: "info",
				message: "A library of this workspace, used by apps/web: its errors are reported by the logger of the package that uses it.",
				action: "Nothing to do here; set the logger up in apps/web.",
			},
		]);
		expect(p["packages/ui"].needsAttention).toBe(false);
		expect(codes(p["packages/config"])).toEqual(["library_of_workspace"]);
		expect(p["packages/config"].findings[0].message).toContain("used by apps/admin");
		expect(codes(p["apps/admin"])).toEqual(["logger_not_listed"]);
		expect(codes(p["packages/orphan"])).toEqual(["logger_not_listed"]);
		expect(p["apps/web"].needsAttention).toBe(false);
		expect(answer.packages.filter((x: any) => x.needsAttention).map((x: any) => x.dir)).toEqual(["apps/admin", "packages/orphan"]);
	});

	it("a logger that only tests start is not set up: the app that runs never calls init", async () => {
		const root = tempDir("svc-tests-only-");
		const init = (key: string) => `import * as logger from "@svcapp/logger";\nlogger.init({ key: "${key}", endpoint: "http://127.0.0.1:8787" });\n`;
		const app = { "@svcapp/logger": "^1.2.0" };
		writeTree(root, {
			"node_modules/@svcapp/logger/package.json": json({ name: "@svcapp/logger", version: "1.2.0" }),
			"api/package.json": json({ name: "api", dependencies: app }),
			"api/src/server.js": 'import * as logger from "@svcapp/logger";\nlogger.captureMessage("up");\n',
			"api/test/setup.js": init(keyEndingIn("test")),
			"api/src/server.test.js": init(keyEndingIn("unit")),
			// A package named like a folder of tests is no test: its own files count.
			"e2e/package.json": json({ name: "e2e-runner", dependencies: app }),
			"e2e/src/main.js": init(keyEndingIn("e2e0")),
		});
		const t = await serverWithRegistry();
		const p = byDir((await scan(t, await addWorkspace(t, root))).json);
		expect(p.api.logger.configured).toEqual({ ok: false, init: null, key: null, endpoint: null });
		expect(p.api.findings.find((f: any) => f.code === "logger_not_initialised")).toMatchObject({
			severity: "error",
			message: "api/src/server.js imports @svcapp/logger but no call to its init was found. Only tests call it (api/src/server.test.js, api/test/setup.js), which the app does not run.",
		});
		expect(p.e2e.logger.configured).toMatchObject({ ok: true, init: "e2e/src/main.js" });
	});

	it("a logger started where it is not listed: from a monorepo root's dependency or a page's script is set up, else it needs listing", async () => {
		const root = tempDir("svc-unlisted-");
		const key = keyEndingIn("abcd");
		const start = 'import { init } from "@svcapp/logger";\ninit({ key: process.env.SVC_KEY, endpoint: "https://svc.example.com" });\n';
		writeTree(root, {
			"package.json": json({ name: "acme", private: true, workspaces: ["platform", "sites/*", "tools/*"] }),
			".env": `SVC_KEY=${key}\n`,
			// A monorepo of its own that lists the logger at its root for its packages.
			"platform/package.json": json({ name: "platform", private: true, workspaces: ["web"], dependencies: { "@svcapp/logger": "^1.2.0" } }),
			"platform/node_modules/@svcapp/logger/package.json": json({ name: "@svcapp/logger", version: "1.2.0" }),
			"platform/web/package.json": json({ name: "web" }),
			"platform/web/src/main.js": start,
			// A site that serves the browser script itself.
			"sites/landing/package.json": json({ name: "landing", devDependencies: { vite: "^5.0.0" } }),
			"sites/landing/index.html": `<script src="/svc-logger.browser.js"></script>\n<script>svcLogger.init({ key: "${key}", endpoint: "https://svc.example.com" });</script>\n`,
			// Nothing above lists it: it runs only while something else installs it.
			"tools/cli/package.json": json({ name: "cli" }),
			"tools/cli/src/main.js": start,
		});
		const t = await serverWithRegistry();
		const p = byDir((await scan(t, await addWorkspace(t, root))).json);
		expect(p.platform.findings).toEqual([
			{
				code: "logger_started_in_packages",
				severity: "info",
				message: "Listed here for the packages of this workspace that start it: platform/web.",
				action: "Nothing to do here; their rows say how each one is set up.",
			},
		]);
		expect(p["platform/web"].logger.configured).toEqual({
			ok: true,
			init: "platform/web/src/main.js",
			key: "found in .env (…abcd)",
			endpoint: "found in platform/web/src/main.js (https://svc.example.com)",
		});
		expect(p["platform/web"].findings).toEqual([
			{
				code: "logger_listed_above",
				severity: "info",
				message: "platform/web/src/main.js starts @svcapp/logger, which platform lists and installs for this package.",
				action: "Nothing to do; listing it here too (`npm install @svcapp/logger` in platform/web) keeps this package working on its own.",
			},
		]);
		expect(p["sites/landing"].logger.configured).toMatchObject({ ok: true, init: "sites/landing/index.html" });
		expect(codes(p["sites/landing"])).toEqual(["logger_script", "key_in_source"]);
		expect(p["tools/cli"].findings[0]).toMatchObject({
			code: "logger_not_listed",
			severity: "warning",
			message: "tools/cli/src/main.js starts @svcapp/logger, but this package does not list it: it works only while something else installs it.",
		});
		expect(Object.values(p).filter((x: any) => x.needsAttention).map((x: any) => x.dir)).toEqual(["tools/cli"]);
	});

	it("an init call only inside a string (a snippet shown to users, a docs page) sets nothing up; one in code beside regular expressions and template literals does", async () => {
		const root = tempDir("svc-strings-");
		const key = keyEndingIn("strs");
		const call = 'init({ key: process.env.SVC_KEY, endpoint: "https://svc.example.com" })';
		const sources: Record<string, [string, string]> = {
			// The app imports the logger; its init is only in the text it shows.
			snippet: ["src/index.js", `import { init } from "@svcapp/logger";\nexport const usage = '${call}';\nexport const help = \`Then call init({ key: "${key}", endpoint: "https://svc.example.com" }).\`;\n`],
			// Import and call both in a string: the file does not use the logger at all.
			docs: ["src/docs.js", `export const example = \`import { init } from "@svcapp/logger";\n${call};\`;\n`],
			// A page that shows the browser script's call as text, with no script.
			page: ["index.html", `<pre><code>&lt;script src="/svc-logger.browser.js"&gt;\nsvcLogger.init({ key: "${key}", endpoint: "https://svc.example.com" });</code></pre>\n`],
			// Quotes in a regular expression and a template literal before the call are no strings around it.
			code: ["src/index.js", `import { init } from "@svcapp/logger";\nconst quotes = /["'\`]/g;\nconst label = \`svc \${"'"} \${quotes.source}\`;\nconst half = 1 / 2; // "\n${call};\n`],
			// A call inside a template literal's \${…} is code.
			template: ["src/index.js", `import { init } from "@svcapp/logger";\nconsole.log(\`started: \${${call} ?? "yes"}\`);\n`],
			// A component's text that tells how to call it is no call (JSX's text is data).
			jsx: ["src/App.jsx", `import { init } from "@svcapp/logger";\nexport const Help = () => <p className="help">Then call init(options) once, before the app renders.</p>;\n`],
			// TypeScript's type assertions and generics are no JSX: the call after them is code.
			typed: ["src/index.ts", `import { init } from "@svcapp/logger";\nconst settings = <Record<string, string>>{};\nconst ratio = <number>(settings.a as unknown) / 2;\n${call};\n`],
		};
		const files: Record<string, string> = { ".env": `SVC_KEY=${key}\n` };
		for (const [name, [file, text]] of Object.entries(sources)) {
			files[`${name}/package.json`] = json({ name, dependencies: { "@svcapp/logger": "^1.2.0" } });
			files[`${name}/node_modules/@svcapp/logger/package.json`] = json({ name: "@svcapp/logger", version: "1.2.0" });
			files[`${name}/.env`] = `SVC_KEY=${key}\n`;
			files[`${name}/${file}`] = text;
		}
		writeTree(root, files);
		const t = await serverWithRegistry();
		const p = byDir((await scan(t, await addWorkspace(t, root))).json);
		for (const name of ["snippet", "docs", "page", "jsx"]) {
			expect(p[name].logger.configured, name).toEqual({ ok: false, init: null, key: null, endpoint: null });
			expect(codes(p[name]), name).toEqual(["logger_not_initialised"]);
		}
		expect(p.snippet.findings[0].message).toBe("snippet/src/index.js imports @svcapp/logger but no call to its init was found.");
		// What only a string names is no import either.
		expect(p.docs.findings[0].message).not.toContain("docs/src/docs.js");
		for (const [name, file] of [["code", "src/index.js"], ["template", "src/index.js"], ["typed", "src/index.ts"]]) {
			expect(p[name].logger.configured, name).toEqual({ ok: true, init: `${name}/${file}`, key: `found in ${name}/.env (…strs)`, endpoint: `found in ${name}/${file} (https://svc.example.com)` });
			expect(p[name].findings, name).toEqual([]);
		}
	});

	it("svc's own kind of repository: a root whose Sentry SDK only tests import, and the logger's own package, need nothing; a .env linked from out of the workspace is there, unread", async () => {
		const root = tempDir("svc-self-");
		const away = tempDir("svc-away-");
		writeTree(away, { "app.env": "SVC_KEY=whatever\nSENTRY_DSN=whatever\n" });
		writeTree(root, {
			"package.json": json({ name: "svc", private: true, workspaces: ["apps/*", "clients/*"], devDependencies: { "@sentry/browser": "^11", "@sentry/node": "^11" } }),
			"e2e/sentry.test.ts": 'import * as Sentry from "@sentry/browser";\nSentry.init({ dsn: process.env.DSN });\n',
			"test/sentryHelpers.ts": 'import * as Sentry from "@sentry/node";\nexport const s = Sentry;\n',
			"workers/index.ts": "export default { fetch: () => new Response('ok') };\n",
			"node_modules/@svcapp/logger/package.json": json({ name: "@svcapp/logger", version: "1.2.0" }),
			"clients/logger/package.json": json({ name: "@svcapp/logger", version: "1.2.0" }),
			"clients/logger/src/index.ts": "export function init() {}\n",
			"apps/api/package.json": json({ name: "api", dependencies: { "@svcapp/logger": "^1.2.0" } }),
			"apps/api/src/main.ts": 'import { init } from "@svcapp/logger";\ninit({ key: process.env.SVC_KEY, endpoint: "https://svc.example.com" });\n',
			"apps/web/package.json": json({ name: "web", dependencies: { "@sentry/react": "^8" } }),
		});
		fs.symlinkSync(path.join(away, "app.env"), path.join(root, "apps/api/.env"));
		fs.symlinkSync(path.join(away, "app.env"), path.join(root, "apps/web/.env"));
		const t = await serverWithRegistry();
		const id = await addWorkspace(t, root);
		const p = byDir((await scan(t, id)).json);
		expect(p["."].findings).toEqual([]);
		expect(p["clients/logger"].findings).toEqual([
			{ code: "logger_itself", severity: "info", message: "This package is @svcapp/logger itself.", action: "Nothing to do: the packages that use it list it." },
		]);
		expect(p["clients/logger"].needsAttention).toBe(false);

		// Not "no .env file sets it": the file is there, a link the scan does not follow.
		expect(p["apps/api"].logger.configured).toMatchObject({ ok: true, key: "SVC_KEY, not checked: apps/api/.env is a link out of the workspace" });
		expect(p["apps/api"].findings).toEqual([
			{
				code: "env_link_not_read",
				severity: "info",
				message: "apps/api/.env is a symbolic link to a file out of the workspace, which the scan does not read: whether SVC_KEY is set there is not checked.",
				action: "Nothing to do if it sets SVC_KEY; for the scan to check it, keep the file in the workspace (or link to one there).",
			},
		]);
		expect(codes(p["apps/web"])).toEqual(["sentry_dsn_not_checked"]);
		expect(p["apps/web"].findings[0].message).toContain("apps/web/.env is a symbolic link to a file out of the workspace, which the scan does not read");
		expect(p["apps/web"].needsAttention).toBe(false);

		// A root whose own code imports the SDK is an app like any other.
		writeTree(root, { "workers/index.ts": 'import * as Sentry from "@sentry/node";\nSentry.init({});\n' });
		expect(codes(byDir((await scan(t, id, true)).json)["."])).toEqual(["sentry_dsn_not_found"]);
	});

	it("an app reporting with a Sentry SDK: its errors reach svc when its DSN carries a project key, not when it names another service", async () => {
		const root = tempDir("svc-sentry-");
		const key = keyEndingIn("dsn1");
		const sentryIo = "https://0123456789abcdef0123456789abcdef@o4504.ingest.sentry.io/4505";
		writeTree(root, {
			// Next.js with the DSN in .env.local, as Sentry's wizard sets it up.
			"next/package.json": json({ name: "shop", dependencies: { next: "15.0.3", "@sentry/nextjs": "^8.40.0" }, devDependencies: { "@sentry/cli": "^2" } }),
			"next/.env.local": `NEXT_PUBLIC_SENTRY_DSN=https://${key}@svc.example.com/12\nDATABASE_URL=https://user:pw@db.example.com/5\n`,
			"next/sentry.client.config.ts": 'import * as Sentry from "@sentry/nextjs";\nSentry.init({ dsn: process.env.NEXT_PUBLIC_SENTRY_DSN });\n',
			// Still sending to sentry.io, from a literal.
			"node/package.json": json({ name: "jobs", dependencies: { "@sentry/node": "^8" } }),
			"node/src/index.js": `const Sentry = require("@sentry/node");\nSentry.init({ dsn: "${sentryIo}" });\n`,
			// Both: production still goes elsewhere.
			"mixed/package.json": json({ name: "mixed", dependencies: { "@sentry/react": "^8" } }),
			"mixed/.env": `VITE_SENTRY_DSN=https://${key}@svc.example.com/12\n`,
			"mixed/.env.production": `VITE_SENTRY_DSN=${sentryIo}\n`,
			// A key minted before keys were letters and digits: the SDK refuses the DSN and sends nothing.
			"dashed/package.json": json({ name: "dashed", dependencies: { "@sentry/node": "^8" } }),
			"dashed/.env": `SENTRY_DSN=https://svc_${"a".repeat(20)}-${"b".repeat(22)}@svc.example.com/3\n`,
			// The SDK without a DSN anywhere it is looked for.
			"nodsn/package.json": json({ name: "nodsn", dependencies: { "@sentry/browser": "^8" } }),
			// Only Sentry's build tool: no SDK reports anything.
			"cli-only/package.json": json({ name: "cli-only", devDependencies: { "@sentry/cli": "^2" } }),
		});
		const t = await serverWithRegistry();
		const r = await scan(t, await addWorkspace(t, root));
		const p = byDir(r.json);
		expect(p.next.findings).toEqual([
			{
				code: "sentry_sdk",
				severity: "info",
				message: "Errors reach svc through @sentry/nextjs: NEXT_PUBLIC_SENTRY_DSN in next/.env.local carries a project key and sends to svc.example.com.",
				action: "Nothing to do; @svcapp/logger, svc's own SDK, is the alternative.",
			},
		]);
		expect(p.next.needsAttention).toBe(false);
		expect(p.node.findings).toEqual([
			{
				code: "sentry_dsn_not_svc",
				severity: "warning",
				message: "@sentry/node sends to o4504.ingest.sentry.io: the dsn in node/src/index.js does not carry an svc project key, so those errors do not reach svc.",
				action: "Set the DSN to your project key's DSN (https://<project key>@<your svc address>/<dsn id>; the console shows it with the key), or add @svcapp/logger.",
			},
		]);
		expect(p.mixed.findings[0]).toMatchObject({ code: "sentry_dsn_not_svc", message: expect.stringContaining("VITE_SENTRY_DSN in mixed/.env.production") });
		expect(p.dashed.findings).toEqual([
			{
				code: "sentry_dsn_key_refused",
				severity: "error",
				message: 'The project key in SENTRY_DSN in dashed/.env holds "-", which @sentry/node does not accept in a DSN: it turns itself off and sends nothing.',
				action: "Regenerate the key in the console (keys are letters and digits now) and set the DSN it shows.",
			},
		]);
		expect(p.nodsn.findings[0]).toMatchObject({ code: "sentry_dsn_not_found", severity: "warning" });
		expect(codes(p["cli-only"])).toEqual(["logger_not_listed"]);
		expect(r.text).not.toContain(key);
	});

	it("a Cloudflare Worker's bindings: env.X is looked up in wrangler.toml [vars] and .dev.vars, and else is a secret", async () => {
		const root = tempDir("svc-worker-");
		const key = keyEndingIn("wk01");
		const worker = (init: string) => `import * as logger from "@svcapp/logger";\nexport default {\n  async fetch(request, env) {\n    ${init}\n    return new Response("ok");\n  },\n};\n`;
		const logger = { "@svcapp/logger": "^1.2.0" };
		writeTree(root, {
			"node_modules/@svcapp/logger/package.json": json({ name: "@svcapp/logger", version: "1.2.0" }),
			"edge/package.json": json({ name: "edge", dependencies: logger }),
			"edge/wrangler.toml": 'name = "edge"\nmain = "src/index.ts"\n\n[vars]\nSVC_ENDPOINT = "https://svc.example.com" # where errors go\n\n[[kv_namespaces]]\nbinding = "CACHE"\nSVC_KEY = "not-a-var"\n',
			"edge/.dev.vars": `SVC_KEY=${key}\n`,
			"edge/src/index.ts": worker("logger.init({ key: env.SVC_KEY, endpoint: env.SVC_ENDPOINT });"),
			// A wrong key kept for local development is caught like one in .env.
			"wrong/package.json": json({ name: "wrong", dependencies: logger }),
			"wrong/wrangler.toml": "[env.production.vars]\nSVC_ENDPOINT = 'svc.example.com'\n",
			"wrong/.dev.vars": "SVC_KEY=sk_live_expired\n",
			"wrong/src/index.ts": worker("logger.init({ key: env.SVC_KEY, endpoint: env.SVC_ENDPOINT });"),
			// wrangler.jsonc, what `npm create cloudflare` writes now: comments, trailing commas, an environment's vars.
			"jsonc/package.json": json({ name: "jsonc", dependencies: logger }),
			"jsonc/wrangler.jsonc": `{\n  // the Worker\n  "name": "jsonc", /* main */ "main": "src/index.ts",\n  "env": { "production": { "vars": { "SVC_KEY": "${key}", }, }, },\n  "vars": { "SVC_ENDPOINT": "https://svc.example.com/", "N": 3 },\n}\n`,
			"jsonc/src/index.ts": worker("logger.init({ key: env.SVC_KEY, endpoint: env.SVC_ENDPOINT });"),
			// Hono's context, and a key that only Cloudflare holds.
			"hono/package.json": json({ name: "hono-app", dependencies: logger }),
			"hono/src/index.ts": 'import { init } from "@svcapp/logger";\napp.use(async (c, next) => { init({ key: c.env.SVC_KEY, endpoint: "https://svc.example.com" }); await next(); });\n',
		});
		const t = await serverWithRegistry();
		const r = await scan(t, await addWorkspace(t, root));
		const p = byDir(r.json);
		expect(p.edge.logger.configured).toEqual({
			ok: true,
			init: "edge/src/index.ts",
			key: "found in edge/.dev.vars (…wk01)",
			endpoint: "found in edge/wrangler.toml (https://svc.example.com)",
		});
		expect(p.edge.findings).toEqual([]);
		expect(codes(p.wrong).sort()).toEqual(["endpoint_invalid", "key_invalid"]);
		expect(p.wrong.findings.find((f: any) => f.code === "key_invalid").message).toBe("SVC_KEY in wrong/.dev.vars is not a project key: a project key is svc_ and 43 letters and digits.");
		expect(p.jsonc.logger.configured).toEqual({
			ok: true,
			init: "jsonc/src/index.ts",
			key: "found in jsonc/wrangler.jsonc (…wk01)",
			endpoint: "found in jsonc/wrangler.jsonc (https://svc.example.com/)",
		});
		expect(p.hono.logger.configured).toMatchObject({ ok: true, key: "the Worker secret SVC_KEY (not in the vars of a wrangler configuration nor .dev.vars)" });
		expect(p.hono.findings).toEqual([]);
		expect(r.text).not.toContain(key);
	});

	it("skips what frameworks and tools generate, even where no .gitignore lists it", async () => {
		const root = tempDir("svc-built-");
		const generated = [".next", ".nuxt", ".output", ".svelte-kit", ".astro", ".angular", ".wrangler/tmp/dev-x", ".vercel/output", ".netlify", ".turbo", ".parcel-cache", ".expo"];
		const files: Record<string, string> = { "package.json": json({ name: "app" }), "next/.next/package.json": json({ type: "commonjs" }) };
		for (const dir of generated) {
			files[`${dir}/package.json`] = json({ name: `built-${dir}` });
			files[`${dir}/server.js`] = 'const { init } = require("@svcapp/logger");\ninit({ key: "svc_old", endpoint: "https://old.example.com" });\n';
		}
		files["next/package.json"] = json({ name: "next-app" });
		files["next-like/package.json"] = json({ name: "next-like" }); // a folder merely named like one is walked
		writeTree(root, files);
		const t = await serverWithRegistry();
		const r = await scan(t, await addWorkspace(t, root));
		expect(r.json.packages.map((p: any) => p.dir)).toEqual([".", "next", "next-like"]);
		expect(r.json.limits.used.files).toBe(3);
	});
});
