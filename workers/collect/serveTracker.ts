import type { IRequest } from "itty-router";
import linksScript from "../../clients/tracker/dist/t-links.txt";
import script from "../../clients/tracker/dist/t.txt";
import { sha256Hex } from "../../domain/crypto";

/**
 * A tracker script (clients/tracker, built by its `build` script): GET /t.js, and GET /t.links.js,
 * the same with clicks on outbound links and file downloads counted. Cached by browsers and CDNs
 * for an hour, then revalidated by ETag, so a new tracker reaches every site within a day.
 */
function trackerRoute(code: string) {
	let etag: Promise<string> | undefined;
	return async (request: IRequest): Promise<Response> => {
		etag ??= sha256Hex(code).then((hash) => `"${hash.slice(0, 32)}"`);
		const tag = await etag;
		const headers = {
			"content-type": "text/javascript; charset=utf-8",
			"cache-control": "public, max-age=3600, stale-while-revalidate=86400",
			etag: tag,
			"access-control-allow-origin": "*",
			// Pages with Cross-Origin-Embedder-Policy may load it too.
			"cross-origin-resource-policy": "cross-origin",
			"x-content-type-options": "nosniff",
		};
		if (request.headers.get("if-none-match")?.split(/\s*,\s*/).includes(tag)) return new Response(null, { status: 304, headers });
		return new Response(request.method === "HEAD" ? null : code, { headers });
	};
}

export const serveTracker = trackerRoute(script);
export const serveLinksTracker = trackerRoute(linksScript);
