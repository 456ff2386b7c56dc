import { eq } from "drizzle-orm";
import { sites, users } from "../../schema";
import { hasAccess } from "../auth/session";
import { database } from "../db";

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
