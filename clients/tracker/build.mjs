/**
 * Builds the tracker: src/tracker.ts → dist/t.txt, one minified script, and dist/t-links.txt, the
 * same with link clicks counted (served at GET /t.links.js).
 *
 * The output is named .txt because the Worker imports it as text (wrangler's default Text rule)
 * and serves it at GET /t.js. `npm run build --workspace @svc/tracker` runs this; the test
 * projects run it as a global setup, and wrangler's custom build runs it before dev and deploy.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
export const TRACKER_OUTPUT = join(here, "dist", "t.txt");
/** t.links.js: the tracker and link clicks (outbound links, file downloads). */
export const LINKS_TRACKER_OUTPUT = join(here, "dist", "t-links.txt");

async function buildOne(output, links) {
	const result = await build({
		entryPoints: [join(here, "src", "tracker.ts")],
		bundle: true,
		minify: true,
		format: "iife",
		// Browsers from 2019 on: no polyfills, no helper code in the output.
		target: ["es2019"],
		legalComments: "none",
		// The link clicks' code is left out of t.js altogether, not just switched off.
		define: { LINKS: String(links) },
		write: false,
	});
	const code = result.outputFiles[0].text;
	await mkdir(dirname(output), { recursive: true });
	await writeFile(output, code);
	return code;
}

/** Both scripts; answers t.js's code. */
export async function buildTracker() {
	const [code] = await Promise.all([buildOne(TRACKER_OUTPUT, false), buildOne(LINKS_TRACKER_OUTPUT, true)]);
	return code;
}

/** Vitest global setup (whatever it returns would be taken for a teardown). */
export async function setup() {
	await buildTracker();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const code = await buildTracker();
	console.log(`tracker: ${TRACKER_OUTPUT} (${code.length} bytes), ${LINKS_TRACKER_OUTPUT}`);
}
