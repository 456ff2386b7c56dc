import crawlerNames from "../../domain/crawl/data/crawler-names.json";

/**
 * A Cloudflare Worker in front of a site that reports its AI crawlers' visits to this service.
 * It looks for every name of the service's crawler list (crawler-names.json, written with the
 * list by `npm run crawlers:update`) anywhere in the User-Agent: a first cut, so that a person's
 * visit is not sent, while every visit the service would count is. The service decides the rest
 * (a common word such as `Code` counts only as a client's own product).
 */
const AI_PATTERN = crawlerNames
	.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"))
	.join("|");

export const crawlerForwarder = (origin: string, trackingId: string) => `// A Cloudflare Worker in front of your site (the same lines fit any server or edge):
// every request passes through as before; an AI crawler's visit is reported to svc
// after the answer, without holding it up.
// The names of the AI crawlers and agents svc knows (ai.robots.txt's list and a few more).
const AI = /${AI_PATTERN}/i;

export default {
  async fetch(request, env, ctx) {
    const response = await fetch(request);
    const ua = request.headers.get("user-agent") ?? "";
    if (AI.test(ua)) {
      const url = new URL(request.url);
      ctx.waitUntil(fetch("${origin}/api/bot-crawl-ingest", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          tracking_id: "${trackingId}",
          url_host: url.hostname,
          url_path: url.pathname,
          ua,
          ip: request.headers.get("cf-connecting-ip"), // checked against the operator's published addresses
          country: request.cf?.country,
          status: response.status,
        }),
      }));
    }
    return response;
  },
};`;
