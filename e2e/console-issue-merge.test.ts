/** Merging issues from the list's selection, as in Sentry: asked first, then one issue with every event of them; and unmerging them from its page. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { axeViolations } from "./axe";
import { ARTIFACTS, DESKTOP, useSession } from "./consolePage";
import { api, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

/** An owner of "shop" signed up from `ip`, a sender of its log messages (answering each one's issue; from an address when given), and a page signed in as them. */
async function shopOwner(name: string, ip: string) {
	const { token } = await signUpOwner(stack.worker.url, name, ip);
	const { raw_api_key: key } = await api<{ raw_api_key: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
	const send = async (message: string, from?: string) => {
		const headers = { "x-svc-key": key, "content-type": "application/json", ...(from && { "cf-connecting-ip": from }) };
		const res = await fetch(`${stack.worker.url}/api/app-logs-ingest`, { method: "POST", headers, body: JSON.stringify({ message }) });
		expect(res.status).toBe(200);
		return ((await res.json()) as { group_hash: string }).group_hash;
	};
	const context = await stack.browser.newContext({ viewport: DESKTOP, locale: "en-US" });
	const page = await context.newPage();
	await useSession(page, stack.worker.url, token);
	return { token, send, context, page };
}

describe("merging issues", () => {
	it("merges the issues ticked into the one with the most events; later events like theirs join it", async () => {
		const { token, send, context, page } = await shopOwner("merge", "10.98.1.1");
		for (const message of ["Payment failed: card declined", "Payment failed: card declined", "Payment failed: card expired", "Login failed"]) await send(message);
		await page.goto(`${stack.worker.url}/issues/shop`);
		await page.locator(".issue-row").nth(2).waitFor();
		const bar = page.getByRole("group", { name: "Selected issues" });
		const mergeButton = bar.getByRole("button", { name: "Merge…" });
		// Merging takes two at least.
		await page.getByRole("checkbox", { name: "Select Payment failed: card declined" }).check();
		expect(await mergeButton.isDisabled()).toBe(true);
		await page.getByRole("checkbox", { name: "Select Payment failed: card expired" }).check();
		await mergeButton.click();
		const dialog = page.getByRole("dialog", { name: "Merge selected" });
		expect(await dialog.getByText("Merge 2 issues into the one with the most events?").isVisible()).toBe(true);
		// A merge can be undone from the merged issue's page (below): the question does not say otherwise.
		expect(await dialog.getByText("until you unmerge them from its page").isVisible()).toBe(true);
		expect(await dialog.getByText("cannot be undone").count()).toBe(0);
		expect(await axeViolations(page)).toEqual([]);
		await page.screenshot({ path: join(ARTIFACTS, "issues-merge.png") });
		await dialog.getByRole("button", { name: "Merge selected" }).click();

		await expect.poll(() => page.locator(".issue-row a.title").allTextContents()).toEqual(["Login failed", "Payment failed: card declined"]);
		// Focus goes to the merged issue's link, not back to the page.
		await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Payment failed: card declined");
		await page.getByRole("status").getByRole("link", { name: "Payment failed: card declined" }).click();
		await page.getByRole("heading", { level: 1, name: "Payment failed: card declined" }).waitFor();
		const events = page.getByRole("region", { name: "Newest events" }).locator("tbody tr");
		await expect.poll(() => events.count()).toBe(3);

		const merged = await send("Payment failed: card expired");
		const listed = await api<{ issues: { group_hash: string; title: string; count: number }[] }>(stack.worker.url, "/api/issues?project_name=shop", { token });
		expect(listed.issues.length).toBe(2);
		expect(listed.issues.find((issue) => issue.group_hash === merged)?.count).toBe(4);
		await context.close();
	});

	it("unmerges an issue from the page of the one it was merged into: its events go back to it, and the page says where", async () => {
		const { token, send, context, page } = await shopOwner("unmerge", "10.98.1.2");
		const declined = await send("Payment failed: card declined");
		await send("Payment failed: card declined");
		await send("Payment failed: card declined");
		const expired = await send("Payment failed: card expired");
		await send("Payment failed: card expired");
		await api(stack.worker.url, "/api/issues/merge", { token, json: { project_name: "shop", group_hashes: [declined, expired] } });

		// The merged-away issue's own address (a bookmark, an old alert) goes on to the issue it was merged into.
		await page.goto(`${stack.worker.url}/issues/shop/${expired}`);
		await page.getByRole("heading", { level: 1, name: "Payment failed: card declined" }).waitFor();
		expect(new URL(page.url()).pathname).toBe(`/issues/shop/${declined}`);
		expect(await page.getByTestId("merged-from").textContent()).toBe(`The issue you opened, ${expired}, was merged into this one.`);
		await page.goto(`${stack.worker.url}/issues/shop/${declined}`);
		const card = page.getByRole("region", { name: "Merged issues", exact: true });
		const row = card.locator("tbody tr");
		// Each by its latest event's title and its own hash (two merged issues may share a title).
		await expect.poll(() => row.allInnerTexts()).toEqual([expect.stringMatching(new RegExp(`^\\s*Payment failed: card expired\\s+${expired.slice(0, 12)}\\s+2\\s+`))]);
		const events = page.locator(".figure", { has: page.locator(".label", { hasText: /^Events$/ }) }).locator(".value");
		expect(await events.textContent()).toBe("5");
		const unmergeButton = card.getByRole("button", { name: "Unmerge…" });
		expect(await unmergeButton.isDisabled()).toBe(true);
		await card.getByRole("checkbox", { name: `Unmerge Payment failed: card expired (${expired.slice(0, 12)})`, exact: true }).check();
		await unmergeButton.click();
		const dialog = page.getByRole("dialog", { name: "Unmerge" });
		expect(await dialog.getByText("Unmerge 1 issue from this one? Its events, and later ones, go back to an issue of its own.").isVisible()).toBe(true);
		expect(await axeViolations(page)).toEqual([]);
		await page.screenshot({ path: join(ARTIFACTS, "issue-unmerge.png") });
		await dialog.getByRole("button", { name: "Unmerge" }).click();

		const done = card.getByRole("status");
		await expect.poll(() => done.textContent()).toBe("Unmerged into 1 issue of its own: Payment failed: card expired (2 events)");
		await expect.poll(() => events.textContent()).toBe("3");
		await expect.poll(() => page.getByTestId("issue-activity").textContent()).toContain("Unmerged 1 issue from this one");
		expect(await row.count()).toBe(0);
		await done.getByRole("link", { name: "Payment failed: card expired" }).click();
		await page.getByRole("heading", { level: 1, name: "Payment failed: card expired" }).waitFor();
		await expect.poll(() => page.getByRole("region", { name: "Newest events" }).locator("tbody tr").count()).toBe(2);
		expect(await page.getByTestId("issue-activity").textContent()).toContain("Unmerged from the issue it had been merged into");
		// One click back to it.
		await page.getByTestId("issue-activity").getByRole("link", { name: "the issue it had been merged into" }).click();
		await page.getByRole("heading", { level: 1, name: "Payment failed: card declined" }).waitFor();
		// Its later events are its own.
		expect(await send("Payment failed: card expired")).toBe(expired);
		await context.close();
	});

	it("a merged issue's latest event, opened from the card, is shown where the reader is taken: its event above", async () => {
		const { token, send, context, page } = await shopOwner("unmerge-open", "10.98.1.3");
		const expired = await send("Payment failed: card expired");
		const declined = await send("Payment failed: card declined");
		await send("Payment failed: card declined");
		await api(stack.worker.url, "/api/issues/merge", { token, json: { project_name: "shop", group_hashes: [declined, expired] } });

		await page.goto(`${stack.worker.url}/issues/shop/${declined}`);
		const card = page.getByRole("region", { name: "Merged issues", exact: true });
		await card.getByRole("link", { name: "Payment failed: card expired" }).click();
		// The event's detail is far above the card: the reader is taken to it, as from the events' list.
		await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("event-heading");
		expect(await page.getByRole("region", { name: "Message", exact: true }).textContent()).toContain("Payment failed: card expired");
		await context.close();
	});

	it("a merged issue's latest event older than the issue's newest 100 opens too, read alone, from the card or a link", async () => {
		const { token, send, context, page } = await shopOwner("unmerge-old", "10.98.1.4");
		const expired = await send("Payment failed: card expired");
		await api(stack.worker.url, "/api/feedback-key", { method: "PATCH", token, json: { project_name: "shop", logs_rate_limit_per_minute: 6_000 } });
		// 101 later events of the issue it goes into, each from an address of its own (the per-address window takes 120 a minute).
		let declined = "";
		for (let i = 0; i < 101; i++) declined = await send("Payment failed: card declined", `10.98.2.${i + 1}`);
		await api(stack.worker.url, "/api/issues/merge", { token, json: { project_name: "shop", group_hashes: [declined, expired] } });
		const { merged } = await api<{ merged: { latest_event_id: string }[] }>(stack.worker.url, `/api/issues/${declined}/merged?project_name=shop`, { token });
		const { events } = await api<{ events: { id: string }[] }>(stack.worker.url, `/api/issues/${declined}?project_name=shop`, { token });
		expect(events.map((event) => event.id)).not.toContain(merged[0].latest_event_id);

		const message = page.getByRole("region", { name: "Message", exact: true });
		const steps = page.getByRole("navigation", { name: "Events of this issue" });
		// A link to it (a bookmark): shown, not said to be missing.
		await page.goto(`${stack.worker.url}/issues/shop/${declined}?event=${merged[0].latest_event_id}`);
		await expect.poll(() => message.textContent()).toContain("Payment failed: card expired");
		expect(await page.getByTestId("event-not-found").count()).toBe(0);
		expect(await steps.getByText("Not one of the 100 newest").isVisible()).toBe(true);
		expect([await steps.getByRole("button", { name: "‹ Newer" }).isDisabled(), await steps.getByRole("button", { name: "Newest" }).isDisabled()]).toEqual([true, false]);
		expect(await axeViolations(page)).toEqual([]);

		// From the card, the reader taken to it.
		await page.goto(`${stack.worker.url}/issues/shop/${declined}`);
		await expect.poll(() => message.textContent()).toContain("Payment failed: card declined");
		await page.getByRole("region", { name: "Merged issues", exact: true }).getByRole("link", { name: "Payment failed: card expired" }).click();
		await expect.poll(() => message.textContent()).toContain("Payment failed: card expired");
		await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("event-heading");
		expect(await page.getByTestId("event-not-found").count()).toBe(0);
		await page.screenshot({ path: join(ARTIFACTS, "issue-merged-old-event.png") });
		await context.close();
	});
});
