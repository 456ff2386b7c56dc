import { useNavigate } from "react-router";
import { useProjects, useSites } from "../queries";

/** Switches the page to another project, keeping the area. */
export function ProjectPicker({ area, current }: { area: string; current: string }) {
	const projects = useProjects();
	const navigate = useNavigate();
	const names = projects.data?.map((k) => k.project_name) ?? [current];
	if (!names.includes(current)) names.unshift(current);
	return (
		<label className="inline">
			Project
			<select value={current} onChange={(e) => navigate(`/${area}/${encodeURIComponent(e.target.value)}`)}>
				{names.map((name) => (
					<option key={name}>{name}</option>
				))}
			</select>
		</label>
	);
}

/** Switches the page to another site, keeping the area. */
export function SitePicker({ area, current }: { area: string; current: string }) {
	const sites = useSites();
	const navigate = useNavigate();
	return (
		<label className="inline">
			Site
			<select value={current} onChange={(e) => navigate(`/${area}/${e.target.value}`)}>
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
