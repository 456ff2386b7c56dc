import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Built into console/dist, which wrangler.toml serves as the Worker's static assets.
export default defineConfig({
	plugins: [react()],
	build: { outDir: "dist", emptyOutDir: true },
	server: { proxy: { "/api": "http://127.0.0.1:8787" } },
});
