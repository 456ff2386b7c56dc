import { Link, Navigate } from "react-router";
import { useProjects, useSites } from "../queries";
import { lastUsed } from "./lastUsed";
import { usePageTitle } from "./pageTitle";
import { QueryState } from "./QueryState";

/** /feedback or /issues without a project: opens the last one used, else the first, else says what to do. */
export function ChooseProject({ area, title }: { area: string; title: string }) {
	const projects = useProjects();
	usePageTitle(title);
	const names = projects.data?.map((k) => k.project_name) ?? [];
	const last = lastUsed.project.get();
	const pick = last && names.includes(last) ? last : names[0];
	if (pick) return <Navigate to={`/${area}/${encodeURIComponent(pick)}`} replace />;
	return (
		<section>
			<h1>{title}</h1>
			<QueryState query={projects} loading="Loading projects…" empty="No projects yet." />
			{projects.data?.length === 0 && (
				<p>
					<Link to="/projects">Create a project key</Link> to start receiving feedback and logs.
				</p>
			)}
		</section>
	);
}

/** /crawlers without a site: the last one used, else the first, else a pointer to Analytics. */
export function ChooseSite({ area, title }: { area: string; title: string }) {
	const sites = useSites();
	usePageTitle(title);
	const ids = sites.data?.map((s) => s.tracking_id) ?? [];
	const last = lastUsed.site.get();
	const pick = last && ids.includes(last) ? last : ids[0];
	if (pick) return <Navigate to={`/${area}/${pick}`} replace />;
	return (
		<section>
			<h1>{title}</h1>
			<QueryState query={sites} loading="Loading sites…" empty="No sites yet." />
			{sites.data?.length === 0 && (
				<p>
					<Link to="/analytics">Add a site</Link> to see its visitors and the AI crawlers that read it.
				</p>
			)}
		</section>
	);
}
