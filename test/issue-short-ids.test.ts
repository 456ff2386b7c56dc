// Sentry's short ids (`SHOP-1`): each issue numbered in its project as it opens, never a number
// given twice, shown with every issue the API answers, and found by pasting it into the search.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { ProjectCollector } from "../durable-objects/ProjectCollector";
import { SHORT_IDS_GIVEN, upgradeSchema } from "../durable-objects/projectSchema";
import { shortIdNumber, shortIdOf } from "../domain/logs/shortId";
import { call, createProjectKey, signUp } from "./helpers";
import { ingestOk, issueGrouper, issueOf, issuesOf } from "./logHelpers";

type Json = Record<string, any>;

/** An owner's project named `name`, its key and its id. */
async function project(name: string) {
	const owner = await signUp();
	const key = await createProjectKey(owner.token, name);
	const row = await env.DB.prepare("select id from project_keys where user_id = ? and project_name = ?").bind(owner.user.id, name).first<{ id: string }>();
	return { ...owner, ...key, keyId: row!.id };
}

const shortIds = async (p: Awaited<ReturnType<typeof project>>, q?: string) =>
	Object.fromEntries((await issuesOf(p, q === undefined ? {} : { q })).map((issue: Json) => [issue.title, issue.short_id]));

describe("short ids", () => {
	it("the project's name in capitals and the issue's number in base 32, letter case aside when read", ({ expect }) => {
		expect([1, 9, 10, 31, 32, 1055, 2 ** 50 - 1].map((n) => shortIdOf("shop", n))).toEqual(["SHOP-1", "SHOP-9", "SHOP-A", "SHOP-Z", "SHOP-10", "SHOP-10Z", "SHOP-ZZZZZZZZZZ"]);
		expect(shortIdOf("shop", null)).toBeNull();
		// Every run of other characters one dash, none at either end; 30 characters of the name at most; ISSUE when none is left.
		expect(shortIdOf("my app (web)", 1)).toBe("MY-APP-WEB-1");
		expect(shortIdOf("Café — shop", 2)).toBe("CAF-SHOP-2");
		expect(shortIdOf("☕", 3)).toBe("ISSUE-3");
		expect(shortIdOf(`${"a".repeat(29)}-b`, 4)).toBe(`${"A".repeat(29)}-4`);
		expect(shortIdOf("a".repeat(30), 4)).toBe(`${"A".repeat(30)}-4`);
		expect(shortIdOf("a".repeat(31), 4)).toBe(`${"A".repeat(30)}-4`);

		expect(shortIdNumber("shop", "SHOP-10Z")).toBe(1055);
		expect(shortIdNumber("shop", " shop-10z ")).toBe(1055);
		expect(shortIdNumber("my app", "MY-APP-1")).toBe(1);
		expect(shortIdNumber("shop", "SHOP-ZZZZZZZZZZ")).toBe(2 ** 50 - 1);
		// Not a short id of this project: another prefix, no digits, a leading zero, a letter base 32 leaves out, eleven digits.
		for (const text of ["CART-1", "SHOP-", "SHOP-01", "SHOP-I", "SHOP-U", "SHOP-10000000000", "SHOP1", "checkout SHOP-1"]) expect(shortIdNumber("shop", text), text).toBeNull();
	});

	it("numbers the project's issues as they open, answers them everywhere, and never gives a number twice", async ({ expect }) => {
		const shop = await project("shop");
		const first = await ingestOk(shop.rawKey, { message: "First bug" });
		await ingestOk(shop.rawKey, { message: "Second bug" });
		await ingestOk(shop.rawKey, { message: "First bug" });
		const third = await ingestOk(shop.rawKey, { message: "Third bug" });
		expect(await shortIds(shop)).toEqual({ "First bug": "SHOP-1", "Second bug": "SHOP-2", "Third bug": "SHOP-3" });
		expect((await issueOf(shop, first.group_hash)).short_id).toBe("SHOP-1");
		const resolved = await call(`/api/issues/${first.group_hash}`, { method: "PATCH", token: shop.token, json: { project_name: "shop", status: "resolved" } });
		expect((await resolved.json<Json>()).short_id).toBe("SHOP-1");
		// Another project counts its own.
		const cart = await project("cart");
		await ingestOk(cart.rawKey, { message: "First bug" });
		expect(await shortIds(cart)).toEqual({ "First bug": "CART-1" });

		// The newest issue deleted: the next one still gets a number of its own.
		const deleted = await call(`/api/issues/${third.group_hash}?project_name=shop`, { method: "DELETE", token: shop.token });
		expect(deleted.status).toBe(200);
		await ingestOk(shop.rawKey, { message: "Fourth bug" });
		expect(await shortIds(shop)).toEqual({ "First bug": "SHOP-1", "Second bug": "SHOP-2", "Fourth bug": "SHOP-4" });
	});

	it("a merge keeps the number of the issue merged into; an unmerge opens an issue with a number of its own", async ({ expect }) => {
		const shop = await project("shop");
		const first = await ingestOk(shop.rawKey, { message: "First bug" });
		const second = await ingestOk(shop.rawKey, { message: "Second bug" });
		const merged = await call("/api/issues/merge", { method: "POST", token: shop.token, json: { project_name: "shop", group_hashes: [first.group_hash, second.group_hash] } });
		const into = await merged.json<Json>();
		expect(into.short_id).toBe(into.group_hash === first.group_hash ? "SHOP-1" : "SHOP-2");
		const away = into.group_hash === first.group_hash ? second.group_hash : first.group_hash;
		const unmerged = await call(`/api/issues/${into.group_hash}/unmerge`, { method: "POST", token: shop.token, json: { project_name: "shop", group_hashes: [away] } });
		const answer = await unmerged.json<Json>();
		expect([answer.issue.short_id, answer.unmerged.map((issue: Json) => issue.short_id)]).toEqual([into.short_id, ["SHOP-3"]]);
		expect((await issueOf(shop, away)).short_id).toBe("SHOP-3");
	});

	it("pasted into the search, finds its issue (letter case aside) besides the text", async ({ expect }) => {
		const shop = await project("shop");
		for (const message of ["First bug", "Second bug", "Mentions shop-2 in its title"]) await ingestOk(shop.rawKey, { message });
		expect(await shortIds(shop, "SHOP-2")).toEqual({ "Second bug": "SHOP-2", "Mentions shop-2 in its title": "SHOP-3" });
		expect(await shortIds(shop, "shop-1")).toEqual({ "First bug": "SHOP-1" });
		expect(await shortIds(shop, "SHOP-9")).toEqual({});
		// Another project's short id is text here.
		expect(await shortIds(shop, "CART-1")).toEqual({});
	});

	it("an object from before short ids numbers its issues in the order they opened, and D1 gets their numbers", async ({ expect }) => {
		const shop = await project("shop");
		for (const message of ["Oldest bug", "Middle bug", "Newest bug"]) await ingestOk(shop.rawKey, { message });
		await issuesOf(shop);
		// As the object and D1 were before: no column, no count, no numbers.
		await runInDurableObject(issueGrouper(shop.keyId), (_: ProjectCollector, state) => {
			state.storage.sql.exec("ALTER TABLE groups DROP COLUMN short_id");
			state.storage.sql.exec("DELETE FROM meta WHERE key = ?", SHORT_IDS_GIVEN);
		});
		await env.DB.prepare("UPDATE log_issues SET short_id = NULL WHERE key_id = ?").bind(shop.keyId).run();
		expect(await shortIds(shop)).toEqual({ "Oldest bug": null, "Middle bug": null, "Newest bug": null });

		await runInDurableObject(issueGrouper(shop.keyId), (_: ProjectCollector, state) => upgradeSchema(state.storage.sql));
		expect(await shortIds(shop)).toEqual({ "Oldest bug": "SHOP-1", "Middle bug": "SHOP-2", "Newest bug": "SHOP-3" });
		await ingestOk(shop.rawKey, { message: "New bug" });
		expect((await shortIds(shop))["New bug"]).toBe("SHOP-4");
	});
});
