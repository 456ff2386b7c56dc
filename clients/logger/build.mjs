/**
 * Builds @svcapp/logger into dist/:
 * - svc-logger.node.js: ES module for Node 18+ (what `import "@svcapp/logger"` loads in Node, by
 *   the `node` export condition), with the Node-only code of src/node;
 * - svc-logger.js: ES module for bundlers and other runtimes, without any Node module;
 * - svc-logger.browser.js: minified script for a <script> tag, exposing `window.svcLogger`;
 * - *.d.ts: the types (the same API everywhere).
 * Prints the browser script's gzipped size, which must stay within 6 KB. `npm run build` (root
 * or this workspace) runs this; the e2e and logger test projects run it as a global setup.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import ts from "typescript";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "dist");
export const NODE_OUTPUT = join(dist, "svc-logger.node.js");
export const MODULE_OUTPUT = join(dist, "svc-logger.js");
export const BROWSER_OUTPUT = join(dist, "svc-logger.browser.js");
export const BROWSER_GZIP_LIMIT = 6 * 1024;

async function bundle(entry, options) {
	const result = await build({
		entryPoints: [join(here, "src", entry)],
		bundle: true,
		legalComments: "none",
		write: false,
		...options,
	});
	return result.outputFiles[0].text;
}

function emitTypes() {
	const program = ts.createProgram([join(here, "src", "index.ts")], {
		declaration: true,
		emitDeclarationOnly: true,
		outDir: dist,
		rootDir: join(here, "src"),
		strict: true,
		target: ts.ScriptTarget.ES2020,
		module: ts.ModuleKind.ES2022,
		moduleResolution: ts.ModuleResolutionKind.Bundler,
		lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
		resolveJsonModule: true,
		types: [],
	});
	const { diagnostics } = program.emit();
	const problems = [...ts.getPreEmitDiagnostics(program), ...diagnostics];
	if (problems.length > 0) {
		const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => here, getNewLine: () => "\n" };
		throw new Error(ts.formatDiagnostics(problems, host));
	}
}

export async function buildLogger() {
	await rm(dist, { recursive: true, force: true });
	await mkdir(dist, { recursive: true });
	const [node, esm, browser] = await Promise.all([
		bundle("node/index.ts", { format: "esm", platform: "node", target: ["node18"] }),
		bundle("index.ts", { format: "esm", platform: "neutral", target: ["es2020"] }),
		// Browsers from 2019 on, as the tracker: no polyfills, no helper code in the output.
		bundle("index.ts", { format: "iife", globalName: "svcLogger", platform: "browser", target: ["es2019"], minify: true }),
	]);
	await writeFile(NODE_OUTPUT, node);
	await writeFile(MODULE_OUTPUT, esm);
	await writeFile(BROWSER_OUTPUT, browser);
	emitTypes();
	return { browserBytes: Buffer.byteLength(browser), browserGzipBytes: gzipSync(browser).byteLength };
}

/** Vitest global setup (whatever it returns would be taken for a teardown). */
export async function setup() {
	await buildLogger();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const { browserBytes, browserGzipBytes } = await buildLogger();
	console.log(`@svcapp/logger: ${BROWSER_OUTPUT} ${browserBytes} bytes, ${browserGzipBytes} bytes gzipped (limit ${BROWSER_GZIP_LIMIT})`);
	if (browserGzipBytes > BROWSER_GZIP_LIMIT) {
		console.error("@svcapp/logger: the browser build is over its size limit");
		process.exit(1);
	}
}
