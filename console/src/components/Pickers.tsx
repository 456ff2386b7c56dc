import { useNavigate, useSearchParams } from "react-router";
import { useProjects, useSites } from "../queries";
import { periodQuery } from "./PeriodPicker";

/**
 * Switches the page to another project, keeping the area. This picker and the site's are at most
 * as wide as a short name (`.picker` in styles.css): a long one is cut with an ellipsis and reads
 * whole in the select's title and in its list.
 */
export function ProjectPicker({ area, current }: { area: string; current: string }) {
	const projects = useProjects();
	const navigate = useNavigate();
	const names = projects.data?.map((k) => k.project_name) ?? [current];
	if (!names.includes(current)) names.unshift(current);
	return (
		<label className="inline picker">
			Project
			<select value={current} title={current} onChange={(e) => navigate(`/${area}/${encodeURIComponent(e.target.value)}`)}>
				{names.map((name) => (
					<option key={name}>{name}</option>
				))}
			</select>
		</label>
	);
}

/**
 * What an area's page says for a project the owner has no key for (revoked, or a mistyped link),
 * once the projects are known; undefined for one of theirs.
 */
export function useUnknownProjectText(project: string): string | undefined {
	const projects = useProjects();
	const unknown = projects.data !== undefined && !projects.data.some((key) => key.project_name === project);
	return unknown ? `You have no project named "${project}" (its key may have been revoked). Pick another above.` : undefined;
}

/**
 * Switches the page to another site, keeping the area and the period: comparing two sites means
 * the same days. The filters stay behind, as they name the old site's pages, sources and events.
 */
export function SitePicker({ area, current }: { area: string; current: string }) {
	const sites = useSites();
	const navigate = useNavigate();
	const [search] = useSearchParams();
	const period = periodQuery(search);
	const name = sites.data?.find((s) => s.tracking_id === current)?.name ?? current;
	return (
		<label className="inline picker">
			Site
			<select value={current} title={name} onChange={(e) => navigate(`/${area}/${e.target.value}${period ? `?${period}` : ""}`)}>
				{(sites.data ?? []).map((site) => (
					<option key={site.tracking_id} value={site.tracking_id}>
						{site.name}
					</option>
				))}
				{!sites.data?.some((s) => s.tracking_id === current) && <option value={current}>{current}</option>}
			</select>
		</label>
	);
}
