import { defineConfig } from "drizzle-kit";

// drizzle-kit writes migrations where `wrangler d1 migrations apply` and the tests read them.
export default defineConfig({
	dialect: "sqlite",
	schema: "./schema/index.ts",
	out: "./schema/migrations",
});
