/** An issue's page as the issue-page tests open it: a new owner, a project, its events, a browser. */
import { expect } from "vitest";
import { DESKTOP, useSession } from "./consolePage";
import { api, signUpOwner, type workerAndBrowser } from "./stack";

/** A new owner with a project "shop" whose key has sent `events`, signed in on the issue's page in a browser set to `timezoneId`. */
export const issuePageOf =
	(stack: ReturnType<typeof workerAndBrowser>) =>
	async (name: string, ip: string, events: object[], timezoneId?: string) => {
	const { token } = await signUpOwner(stack.worker.url, name, ip);
	const { raw_api_key: key } = await api<{ raw_api_key: string }>(stack.worker.url, "/api/feedback-key", { token, json: { project_name: "shop" } });
	let hash = "";
	for (const event of events) {
		const res = await fetch(`${stack.worker.url}/api/app-logs-ingest`, { method: "POST", headers: { "x-svc-key": key, "content-type": "application/json" }, body: JSON.stringify(event) });
		expect(res.status, await res.clone().text()).toBe(200);
		hash = (await res.json()).group_hash;
		// Received one after the other: the list puts the last sent first.
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
	const context = await stack.browser.newContext({ viewport: DESKTOP, locale: "en-US", timezoneId });
	const page = await context.newPage();
	const pageErrors: string[] = [];
	page.on("pageerror", (error) => pageErrors.push(error.message));
	await useSession(page, stack.worker.url, token);
	await page.goto(`${stack.worker.url}/issues/shop/${hash}`);
	await page.locator("#exception-heading").waitFor();
	const issue = await api<{ first_seen: string; last_seen: string; events: { id: string; timestamp: string; received_at: string }[] }>(stack.worker.url, `/api/issues/${hash}?project_name=shop`, { token });
	return { page, context, pageErrors, issue, token, key };
};

export const crash = (mechanism: object, extra: object = {}) => ({
	exception: { type: "TypeError", value: "x is undefined", stacktrace: { frames: [{ filename: "src/pay.ts", function: "pay", in_app: true }] }, mechanism },
	...extra,
});
