import { describe, it } from "vitest";
import { call, ownerWithKey, submitFeedback } from "./helpers";

type Owner = Awaited<ReturnType<typeof ownerWithKey>>;

function list(owner: Owner, query: Record<string, string>) {
	return call(`/api/feedback?${new URLSearchParams({ project_name: owner.projectName, ...query })}`, { token: owner.token });
}

async function titlesFound(owner: Owner, query: Record<string, string>): Promise<string[]> {
	const res = await list(owner, query);
	if (res.status !== 200) throw new Error(`list failed: ${res.status} ${await res.text()}`);
	return (await res.json<{ feedback: Array<{ data: { title: string } }> }>()).feedback.map((record) => record.data.title);
}

async function submit(owner: Owner, body: Record<string, unknown>): Promise<string> {
	const res = await submitFeedback(owner.rawKey, body);
	if (res.status !== 200) throw new Error(`submit failed: ${res.status} ${await res.text()}`);
	return (await res.json<{ id: string }>()).id;
}

describe("GET /api/feedback?q=", () => {
	it("keeps the records with a text value holding the search, newest first, with the other filters and pages", async ({ expect }) => {
		const owner = await ownerWithKey();
		await submit(owner, { title: "Checkout button does nothing", description: "On Safari the pay button is dead" });
		const second = await submit(owner, { title: "Dark mode", description: "Please add it", email: "ana@checkout.example", type: "feature_request" });
		await submit(owner, { title: "Login loops", description: "100% of the time after the checkout" });
		await submit(owner, { title: "Typo", description: "title has a typo" });

		expect(await titlesFound(owner, { q: "checkout" })).toEqual(["Login loops", "Dark mode", "Checkout button does nothing"]);
		// ASCII letters in either case; the rest as typed, % and _ included.
		expect(await titlesFound(owner, { q: "  SAFARI " })).toEqual(["Checkout button does nothing"]);
		expect(await titlesFound(owner, { q: "100%" })).toEqual(["Login loops"]);
		expect(await titlesFound(owner, { q: "1_0" })).toEqual([]);
		// The values, not the fields' names: only the record that says "title" in its text.
		expect(await titlesFound(owner, { q: "title" })).toEqual(["Typo"]);
		// An id pasted finds its record.
		expect(await titlesFound(owner, { q: second })).toEqual(["Dark mode"]);
		// With the type filter, and an empty search as none.
		expect(await titlesFound(owner, { q: "checkout", type: "issue" })).toEqual(["Login loops", "Checkout button does nothing"]);
		expect(await titlesFound(owner, { q: " " })).toHaveLength(4);
		// A page of one, then the next from its cursor, still searched.
		const first = await (await list(owner, { q: "checkout", limit: "1" })).json<{ feedback: unknown[]; next_cursor: string }>();
		expect(first.feedback).toHaveLength(1);
		expect(await titlesFound(owner, { q: "checkout", cursor: first.next_cursor })).toEqual(["Dark mode", "Checkout button does nothing"]);
	});

	it.for([
		[200, 200],
		[201, 400],
	] as const)("a search of %i characters: %i", async ([length, status], { expect }) => {
		const owner = await ownerWithKey();
		const res = await list(owner, { q: "x".repeat(length) });
		expect(res.status).toBe(status);
		if (status === 400) expect((await res.json<{ error: string }>()).error).toContain("q");
		else expect((await res.json<{ feedback: unknown[] }>()).feedback).toEqual([]);
	});
});
