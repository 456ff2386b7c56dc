import { env } from "cloudflare:workers";
import { exports } from "cloudflare:workers";
import { it } from "vitest";

it("runs against the worker with migrations", async ({ expect }) => {
	const res = await exports.default.fetch("http://x/");
	expect(await res.text()).toBe("ok");
	const row = await env.DB.prepare("select count(*) as n from users").first();
	expect(row).toEqual({ n: 0 });
});
