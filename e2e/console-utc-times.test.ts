/**
 * The console's absolute times in a browser 14 hours ahead of UTC (Pacific/Kiritimati): each is
 * written in UTC and says so, as the charts' UTC days are, so a feedback item received at 23:30
 * UTC reads as that UTC day on every page, not the browser's next day.
 */
import { expect, it } from "vitest";
import { useSession } from "./consolePage";
import { api, type Database, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

const utcDay = (ms: number) => new Date(ms).toLocaleDateString("en-US", { dateStyle: "medium", timeZone: "UTC" });

it("writes feedback, trial and key times in UTC, saying so, in a browser at UTC+14", async () => {
	const { token } = await signUpOwner(stack.worker.url, "utc-times", "10.95.0.1");
	await api(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "Shop" } });
	const { user } = await api<{ user: { id: string } }>(stack.worker.url, "/api/auth/me", { token });
	const env = await stack.worker.server.getWorker<{ DB: Database }>().getEnv();
	// Half an hour before UTC midnight: the next day already, 13:30, at UTC+14.
	const received = Date.parse("2026-06-01T23:30:00Z");
	await env.DB.prepare("INSERT INTO feedback (id, user_id, project_name, type, status, data, created_at) VALUES (?, ?, ?, 'issue', 'open', ?, ?)")
		.bind("late-night", user.id, "Shop", JSON.stringify({ title: "Late-night report" }), received)
		.run();
	// The trial ends in two days at 23:30 UTC, so the banner shows it too.
	const trialEnd = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 2 * 86_400_000 + 23.5 * 3_600_000;
	await env.DB.prepare("UPDATE users SET trial_ends_at = ? WHERE id = ?").bind(trialEnd, user.id).run();

	const page = await stack.browser.newPage({ viewport: { width: 1280, height: 900 }, locale: "en-US", timezoneId: "Pacific/Kiritimati" });
	expect(await page.evaluate(() => new Date(Date.UTC(2026, 5, 1, 23, 30)).getDate())).toBe(2);
	await useSession(page, stack.worker.url, token);

	await page.goto(`${stack.worker.url}/feedback/Shop`);
	const item = page.locator("li.feedback", { hasText: "Late-night report" });
	await expect.poll(() => item.textContent()).toContain("Jun 1, 2026, 11:30:00 PM UTC");
	await item.getByRole("link", { name: "Late-night report" }).click();
	await expect.poll(() => page.getByText(/^Received/).textContent()).toBe("Received Jun 1, 2026, 11:30:00 PM UTC");

	// The trial's end: in the header, the banner and the account page, each the UTC day, in UTC.
	await expect.poll(() => page.locator("header").textContent()).toContain(`trial until ${utcDay(trialEnd)} UTC`);
	expect(await page.getByRole("status").filter({ hasText: "Your trial ends" }).textContent()).toContain(`Your trial ends ${utcDay(trialEnd)}, 11:30:00 PM UTC.`);
	await page.goto(`${stack.worker.url}/account`);
	const trialRow = page.getByText(/^ends /);
	await expect.poll(() => trialRow.textContent()).toBe(`ends ${utcDay(trialEnd)}, 11:30:00 PM UTC`);

	// The project key's creation day, in UTC.
	const { created_at } = await api<{ created_at: string }>(stack.worker.url, "/api/feedback-key?project_name=Shop", { token });
	await page.goto(`${stack.worker.url}/projects/Shop`);
	await expect.poll(() => page.getByText(/^Key ending in/).textContent()).toContain(`created ${utcDay(Date.parse(created_at))} UTC.`);
});
