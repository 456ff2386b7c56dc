import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useRef, useState } from "react";
import { Link } from "react-router";
import { api } from "../api";
import { ActionError, QueryState } from "../components/QueryState";
import { usePageTitle } from "../components/pageTitle";
import { RawKeyNotice } from "../components/RawKeyNotice";
import { keys, useProjects } from "../queries";
import { refreshAfter } from "../queryClient";

/** The new key's project name, as the form words it. */
const PROJECT_NAME_WORDS = { project_name: { name: "The project name", missing: "Give the project a name." } };

export function ProjectsPage() {
	const projects = useProjects();
	usePageTitle("Projects");
	const [created, setCreated] = useState<{ projectName: string; rawKey: string; dsn: string | null }>();
	const createButton = useRef<HTMLButtonElement>(null);
	const create = useMutation({
		mutationFn: api.createKey,
		onSuccess: (key) => setCreated({ projectName: key.project_name, rawKey: key.raw_api_key, dsn: key.dsn }),
		onSettled: (_answer, error) => refreshAfter(error, { queryKey: keys.projects }),
	});

	function submit(event: FormEvent<HTMLFormElement>) {
		event.preventDefault();
		const form = event.currentTarget;
		create.mutate(String(new FormData(form).get("project_name")).trim(), { onSuccess: () => form.reset() });
	}

	return (
		<section>
			<h1>Projects</h1>
			<p className="muted">A project key lets an app send feedback and logs. Open a project to edit its limits, its feedback forms and to copy its set-up.</p>
			{created && <RawKeyNotice {...created} opener={createButton} onDone={() => setCreated(undefined)} />}
			<form className="row" onSubmit={submit} aria-label="New project">
				<label className="inline">
					<span className="visually-hidden">Project name</span>
					<input name="project_name" placeholder="Project name" maxLength={100} required />
				</label>
				<button ref={createButton} type="submit" className="primary" disabled={create.isPending}>
					Create project key
				</button>
				<ActionError error={create.error} fields={PROJECT_NAME_WORDS} inline />
			</form>
			<QueryState query={projects} loading="Loading projects…" empty="No projects yet: create a key to start receiving feedback and logs." />
			{projects.data && projects.data.length > 0 && (
				<ul className="plain cards">
					{projects.data.map((k) => (
						<li key={k.project_name} className="card project">
							<h2>
								<Link to={`/projects/${encodeURIComponent(k.project_name)}`}>{k.project_name}</Link>
							</h2>
							<p className="muted">
								key <code>…{k.key_hint}</code> · feedback {k.rate_limit_per_minute}/min · logs{" "}
								{k.logs_enabled ? `${k.logs_rate_limit_per_minute}/min` : "off"}
							</p>
							{k.dsn_template && (
								<p className="muted">
									Sentry DSN <code>{k.dsn_template}</code>
								</p>
							)}
							<p className="row">
								<Link to={`/feedback/${encodeURIComponent(k.project_name)}`}>Feedback</Link>
								<Link to={`/issues/${encodeURIComponent(k.project_name)}`}>Issues</Link>
								<Link to={`/projects/${encodeURIComponent(k.project_name)}`}>Settings</Link>
							</p>
						</li>
					))}
				</ul>
			)}
		</section>
	);
}
