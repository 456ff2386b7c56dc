import type { IRequest } from "itty-router";
import script from "../../clients/tracker/dist/t.txt";
import { sha256Hex } from "../../domain/crypto";

let etag: Promise<string> | undefined;

/**
 * GET /t.js: the tracker (clients/tracker, built by its `build` script). Cached by browsers and
 * CDNs for an hour, then revalidated by ETag, so a new tracker reaches every site within a day.
 */
export async function serveTracker(request: IRequest): Promise<Response> {
	etag ??= sha256Hex(script).then((hash) => `"${hash.slice(0, 32)}"`);
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
	return new Response(request.method === "HEAD" ? null : script, { headers });
}
