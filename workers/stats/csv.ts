import type { Site } from "../../domain/sites/siteStore";
import { fileNamePart } from "../csv";

/**
 * A CSV's file name as an owner would save it: the site's domain (its name when it has none), the
 * breakdown, and the days the range covers, first and last (the range's end is exclusive, so a
 * month's export ends on its last day, not the next month's first): `example.com-sources-2025-03-01-2025-03-31.csv`.
 */
export function csvFileName(site: Pick<Site, "domain" | "name" | "trackingId">, breakdown: string, range: { from: number; to: number }): string {
	const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
	const title = fileNamePart(site.domain ?? site.name, site.trackingId);
	const days = [day(range.from), day(Math.max(range.from, range.to - 1))];
	return `${title}-${breakdown}-${days[0] === days[1] ? days[0] : days.join("-")}.csv`;
}
