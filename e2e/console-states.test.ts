/**
 * The owner console in states its walk-through (console.test.ts) does not reach: access that has
 * lapsed, a page whose code cannot load, a browser with a POSIX locale. Each starts from a new
 * owner signed in on a page of its own.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OWNER_LIMITS } from "../domain/limits";
import { axeViolations } from "./axe";
import { ARTIFACTS, ownerPages } from "./consolePage";
import { api, type Database, DESKTOP_CHROME, issuesOnceThereAre, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();
const { signedIn, addShopKey, addSite } = ownerPages(stack);

describe("when access has lapsed", () => {
	it("every page says so plainly instead of breaking, including a trial that ends while the console is open", async () => {
		let site = { tracking_id: "" };
		const { email, context, page: lapsed, pageErrors } = await signedIn("lapsed", "10.98.0.1", {
			before: async (token) => {
				await api(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "old-app" } });
				site = { tracking_id: await addSite(token, "lapsed.example") };
			},
		});
		await lapsed.goto(`${stack.worker.url}/projects`);
		await lapsed.getByRole("link", { name: "old-app", exact: true }).waitFor();

		// The trial ends while the page is open: the next request is refused with 402.
		const env = await stack.worker.server.getWorker<{ DB: Database }>().getEnv();
		await env.DB.prepare("UPDATE users SET trial_ends_at = ? WHERE email = ?").bind(Date.now() - 1000, email).run();
		await lapsed.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Issues" }).click();
		await lapsed.getByRole("alert").filter({ hasText: "Your access has ended" }).first().waitFor();
		await lapsed.getByText("trial ended").waitFor();

		const pages = [
			"/projects",
			"/projects/old-app",
			"/feedback/old-app",
			"/issues/old-app",
			`/issues/old-app/${"0".repeat(32)}`,
			"/analytics",
			`/analytics/${site.tracking_id}`,
			`/crawlers/${site.tracking_id}`,
			"/account",
		];
		for (const path of pages) {
			await lapsed.goto(`${stack.worker.url}${path}`);
			await lapsed.getByRole("alert").filter({ hasText: "Your access has ended" }).first().waitFor();
			expect(await lapsed.getByText("This page could not be shown").count(), path).toBe(0);
		}
		expect(await lapsed.getByTestId("access").textContent()).toMatch(/^Ended/);
		await lapsed.screenshot({ path: join(ARTIFACTS, "lapsed.png"), fullPage: true });
		expect(await axeViolations(lapsed)).toEqual([]);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("a session that expires while the console is open", () => {
	it("gives way to the sign-in form, which says the session expired; signed in again, the owner is back on the page", async () => {
		const { email, context, page, pageErrors } = await signedIn("expires", "10.98.0.15", { before: addShopKey });
		await page.goto(`${stack.worker.url}/feedback/shop`);
		await page.getByText("No feedback yet for this project.").waitFor();
		const env = await stack.worker.server.getWorker<{ DB: Database }>().getEnv();
		await env.DB.prepare("UPDATE sessions SET expires_at = ? WHERE user_id = (SELECT id FROM users WHERE email = ?)").bind(Date.now() - 1000, email).run();
		// The next request is refused with 401.
		await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Issues" }).click();
		await page.getByRole("status").filter({ hasText: "Your session has expired. Sign in again." }).waitFor();
		expect(new URL(page.url()).pathname).toBe("/issues/shop");
		expect(await axeViolations(page)).toEqual([]);
		await page.screenshot({ path: join(ARTIFACTS, "session-expired.png"), fullPage: true });

		await page.getByLabel("Email").fill(email);
		await page.getByLabel("Password").fill("correct horse battery");
		await page.getByRole("button", { name: "Sign in", exact: true }).click();
		await page.getByText("No open issues.").waitFor();
		expect(await page.getByText("Your session has expired").count()).toBe(0);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("a link to a project the owner does not have", () => {
	it("says there is no such project instead of an empty inbox", async () => {
		const { context, page, pageErrors } = await signedIn("unknown-project", "10.98.0.5");
		await page.goto(`${stack.worker.url}/feedback/gone-app`);
		await page.getByText('You have no project named "gone-app"').waitFor();
		expect(await axeViolations(page)).toEqual([]);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("an address with a filter value the service does not take", () => {
	it("says the address is at fault and links to the page without its choices", async () => {
		const { context, page, pageErrors } = await signedIn("bad-filter", "10.98.0.11", {
			before: addShopKey,
		});
		await page.goto(`${stack.worker.url}/feedback/shop?status=bogus`);
		const alert = page.getByRole("alert").filter({ hasText: "This page's address holds something the service does not take (status:" });
		await alert.waitFor();
		await alert.getByRole("link", { name: "Show this page without its choices" }).click();
		await page.getByText("No feedback yet for this project.").waitFor();
		expect(new URL(page.url()).search).toBe("");
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("an issue list's address with a status, sort or period the list does not offer", () => {
	it("lists and selects the default instead, without the value, rather than the service's refusal of it", async () => {
		let resolved = "";
		const { context, page, pageErrors } = await signedIn("bad-issue-filter", "10.98.0.15", {
			before: async (token) => {
				const key = await addShopKey(token);
				for (const message of ["Checkout failed", "Login failed"]) {
					await api(stack.worker.url, "/api/app-logs-ingest", { token: key, json: { message } });
				}
				const issues = await issuesOnceThereAre(expect, stack.worker.url, token, "shop", 2);
				resolved = issues.find((issue) => issue.title === "Login failed")?.group_hash ?? "";
				await api(stack.worker.url, `/api/issues/${resolved}`, { token, method: "PATCH", json: { project_name: "shop", status: "resolved" } });
			},
		});
		await page.goto(`${stack.worker.url}/issues/shop?status=bogus&sort=oldest&period=2y&environment=production`);
		// The open issues, as the select says; the values it does not offer gone from the address, the others kept.
		await expect.poll(() => new URL(page.url()).search).toBe("?environment=production");
		expect(await page.getByRole("combobox", { name: /^Status/ }).inputValue()).toBe("open");
		expect(await page.getByRole("combobox", { name: /^Sort by/ }).inputValue()).toBe("last_seen");
		expect(await page.getByRole("combobox", { name: /^Seen in/ }).inputValue()).toBe("");
		await page.goto(`${stack.worker.url}/issues/shop?status=bogus`);
		await page.getByRole("link", { name: "Checkout failed" }).waitFor();
		expect(await page.getByRole("link", { name: "Login failed" }).count()).toBe(0);
		expect(await page.getByRole("alert").count()).toBe(0);
		expect(new URL(page.url()).search).toBe("");
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("a project whose name holds a slash", () => {
	it("opens from a link to any of its pages, as it does by clicking", async () => {
		const { context, page, pageErrors } = await signedIn("slash-project", "10.98.0.8", {
			before: (token) => api(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "ios/beta #2" } }),
		});
		const encoded = encodeURIComponent("ios/beta #2");
		for (const [path, shown] of [
			[`/projects/${encoded}`, "Project key"],
			[`/feedback/${encoded}`, "No feedback yet for this project."],
			[`/issues/${encoded}`, "No open issues."],
		]) {
			// The asset server would redirect a %2F in the path to a "/", splitting the name.
			expect((await fetch(stack.worker.url + path, { redirect: "manual" })).status).toBe(200);
			await page.goto(stack.worker.url + path);
			await page.getByText(shown).first().waitFor();
			expect(new URL(page.url()).pathname).toBe(path);
		}
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("a breakdown longer than its card", () => {
	it("shows its top 10 and says there are more, at 11 pages and not at 10", async () => {
		let trackingId = "";
		const { context, page, pageErrors } = await signedIn("many-pages", "10.98.0.13", {
			before: async (token) => {
				trackingId = await addSite(token, "many.example");
			},
		});
		const view = (path: string) =>
			fetch(`${stack.worker.url}/api/collect`, {
				method: "POST",
				headers: { "content-type": "text/plain", "user-agent": DESKTOP_CHROME },
				body: JSON.stringify({ tracking_id: trackingId, v: "2", url_host: "many.example", url_path: path, visitor_id: `visitor-${path}` }),
			}).then((res) => expect(res.status).toBe(204));
		const pages = page.getByRole("region", { name: "Pages" });
		const more = pages.getByText("The top 10 of more; the CSV holds every one.");
		for (let i = 1; i <= 10; i++) await view(`/p${i}`);
		await page.goto(`${stack.worker.url}/analytics/${trackingId}`);
		await expect.poll(() => pages.locator("tbody tr").count()).toBe(10);
		expect(await more.count()).toBe(0);
		await view("/p11");
		await page.reload();
		await more.waitFor();
		expect(await pages.locator("tbody tr").count()).toBe(10);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("a site whose collection is off", () => {
	it("says so on its dashboard", async () => {
		let trackingId = "";
		const { context, page, pageErrors } = await signedIn("paused-site", "10.98.0.9", {
			before: async (token) => {
				trackingId = await addSite(token, "paused.example");
				await api(stack.worker.url, `/api/sites/${trackingId}`, { method: "PATCH", token, json: { active: false } });
			},
		});
		await page.goto(`${stack.worker.url}/analytics/${trackingId}`);
		await page.getByRole("status").filter({ hasText: "Collection is off for this site" }).waitFor();
		expect(await axeViolations(page)).toEqual([]);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("the issue list's Clear", () => {
	it("shows for any choice in the address, a status or a sort too, and puts them all back", async () => {
		const { context, page, pageErrors } = await signedIn("clears-issues", "10.98.0.12", {
			before: addShopKey,
		});
		await page.goto(`${stack.worker.url}/issues/shop`);
		await page.getByText("No open issues.").waitFor();
		expect(await page.getByRole("button", { name: "Clear" }).count()).toBe(0);
		await page.goto(`${stack.worker.url}/issues/shop?status=resolved&sort=count`);
		await page.getByText("No issues match these filters.").waitFor();
		await page.getByRole("button", { name: "Clear" }).click();
		await page.getByText("No open issues.").waitFor();
		expect(new URL(page.url()).search).toBe("");
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("deleting feedback from its own page", () => {
	it("takes the owner back to the list without asking for the deleted item again", async () => {
		const { context, page, pageErrors } = await signedIn("deletes-feedback", "10.98.0.10", {
			before: async (token) => {
				await api(stack.worker.url, "/functions/v1/submit-feedback", { token: await addShopKey(token), json: { title: "Crash on save", description: "It crashes" } });
			},
		});
		const notFound: string[] = [];
		page.on("response", (response) => {
			if (response.status() === 404) notFound.push(response.url());
		});
		await page.goto(`${stack.worker.url}/feedback/shop`);
		await page.getByRole("link", { name: "Crash on save" }).click();
		await page.getByRole("button", { name: "Delete…" }).click();
		await page.getByRole("button", { name: "Delete feedback" }).click();
		await page.getByText("No feedback yet for this project.").waitFor();
		expect(notFound).toEqual([]);
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("an issue with a 1,000-character title", () => {
	it("takes two lines of the list, and its page shows it whole", async () => {
		const title = `Error: ${"the cart could not be saved because ".repeat(30)}`.slice(0, 1_000);
		const { context, page, pageErrors } = await signedIn("long-title", "10.98.0.13", {
			before: async (token) => {
				await api(stack.worker.url, "/api/app-logs-ingest", { token: await addShopKey(token), json: { message: title } });
			},
		});
		await page.goto(`${stack.worker.url}/issues/shop`);
		const link = page.locator(".issue-row .title");
		await link.waitFor();
		const lineHeight = await link.evaluate((element) => Number.parseFloat(getComputedStyle(element).lineHeight));
		expect((await link.boundingBox())?.height).toBeLessThanOrEqual(2 * lineHeight + 1);
		await link.click();
		await page.getByRole("heading", { name: title.trim() }).waitFor();
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("signing out, then in as someone else", () => {
	it("starts the next owner at their own projects, and the sign-in form forgets the other form's error", async () => {
		const { context, page, pageErrors } = await signedIn("signs-out", "10.98.0.7");
		await page.goto(`${stack.worker.url}/feedback/gone-app`);
		await page.getByRole("button", { name: "Sign out" }).first().click();
		await page.getByRole("heading", { name: "Sign in to svc" }).waitFor();
		// The root, which opens the next owner's projects once they sign in; signed out, not expired.
		expect(new URL(page.url()).pathname).toBe("/");
		expect(await page.getByText("Your session has expired").count()).toBe(0);

		await page.getByLabel("Email").fill("nobody@example.com");
		await page.getByLabel("Password").fill("not the password");
		await page.getByRole("button", { name: "Sign in", exact: true }).click();
		await page.getByRole("alert").waitFor();
		await page.getByRole("button", { name: /Create one/ }).click();
		await page.getByRole("heading", { name: "Create your svc account" }).waitFor();
		expect(await page.getByRole("alert").count()).toBe(0);
		await page.getByText("At least 8 characters.").waitFor();
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("when a page's code cannot load", () => {
	it("says so in words, and the navigation still works", async () => {
		const { context, page: broken } = await signedIn("broken", "10.98.0.2");
		// As after a deploy that replaced the chunks an open console still asks for.
		await broken.route(/\/assets\/(AnalyticsPage|TimeChart)-[\w-]+\.js$/, (route) => route.fulfill({ status: 404, body: "" }));
		await broken.goto(`${stack.worker.url}/analytics`);
		await broken.getByRole("alert").filter({ hasText: "This page could not be shown" }).waitFor();
		await broken.getByRole("button", { name: "Reload" }).waitFor();
		expect(await axeViolations(broken)).toEqual([]);
		await broken.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Account" }).click();
		await broken.getByRole("heading", { name: "Account" }).waitFor();
		await context.close();
	});
});

describe("in a browser that reports a POSIX locale", () => {
	it("draws the dashboard's chart (a headless browser started without a locale reports en-US@posix)", async () => {
		let site = { tracking_id: "" };
		const { context, page: posix, pageErrors: errors } = await signedIn("posix", "10.98.0.3", {
			locale: "en-US@posix",
			before: async (token) => {
				site = { tracking_id: await addSite(token, "posix.example") };
			},
		});
		await posix.goto(`${stack.worker.url}/analytics/${site.tracking_id}`);
		await posix.getByRole("heading", { name: "Dashboard" }).waitFor();
		await posix.locator(".chart canvas").first().waitFor();
		expect(await posix.getByText("This page could not be shown").count()).toBe(0);
		expect(errors).toEqual([]);
		// What the page's own code reads: the same tag, made one Intl accepts.
		expect(await posix.evaluate(() => navigator.language)).toBe("en-US");
		await context.close();
	});
});

describe("in a browser west of UTC", () => {
	it("asks for whole UTC days and draws today's visits on today, in UTC", async () => {
		let trackingId = "";
		const { context, page, pageErrors } = await signedIn("new-york", "10.98.0.14", {
			timezoneId: "America/New_York",
			before: async (token) => {
				trackingId = await addSite(token, "west.example");
				const res = await fetch(`${stack.worker.url}/api/collect`, {
					method: "POST",
					headers: { "content-type": "text/plain", "user-agent": DESKTOP_CHROME },
					body: JSON.stringify({ tracking_id: trackingId, v: "2", url_host: "west.example", url_path: "/" }),
				});
				expect(res.status).toBe(204);
			},
		});
		const asked = page.waitForRequest((request) => request.url().includes(`/api/sites/${trackingId}/stats?`));
		await page.goto(`${stack.worker.url}/analytics/${trackingId}`);
		const today = Math.floor(Date.now() / 86_400_000) * 86_400_000;
		const query = new URL((await asked).url()).searchParams;
		expect([query.get("from"), query.get("to")]).toEqual([new Date(today - 6 * 86_400_000).toISOString(), new Date(today + 86_400_000).toISOString()]);
		expect(await page.getByText("UTC days").isVisible()).toBe(true);
		// The last day's point, under the pointer: today's UTC date, at its UTC midnight.
		const plot = page.locator(".chart .u-over").first();
		await page.getByTestId("figure-Visitors").locator(".value").filter({ hasText: "1" }).waitFor();
		const box = await plot.boundingBox();
		await plot.hover({ position: { x: (box?.width ?? 2) - 1, y: (box?.height ?? 2) / 2 } });
		const time = page.locator(".chart .u-legend .u-series").first();
		await expect.poll(() => time.textContent()).toContain(new Date(today).toISOString().slice(0, 10));
		expect(await time.textContent()).toContain("Time (UTC)");
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});

describe("a filtered view over more events than the statistics count one by one", () => {
	it("says the figures are estimated from a share of the visitors, and counts every one on request", async () => {
		const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000;
		let site = { tracking_id: "" };
		const { context, page, pageErrors } = await signedIn("sampled", "10.98.0.4", {
			before: async (token) => {
				site = { tracking_id: await addSite(token, "sampled.example") };
				const env = await stack.worker.server.getWorker<{ DB: Database }>().getEnv();
				// The rollups (the hour's row and its UTC day's, as the collector writes both) say the hour
				// held one event more than a filtered answer counts one by one; the two events themselves
				// are of visitors in the sample's first bucket and in its last.
				for (const [span, start] of [[3_600_000, hour], [86_400_000, Math.floor(hour / 86_400_000) * 86_400_000]]) {
					await env.DB.prepare("INSERT INTO analytics_rollups (tracking_id, dim, span, start, value, pageviews) VALUES (?, '', ?, ?, '', ?)")
						.bind(site.tracking_id, span, start, OWNER_LIMITS.statsSampleEvents + 1)
						.run();
				}
				for (const [id, visitor] of [["e1", "00".padEnd(32, "a")], ["e2", "ff".padEnd(32, "a")]]) {
					await env.DB.prepare("INSERT INTO analytics_events (tracking_id, event_id, ts, visitor_id, country, url_path) VALUES (?, ?, ?, ?, 'DE', '/')")
						.bind(site.tracking_id, id, hour + 60_000, visitor)
						.run();
				}
			},
		});
		await page.goto(`${stack.worker.url}/analytics/${site.tracking_id}?country=DE`);
		const note = page.getByTestId("sample-note");
		await note.waitFor();
		expect(await note.textContent()).toContain("Estimated from 99.6 % of visitors");
		// Of the two page views, the sample holds the first bucket's: 1 × 256 / 255, rounded.
		expect(await page.getByTestId("figure-Page views").locator(".value").textContent()).toBe("1");
		expect(await axeViolations(page)).toEqual([]);

		await page.getByRole("button", { name: "Count every visitor" }).click();
		await page.getByText("Every visitor counted").waitFor();
		expect(new URL(page.url()).searchParams.get("exact")).toBe("true");
		await expect.poll(() => page.getByTestId("figure-Page views").locator(".value").textContent()).toBe("2");
		expect(await note.count()).toBe(0);
		await page.screenshot({ path: join(ARTIFACTS, "dashboard-sampled.png"), fullPage: true });
		await page.getByRole("button", { name: "Estimate instead" }).click();
		await note.waitFor();
		expect(pageErrors).toEqual([]);
		await context.close();
	});
});
