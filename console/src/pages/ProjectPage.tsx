import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { OWNER_LIMITS } from "../../../domain/limits";
import { api, type ProjectKey } from "../api";
import { AlertsCard } from "../components/AlertsCard";
import { ConfirmButton } from "../components/ConfirmButton";
import { usePageTitle } from "../components/pageTitle";
import { FieldEditor } from "../components/FieldEditor";
import { lastUsed } from "../components/lastUsed";
import { LogOutcomes } from "../components/LogOutcomes";
import { ActionError, describeError, QueryState } from "../components/QueryState";
import { RawKeyNotice } from "../components/RawKeyNotice";
import { count, utcDate } from "../format";
import { SetupSnippets } from "../components/SetupSnippets";
import { keys, useProjects, useUpdateKey } from "../queries";
import { queryClient, refreshAfter } from "../queryClient";

function KeyActions({ projectKey }: { projectKey: ProjectKey }) {
	const name = projectKey.project_name;
	const navigate = useNavigate();
	const [created, setCreated] = useState<{ rawKey: string; dsn: string | null }>();
	const regenerateButton = useRef<HTMLButtonElement>(null);
	const regenerate = useMutation({
		mutationFn: () => api.regenerateKey(name),
		onSuccess: (key) => setCreated({ rawKey: key.raw_api_key, dsn: key.dsn }),
		onSettled: (_answer, error) => refreshAfter(error, { queryKey: keys.projects }),
	});
	const revoke = useMutation({
		mutationFn: () => api.revokeKey(name),
		onSuccess: () => {
			// Gone at once wherever the list is read (the areas' links choose from it), not when it is read again.
			queryClient.setQueryData<ProjectKey[]>(keys.projects, (projects) => projects?.filter((p) => p.project_name !== name));
			queryClient.invalidateQueries({ queryKey: keys.projects });
			navigate("/projects");
		},
	});
	const error = regenerate.error ?? revoke.error;
	return (
		<section className="card" aria-labelledby="key-heading">
			<h2 id="key-heading">Project key</h2>
			<p>
				Key ending in <code>…{projectKey.key_hint}</code>, created {utcDate(projectKey.created_at)}. The full key was shown
				once, when it was made.
			</p>
			{created && <RawKeyNotice projectName={name} {...created} opener={regenerateButton} onDone={() => setCreated(undefined)} />}
			<div className="row">
				<ConfirmButton
					className=""
					opener={regenerateButton}
					question={`Regenerate the key of ${name}? The current key stops working at once; apps must be given the new one.`}
					confirmLabel="Regenerate key"
					onConfirm={() => regenerate.mutate()}
					disabled={regenerate.isPending}
				>
					Regenerate key…
				</ConfirmButton>
				<ConfirmButton
					question={`Revoke the key of ${name}? Apps using it stop working at once, and its log issues are deleted. Feedback is kept.`}
					confirmLabel="Revoke key"
					onConfirm={() => revoke.mutate()}
					disabled={revoke.isPending}
				>
					Revoke key…
				</ConfirmButton>
			</div>
			<ActionError error={error} />
		</section>
	);
}

/** The limits' fields: their inputs keep to the range, so the API's words come only from a value past them. */
const LIMIT_WORDS = {
	rate_limit_per_minute: { name: "Feedback per minute", says: () => `Feedback per minute takes a whole number from 1 to ${count(OWNER_LIMITS.feedbackRatePerMinuteMax)}.` },
	logs_rate_limit_per_minute: { name: "Log events per minute", says: () => `Log events per minute takes a whole number from 1 to ${count(OWNER_LIMITS.logsRatePerMinuteMax)}.` },
};

function Limits({ projectKey }: { projectKey: ProjectKey }) {
	const update = useUpdateKey(projectKey.project_name);
	const [feedbackRate, setFeedbackRate] = useState(String(projectKey.rate_limit_per_minute));
	const [logsRate, setLogsRate] = useState(String(projectKey.logs_rate_limit_per_minute));
	// Follows the saved values when they change (a save, another tab), not on every reread.
	useEffect(() => setFeedbackRate(String(projectKey.rate_limit_per_minute)), [projectKey.rate_limit_per_minute]);
	useEffect(() => setLogsRate(String(projectKey.logs_rate_limit_per_minute)), [projectKey.logs_rate_limit_per_minute]);

	function save(event: FormEvent) {
		event.preventDefault();
		update.mutate({ rate_limit_per_minute: Number(feedbackRate), logs_rate_limit_per_minute: Number(logsRate) });
	}

	return (
		<section className="card" aria-labelledby="limits-heading">
			<h2 id="limits-heading">Limits and App Logs</h2>
			<label className="switch">
				<input
					type="checkbox"
					checked={projectKey.logs_enabled}
					onChange={(e) => update.mutate({ logs_enabled: e.target.checked })}
					disabled={update.isPending}
				/>
				App Logs accepted (when off, log ingestion answers 403)
			</label>
			<label className="switch">
				<input
					type="checkbox"
					checked={projectKey.filter_browser_extensions}
					onChange={(e) => update.mutate({ filter_browser_extensions: e.target.checked })}
					disabled={update.isPending}
				/>
				Drop errors raised by visitors' browser extensions (Sentry's inbound filter; turn off if the app is itself an extension)
			</label>
			<form className="row" onSubmit={save}>
				<label>
					Feedback per minute
					<input type="number" min={1} max={OWNER_LIMITS.feedbackRatePerMinuteMax} required value={feedbackRate} onChange={(e) => setFeedbackRate(e.target.value)} />
				</label>
				<label>
					Log events per minute
					<input type="number" min={1} max={OWNER_LIMITS.logsRatePerMinuteMax} required value={logsRate} onChange={(e) => setLogsRate(e.target.value)} />
				</label>
				<button type="submit" className="primary" disabled={update.isPending}>
					Save limits
				</button>
			</form>
			<p aria-live="polite" className={update.isError ? "error" : "muted"}>
				{update.isError ? describeError(update.error, { action: true, fields: LIMIT_WORDS }) : update.isSuccess ? "Saved." : ""}
			</p>
		</section>
	);
}

export function ProjectPage() {
	const name = useParams().project ?? "";
	const projects = useProjects();
	const projectKey = projects.data?.find((k) => k.project_name === name);
	usePageTitle(name, "Projects");
	useEffect(() => {
		if (projectKey) lastUsed.project.set(name);
	}, [projectKey, name]);

	return (
		<section>
			<p>
				<Link to="/projects">← Projects</Link>
			</p>
			<h1>{name}</h1>
			<QueryState query={projects} loading="Loading project…" empty="" isEmpty={() => false} />
			{projects.data && !projectKey && <p className="error">No project named {name}: it may have been revoked.</p>}
			{projectKey && (
				<>
					<p className="row">
						<Link to={`/feedback/${encodeURIComponent(name)}`}>Feedback</Link>
						<Link to={`/issues/${encodeURIComponent(name)}`}>Issues</Link>
						<Link to={`/projects/${encodeURIComponent(name)}/sourcemaps`}>Source maps</Link>
					</p>
					<KeyActions projectKey={projectKey} />
					<Limits projectKey={projectKey} />
					<LogOutcomes projectName={name} />
					<AlertsCard projectName={name} />
					<FieldEditor projectKey={projectKey} config="issue_field_config" title="Issue form" />
					<FieldEditor projectKey={projectKey} config="feature_field_config" title="Feature request form" />
					<SetupSnippets projectKey={projectKey} />
				</>
			)}
		</section>
	);
}
