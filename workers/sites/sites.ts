import type { IRequest } from "itty-router";
import { z } from "zod";
import type { SiteView, SiteWithFiguresView } from "../../domain/api/sites";
import { DAY_MS, HOUR_MS, OWNER_SITES_HOURS, wholeHours } from "../../domain/analytics/rollups";
import { fillSeries } from "../../domain/analytics/statsRange";
import { deleteSiteEvents } from "../../domain/analytics/eventStore";
import { deleteSiteVisits } from "../../domain/crawl/visitStore";
import { OWNER_LIMITS } from "../../domain/limits";
import { readDomain } from "../../domain/sites/hostnames";
import { countOwnSites, deleteOwnSite, findOwnSite, insertSite, listOwnSites, type Site, updateOwnSite } from "../../domain/sites/siteStore";
import type { OwnerRequest } from "../auth/session";
import { HttpError, json, readJsonObject } from "../http";
import { siteCollectorFor } from "../objects";
import { retentionDays } from "../retention/retentionSettings";
import { siteChangedHere, siteUpToDate } from "./siteBuffer";
import { bodyMembers, parseBody, queryParams } from "../validation";
import { isNameText, NAME_TEXT_RULE } from "../../domain/text";

/**
 * The first UTC day of a site's statistics: the day it was added, or the first whole day the
 * analytics retention keeps (the clean-up deletes what is older than that many days, and the day
 * the cutoff falls in only in part), whichever is later.
 */
function statsFrom(createdAt: Date, env: Env, now: number): string {
	const added = Math.floor(createdAt.getTime() / DAY_MS) * DAY_MS;
	const firstKept = Math.ceil((now - retentionDays(env).analytics * DAY_MS) / DAY_MS) * DAY_MS;
	return new Date(Math.max(added, firstKept)).toISOString().slice(0, 10);
}

/** The site as every answer shows it. */
function siteView(site: Site, env: Env, now = Date.now()): SiteView {
	return {
		tracking_id: site.trackingId,
		name: site.name,
		domain: site.domain,
		active: site.active,
		attack_mode: site.attackMode,
		created_at: site.createdAt.toISOString(),
		stats_from: statsFrom(site.createdAt, env, now),
		refused_host: site.refusedHost,
		refused_at: site.refusedAt?.toISOString() ?? null,
	};
}

/** A host name that is not a public suffix, or null (or "") for none: then collection answers 403 until one is set. */
const domainSchema = z
	.string()
	.max(300, "must be at most 300 characters")
	.nullable()
	.transform((value, ctx) => {
		if (value === null || value.trim() === "") return null;
		const reading = readDomain(value);
		if ("error" in reading) {
			ctx.addIssue({ code: "custom", message: reading.error });
			return z.NEVER;
		}
		return reading.domain;
	});
const nameSchema = z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters").refine(isNameText, NAME_TEXT_RULE);

const createSchema = bodyMembers({ domain: domainSchema.optional(), name: nameSchema.optional() });
const updateSchema = bodyMembers({
	name: nameSchema.optional(),
	domain: domainSchema.optional(),
	active: z.boolean().optional(),
	attack_mode: z.boolean().optional(),
}).refine((patch) => Object.values(patch).some((v) => v !== undefined), "name, domain, active or attack_mode is required");

const siteNotFound = () => new HttpError(404, "Site not found");

/** The owner's site, else 404: another owner's tracking ID is indistinguishable from an unknown one. */
export async function requireOwnSite(env: Env, userId: string, trackingId: string): Promise<Site> {
	const site = await findOwnSite(env, userId, trackingId);
	if (!site) throw siteNotFound();
	return site;
}

/** POST /api/sites {domain, name?} → 201 the site, with a new random tracking ID. */
export async function createSite(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const input = parseBody(createSchema, await readJsonObject(request));
	const domain = input.domain ?? null;
	const cap = OWNER_LIMITS.sitesPerOwner;
	const atCap = () => new HttpError(403, `An account holds at most ${cap} sites: delete one to add another`);
	if ((await countOwnSites(env, user.id)) >= cap) throw atCap();
	const site = await insertSite(env, user.id, { name: input.name ?? domain ?? "Untitled site", domain });
	// Two creations at once may both pass the count: whichever finds the cap passed takes its site back.
	if ((await countOwnSites(env, user.id)) > cap) {
		await deleteOwnSite(env, user.id, site.trackingId);
		throw atCap();
	}
	return json(siteView(site, env), { status: 201 });
}

const listQuery = queryParams({ figures: z.literal("last_24h", { error: 'must be "last_24h"' }).optional() });

/**
 * GET /api/sites?figures=last_24h → {sites: [...]}, the owner's own, newest first (sites_user_idx);
 * with `figures`, each with its visitors in the last 24 hours, from one statement over every site's
 * hour rollups. Unlike the dashboard it does not first move each site's accepted events to D1 (a
 * call per site): the figures may miss the last second or so.
 */
export async function listSites(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { figures } = parseBody(listQuery, request.query);
	const sites = (await listOwnSites(env, user.id)).map((site) => siteView(site, env));
	return json({ sites: figures ? await withLastDay(env, user.id, sites) : sites });
}

/**
 * The sites with their last 24 hours' visitors: the dashboard's default period, in whole hours.
 * Each site's accepted events are moved to D1 first, as its dashboard does, so the two agree.
 */
async function withLastDay(env: Env, userId: string, sites: SiteView[]): Promise<SiteWithFiguresView[]> {
	await Promise.all(sites.map((site) => siteUpToDate(env, site.tracking_id)));
	const now = Date.now();
	const range = wholeHours({ from: now - 24 * HOUR_MS, to: now, bucketMs: HOUR_MS, limit: 0 });
	const { results } = await env.DB.prepare(OWNER_SITES_HOURS)
		.bind(userId, range.from, range.to)
		.all<{ tracking_id: string; t: number; visitors: number; hour_visitors: number }>();
	const rowsBySite = Map.groupBy(results, (row) => row.tracking_id);
	return sites.map((site) => {
		const rows = rowsBySite.get(site.tracking_id) ?? [];
		const hours = rows.map(({ t, hour_visitors }) => ({ t, visitors: hour_visitors }));
		const visitors = rows.reduce((sum, row) => sum + row.visitors, 0);
		return { ...site, last_24h: { visitors, series: fillSeries(range, hours, { visitors: 0 }, now) } };
	});
}

/** GET /api/sites/:tracking_id */
export async function readSite(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	return json(siteView(await requireOwnSite(env, user.id, request.params.tracking_id), env));
}

/** PATCH /api/sites/:tracking_id {name?, domain?, active?, attack_mode?} → the site. Collection follows at once. */
export async function updateSite(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const patch = parseBody(updateSchema, await readJsonObject(request));
	const trackingId = request.params.tracking_id;
	const site = await updateOwnSite(env, user.id, trackingId, {
		name: patch.name,
		domain: patch.domain,
		active: patch.active,
		attackMode: patch.attack_mode,
	});
	if (!site) throw siteNotFound();
	// The collector caches the site's settings and lends them to isolates; it rereads them now,
	// and this isolate asks it again on its next event (others within seconds).
	await siteCollectorFor(env, trackingId).siteChanged({ deleted: false });
	siteChangedHere(trackingId, { deleted: false });
	return json(siteView(site, env));
}

/** DELETE /api/sites/:tracking_id → 204; the site's events and crawler visits go with it. */
export async function deleteSite(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const trackingId = request.params.tracking_id;
	if (!(await deleteOwnSite(env, user.id, trackingId))) throw siteNotFound();
	// Order matters: once the collector has forgotten the site (and dropped what it had not yet
	// written), it refuses every batch for it, so the deletes below leave no stragglers; this
	// isolate drops what it holds for the site.
	await siteCollectorFor(env, trackingId).siteChanged({ deleted: true });
	siteChangedHere(trackingId, { deleted: true });
	await Promise.all([deleteSiteEvents(env, trackingId), deleteSiteVisits(env, trackingId)]);
	return new Response(null, { status: 204 });
}
