import type { IRequest } from "itty-router";
import type { OwnerRequest } from "../auth/session";
import { siteCollectorFor } from "../objects";
import { sendBuffered } from "../sites/siteBuffer";
import { requireOwnSite } from "../sites/sites";

/**
 * The signed-in owner's site named in the path (404 for anyone else's), with every accepted event
 * already in D1: accepted events may still sit in this isolate's buffer or the collector's outbox,
 * and reads include them (other isolates' buffers arrive within a second).
 */
export async function ownSiteUpToDate(request: IRequest, env: Env) {
	const site = await requireOwnSite(env, (request as OwnerRequest).user.id, request.params.tracking_id);
	await sendBuffered(env, site.trackingId);
	await siteCollectorFor(env, site.trackingId).flush();
	return site;
}
