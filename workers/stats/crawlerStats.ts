import type { IRequest } from "itty-router";
import { computeCrawlerStats } from "../../domain/crawl/visitStore";
import { json } from "../http";
import { ownSiteUpToDate } from "./ownSite";
import { readRange } from "./range";

/** GET /api/sites/:tracking_id/crawlers?from=&to=&limit= → AI-crawler visits (docs/api.md). */
export async function crawlerStats(request: IRequest, env: Env): Promise<Response> {
	const range = readRange(request.query);
	const site = await ownSiteUpToDate(request, env);
	// The series stops at the bucket under way: hours to come are not zeros.
	return json(await computeCrawlerStats(env, site.trackingId, range, Date.now()));
}
