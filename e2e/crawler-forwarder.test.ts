import { afterAll, beforeAll, describe, it } from "vitest";
import { crawlerForwarder } from "../console/src/crawlerForwarder";
import { CRAWLERS } from "../domain/crawl/crawlers";
import { api, ownerWithSite, startSite, startWorker } from "./stack";

/**
 * The Worker the Crawlers page gives an owner to put in front of their site, run as a module the
 * way workerd runs it (its default export's fetch, with a context's waitUntil), against a real
 * site and the real collector: what an AI crawler reads is reported, a person's visit is not.
 */

let worker: Awaited<ReturnType<typeof startWorker>>;
let site: Awaited<ReturnType<typeof startSite>>;

beforeAll(async () => {
	worker = await startWorker();
	site = await startSite(worker.url);
});

afterAll(async () => {
	await site?.close();
	await worker?.close();
});

interface Forwarder {
	fetch(request: Request, env: unknown, ctx: { waitUntil(promise: Promise<unknown>): void }): Promise<Response>;
}

/** The page's snippet for the site, with this service's address (the page's own origin there), loaded as the module it is. */
async function forwarderFor(trackingId: string): Promise<Forwarder> {
	const source = crawlerForwarder(worker.url, trackingId);
	return (await import(`data:text/javascript,${encodeURIComponent(source)}`)).default;
}

describe("the AI-crawler forwarder the Crawlers page gives", () => {
	it("passes every request through and reports an AI crawler's visit, verified by its address", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(worker.url, "localhost");
		const forwarder = await forwarderFor(trackingId);
		const pending: Promise<unknown>[] = [];
		const ctx = { waitUntil: (promise: Promise<unknown>) => void pending.push(promise) };
		const visit = (ua: string, ip: string) =>
			forwarder.fetch(new Request(`${site.origin}/docs/intro?utm=x`, { headers: { "user-agent": ua, "cf-connecting-ip": ip } }), {}, ctx);

		const crawler = await visit("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", "20.171.206.17");
		const person = await visit("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "10.1.2.3");
		expect([crawler.status, person.status]).toEqual([200, 200]);
		expect(await crawler.text()).toContain("Test shop");
		expect(pending).toHaveLength(1);
		expect((await (pending[0] as Promise<Response>)).status).toBe(204);

		const stats = await api<{ visits: number; verified_visits: number; recent: Array<Record<string, unknown>> }>(worker.url, `/api/sites/${trackingId}/crawlers`, { token });
		expect(stats).toMatchObject({ visits: 1, verified_visits: 1 });
		expect(stats.recent[0]).toMatchObject({ crawler: "GPTBot", url_host: "localhost", url_path: "/docs/intro", status: 200, verified: true });
	});

	it("reports every crawler the service counts, not only the best known (GoogleOther, DeepSeekBot, archive.org_bot…)", async ({ expect }) => {
		const { token, trackingId } = await ownerWithSite(worker.url, "localhost");
		const forwarder = await forwarderFor(trackingId);
		const pending: Promise<unknown>[] = [];
		const ctx = { waitUntil: (promise: Promise<unknown>) => void pending.push(promise) };
		const reported: string[] = [];
		for (const { name } of CRAWLERS) {
			const before = pending.length;
			await forwarder.fetch(new Request(`${site.origin}/docs`, { headers: { "user-agent": `Mozilla/5.0 (compatible; ${name}/1.0; +https://example.org/bot)` } }), {}, ctx);
			if (pending.length > before) reported.push(name);
		}
		expect(CRAWLERS.map((c) => c.name).filter((name) => !reported.includes(name))).toEqual([]);
		expect(new Set((await Promise.all(pending as Promise<Response>[])).map((r) => r.status))).toEqual(new Set([204]));
		const stats = await api<{ visits: number }>(worker.url, `/api/sites/${trackingId}/crawlers`, { token });
		expect(stats.visits).toBe(CRAWLERS.length);
	});
});
