import type { IRequest } from "itty-router";
import type { OwnerRequest } from "../auth/session";
import { siteUpToDate } from "../sites/siteBuffer";
import { requireOwnSite } from "../sites/sites";

/** The signed-in owner's site named in the path (404 for anyone else's), with every accepted event already in D1. */
export async function ownSiteUpToDate(request: IRequest, env: Env) {
	const site = await requireOwnSite(env, (request as OwnerRequest).user.id, request.params.tracking_id);
	await siteUpToDate(env, site.trackingId);
	return site;
}
