/**
 * The sites table: the owner's analytics sites, and what collection needs to know of one.
 * Every owner query is bounded to the owner: another owner's tracking ID is never read.
 */
import { and, desc, eq } from "drizzle-orm";
import { sites, users } from "../../schema";
import { hasAccess } from "../accounts/userStore";
import { database } from "../db";
import { newTrackingId } from "./trackingId";

export type Site = typeof sites.$inferSelect;

/** What collection needs to know about a site, read once and cached by its SiteCollector. */
export interface SiteConfig {
	domain: string | null;
	active: boolean;
	attackMode: boolean;
	/** The owner's plan and trial: 402 is decided at each event, so a trial ends on time. */
	ownerPlan: "free" | "pro";
	ownerTrialEndsAt: number;
}

/** One indexed read (sites primary key, users primary key). Null when no such site exists. */
export async function loadSiteConfig(env: Env, trackingId: string): Promise<SiteConfig | null> {
	const [row] = await database(env)
		.select({
			domain: sites.domain,
			active: sites.active,
			attackMode: sites.attackMode,
			plan: users.plan,
			trialEndsAt: users.trialEndsAt,
		})
		.from(sites)
		.innerJoin(users, eq(users.id, sites.userId))
		.where(eq(sites.trackingId, trackingId))
		.limit(1);
	if (!row) return null;
	return {
		domain: row.domain,
		active: row.active,
		attackMode: row.attackMode,
		ownerPlan: row.plan,
		ownerTrialEndsAt: row.trialEndsAt.getTime(),
	};
}

export const ownerHasAccess = (site: SiteConfig, now: number) =>
	hasAccess({ plan: site.ownerPlan, trialEndsAt: new Date(site.ownerTrialEndsAt) }, now);

export function findOwnSite(env: Env, userId: string, trackingId: string): Promise<Site | undefined> {
	return database(env).query.sites.findFirst({ where: and(eq(sites.trackingId, trackingId), eq(sites.userId, userId)) });
}

export async function countOwnSites(env: Env, userId: string): Promise<number> {
	return database(env).$count(sites, eq(sites.userId, userId));
}

/** Newest first, by sites_user_idx. */
export function listOwnSites(env: Env, userId: string): Promise<Site[]> {
	return database(env).query.sites.findMany({ where: eq(sites.userId, userId), orderBy: [desc(sites.createdAt), desc(sites.trackingId)] });
}

/** A new site with a new random tracking ID. */
export async function insertSite(env: Env, userId: string, input: { name: string; domain: string | null }): Promise<Site> {
	const now = new Date();
	const [site] = await database(env)
		.insert(sites)
		.values({ trackingId: newTrackingId(), userId, ...input, createdAt: now, updatedAt: now })
		.returning();
	return site;
}

export type SiteChanges = Partial<Pick<Site, "name" | "domain" | "active" | "attackMode">>;

export async function updateOwnSite(env: Env, userId: string, trackingId: string, changes: SiteChanges): Promise<Site | undefined> {
	// A host refused under the old domain says nothing of the new one.
	const refusal = changes.domain === undefined ? {} : { refusedHost: null, refusedAt: null };
	const [site] = await database(env)
		.update(sites)
		.set({ ...changes, ...refusal, updatedAt: new Date() })
		.where(and(eq(sites.trackingId, trackingId), eq(sites.userId, userId)))
		.returning();
	return site;
}

/** Notes a `url_host` collection refused as outside the site's domain, and when (see the column). */
export async function noteRefusedHost(env: Env, trackingId: string, host: string, at: number): Promise<void> {
	await database(env).update(sites).set({ refusedHost: host, refusedAt: new Date(at) }).where(eq(sites.trackingId, trackingId));
}

/** Deletes the site row; false when the owner has no such site. */
export async function deleteOwnSite(env: Env, userId: string, trackingId: string): Promise<boolean> {
	const deleted = await database(env)
		.delete(sites)
		.where(and(eq(sites.trackingId, trackingId), eq(sites.userId, userId)))
		.returning({ trackingId: sites.trackingId });
	return deleted.length > 0;
}
