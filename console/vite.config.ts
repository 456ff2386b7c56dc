import { gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

/** The most gzipped JavaScript a first load may need, whichever page it opens on. */
const FIRST_LOAD_BUDGET = 250 * 1024;

/**
 * Prints the gzipped JavaScript a first load needs: the entry with its static imports, plus the
 * chunks of the page it opens on (each route is its own chunk). The build fails over budget.
 */
function firstLoadSize(): Plugin {
	return {
		name: "first-load-size",
		apply: "build",
		generateBundle(_options, bundle) {
			const chunks = new Map(Object.values(bundle).flatMap((file) => (file.type === "chunk" ? [[file.fileName, file]] : [])));
			const gzipped = new Map([...chunks].map(([name, chunk]) => [name, gzipSync(chunk.code).length]));
			const closure = (start: string[], seen = new Set<string>()) => {
				for (const name of start) {
					if (seen.has(name)) continue;
					seen.add(name);
					closure(chunks.get(name)?.imports ?? [], seen);
				}
				return seen;
			};
			const total = (names: Set<string>) => [...names].reduce((sum, name) => sum + (gzipped.get(name) ?? 0), 0);
			const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
			const entry = [...chunks.values()].filter((c) => c.isEntry).map((c) => c.fileName);
			const shell = closure(entry);
			const pages = [...new Set([...chunks.values()].flatMap((c) => c.dynamicImports))].map((name) => {
				const load = closure([name], new Set(shell));
				return { page: chunks.get(name)?.name ?? name, bytes: total(load) };
			});
			const worst = Math.max(total(shell), ...pages.map((p) => p.bytes));
			const lines = [`first load, gzipped JavaScript (budget ${kb(FIRST_LOAD_BUDGET)}):`, `  shell (sign-in)        ${kb(total(shell))}`];
			for (const { page, bytes } of pages.sort((a, b) => b.bytes - a.bytes)) lines.push(`  ${page.padEnd(22)} ${kb(bytes)}`);
			this.info(lines.join("\n"));
			if (worst > FIRST_LOAD_BUDGET) this.error(`a first load needs ${kb(worst)} of gzipped JavaScript, over the ${kb(FIRST_LOAD_BUDGET)} budget`);
		},
	};
}

// Built into console/dist, which wrangler.toml serves as the Worker's static assets.
export default defineConfig({
	plugins: [react(), firstLoadSize()],
	build: { outDir: "dist", emptyOutDir: true },
	server: { proxy: { "/api": "http://127.0.0.1:8787" } },
});
