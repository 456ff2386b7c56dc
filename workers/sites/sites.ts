import { and, desc, eq } from "drizzle-orm";
import type { IRequest } from "itty-router";
import { z } from "zod";
import { analyticsEvents, analyticsIdentities, crawlerVisits, sites } from "../../schema";
import type { OwnerRequest } from "../auth/session";
import { database } from "../db";
import { HttpError, json, readJsonObject } from "../http";
import { siteCollectorFor } from "../siteCollector";
import { parseBody } from "../validation";
import { normalizeDomain } from "./domain";
import { newTrackingId } from "./trackingId";

export type Site = typeof sites.$inferSelect;

/** The site as every answer shows it (DESIGN.md 5.5). */
export function siteView(site: Site) {
	return {
		tracking_id: site.trackingId,
		name: site.name,
		domain: site.domain,
		active: site.active,
		attack_mode: site.attackMode,
		created_at: site.createdAt.toISOString(),
	};
}

/** A host name, or null (or "") for none: then collection answers 403 until one is set. */
const domainSchema = z
	.string()
	.max(300, "must be at most 300 characters")
	.nullable()
	.transform((value, ctx) => {
		if (value === null || value.trim() === "") return null;
		const domain = normalizeDomain(value);
		if (!domain) {
			ctx.addIssue({ code: "custom", message: "must be a host name such as example.com" });
			return z.NEVER;
		}
		return domain;
	});
const nameSchema = z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters");

const createSchema = z.object({ domain: domainSchema.optional(), name: nameSchema.optional() });
const updateSchema = z
	.object({
		name: nameSchema.optional(),
		domain: domainSchema.optional(),
		active: z.boolean().optional(),
		attack_mode: z.boolean().optional(),
	})
	.refine((patch) => Object.values(patch).some((v) => v !== undefined), "name, domain, active or attack_mode is required");

/** The owner's site, else 404: another owner's tracking ID is indistinguishable from an unknown one. */
export async function findOwnSite(env: Env, userId: string, trackingId: string): Promise<Site> {
	const site = await database(env).query.sites.findFirst({
		where: and(eq(sites.trackingId, trackingId), eq(sites.userId, userId)),
	});
	if (!site) throw new HttpError(404, "Site not found");
	return site;
}

/** POST /api/sites {domain, name?} → 201 the site, with a new random tracking ID. */
export async function createSite(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const input = parseBody(createSchema, await readJsonObject(request));
	const domain = input.domain ?? null;
	const now = new Date();
	const [site] = await database(env)
		.insert(sites)
		.values({
			trackingId: newTrackingId(),
			userId: user.id,
			name: input.name ?? domain ?? "Untitled site",
			domain,
			createdAt: now,
			updatedAt: now,
		})
		.returning();
	return json(siteView(site), { status: 201 });
}

/** GET /api/sites → {sites: [...]}, the owner's own, newest first. Uses sites_user_idx. */
export async function listSites(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const rows = await database(env).query.sites.findMany({
		where: eq(sites.userId, user.id),
		orderBy: [desc(sites.createdAt), desc(sites.trackingId)],
	});
	return json({ sites: rows.map(siteView) });
}

/** GET /api/sites/:tracking_id */
export async function readSite(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	return json(siteView(await findOwnSite(env, user.id, request.params.tracking_id)));
}

/** PATCH /api/sites/:tracking_id {name?, domain?, active?, attack_mode?} → the site. Collection follows at once. */
export async function updateSite(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const patch = parseBody(updateSchema, await readJsonObject(request));
	const trackingId = request.params.tracking_id;
	const [site] = await database(env)
		.update(sites)
		.set({
			...(patch.name !== undefined && { name: patch.name }),
			...(patch.domain !== undefined && { domain: patch.domain }),
			...(patch.active !== undefined && { active: patch.active }),
			...(patch.attack_mode !== undefined && { attackMode: patch.attack_mode }),
			updatedAt: new Date(),
		})
		.where(and(eq(sites.trackingId, trackingId), eq(sites.userId, user.id)))
		.returning();
	if (!site) throw new HttpError(404, "Site not found");
	// The collector caches the site's settings; it rereads them on its next event.
	await siteCollectorFor(env, trackingId).siteChanged({ deleted: false });
	return json(siteView(site));
}

/** DELETE /api/sites/:tracking_id → 204; the site's events and crawler visits go with it. */
export async function deleteSite(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const trackingId = request.params.tracking_id;
	const db = database(env);
	const [site] = await db
		.delete(sites)
		.where(and(eq(sites.trackingId, trackingId), eq(sites.userId, user.id)))
		.returning({ trackingId: sites.trackingId });
	if (!site) throw new HttpError(404, "Site not found");
	// Order matters: once the collector has forgotten the site (and dropped what it had not yet
	// written), nothing more can arrive for it, so the deletes below leave no stragglers.
	await siteCollectorFor(env, trackingId).siteChanged({ deleted: true });
	await db.batch([
		db.delete(analyticsEvents).where(eq(analyticsEvents.trackingId, trackingId)),
		db.delete(analyticsIdentities).where(eq(analyticsIdentities.trackingId, trackingId)),
		db.delete(crawlerVisits).where(eq(crawlerVisits.trackingId, trackingId)),
	]);
	return new Response(null, { status: 204 });
}
