/**
 * A Cloudflare Worker in front of a site that reports its AI crawlers' visits to this service.
 * Its pattern is a rough first cut, so that not every request is sent: the service decides which
 * user agents are AI crawlers, and ignores the rest.
 */
export const crawlerForwarder = (origin: string, trackingId: string) => `// A Cloudflare Worker in front of your site (the same lines fit any server or edge):
// every request passes through as before; an AI crawler's visit is reported to svc
// after the answer, without holding it up.
const AI = /GPTBot|ChatGPT|OAI-SearchBot|Claude|anthropic|Perplexity|Google-Extended|CCBot|Bytespider|Amazonbot|Applebot|meta-external|cohere|DuckAssistBot|MistralAI|YouBot/i;

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
