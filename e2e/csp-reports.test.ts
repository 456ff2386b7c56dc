/**
 * Content-Security-Policy violations as Chromium reports them to Sentry's security endpoint: a
 * shop's page whose policy's `report-uri` is the Worker's /api/<id>/security/ address loads a
 * script from another host and runs inline code, and each violation the browser reports becomes
 * an issue, titled as Sentry titles it.
 */
import { expect, it } from "vitest";
import { api, issuesOnceThereAre, serveSite, signUpOwner, workerAndBrowser } from "./stack";

const stack = workerAndBrowser();

it("each violation Chromium reports to the policy's report-uri is an issue event, grouped by what was blocked", async () => {
	const { token } = await signUpOwner(stack.worker.url, "csp", "10.98.0.1");
	const created = await api<{ raw_api_key: string; dsn: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
	const dsnId = created.dsn.split("/").pop();
	const reportUri = `${stack.worker.url}/api/${dsnId}/security/?sentry_key=${created.raw_api_key}`;
	const page = `<!doctype html><html><head><title>Shop</title>
<script src="https://cdn.evil.example/steal.js"></script>
<script>document.title = "ran inline";</script>
</head><body><h1>Shop</h1></body></html>`;
	const shop = await serveSite(({ pathname }) =>
		pathname === "/" ? { type: "text/html", text: page, headers: { "content-security-policy": `script-src 'self'; report-uri ${reportUri}` } } : null,
	);
	try {
		const tab = await stack.browser.newPage();
		await tab.goto(`${shop.origin}/`);
		expect(await tab.title()).toBe("Shop"); // the inline script was blocked
		const issues = await issuesOnceThereAre(expect, stack.worker.url, token, "shop", 2);
		expect(issues.map((issue) => issue.title).sort()).toEqual(["Blocked 'script' from 'cdn.evil.example'", "Blocked unsafe inline 'script'"]);
		expect(issues.every((issue) => issue.level === "error")).toBe(true);
		await tab.close();
	} finally {
		await shop.close();
	}
});
