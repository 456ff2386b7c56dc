import { type FormEvent, useState } from "react";
import { Link } from "react-router";
import { api, type NewProjectKey, type ProjectKey } from "../api";
import { useAsync } from "../useAsync";

/** Shown once after create or regenerate: the API never returns the raw key, or the DSN holding it, again. */
function RawKeyNotice({ projectName, rawKey, dsn, onDone }: { projectName: string; rawKey: string; dsn: string | null; onDone: () => void }) {
	return (
		<div className="card notice" role="status">
			<p>
				New key for <strong>{projectName}</strong>. Copy it now: it will not be shown again.
			</p>
			<code className="secret" data-testid="raw-key">
				{rawKey}
			</code>
			{dsn && (
				<p>
					Apps instrumented with a Sentry SDK keep it and change only their DSN:{" "}
					<code className="secret" data-testid="dsn">
						{dsn}
					</code>
				</p>
			)}
			<div className="row">
				<button type="button" onClick={() => navigator.clipboard?.writeText(rawKey)}>
					Copy
				</button>
				{dsn && (
					<button type="button" onClick={() => navigator.clipboard?.writeText(dsn)}>
						Copy DSN
					</button>
				)}
				<button type="button" onClick={onDone}>
					Done
				</button>
			</div>
		</div>
	);
}

function KeyRow({ projectKey, onChanged, onNewKey }: { projectKey: ProjectKey; onChanged: () => void; onNewKey: (key: NewProjectKey) => void }) {
	const [error, setError] = useState<string>();
	const act = (action: () => Promise<unknown>) => action().then(onChanged, (err: Error) => setError(err.message));
	const name = projectKey.project_name;
	return (
		<tr>
			<td>
				<Link to={`/projects/${encodeURIComponent(name)}/feedback`}>{name}</Link>{" "}
				<Link className="muted" to={`/projects/${encodeURIComponent(name)}/sourcemaps`}>
					source maps
				</Link>
			</td>
			<td>
				<code>…{projectKey.key_hint}</code>
			</td>
			<td>{projectKey.dsn_template && <code title="Sentry DSN: the project key goes where {PROJECT_KEY} stands">{projectKey.dsn_template}</code>}</td>
			<td>{projectKey.rate_limit_per_minute}/min</td>
			<td>{projectKey.logs_enabled ? "on" : "off"}</td>
			<td className="row">
				<button type="button" onClick={() => act(() => api.regenerateKey(name).then(onNewKey))}>
					Regenerate
				</button>
				<button type="button" onClick={() => act(() => api.updateKey(name, { logs_enabled: !projectKey.logs_enabled }))}>
					{projectKey.logs_enabled ? "Disable logs" : "Enable logs"}
				</button>
				<button
					type="button"
					className="danger"
					onClick={() => confirm(`Revoke the key of ${name}? Apps using it stop working at once.`) && act(() => api.revokeKey(name))}
				>
					Revoke
				</button>
				{error && <span className="error">{error}</span>}
			</td>
		</tr>
	);
}

export function ProjectsPage() {
	const keys = useAsync(() => api.listKeys().then((r) => r.keys), []);
	const [created, setCreated] = useState<{ projectName: string; rawKey: string; dsn: string | null }>();
	const [error, setError] = useState<string>();

	async function create(event: FormEvent<HTMLFormElement>) {
		event.preventDefault();
		const form = event.currentTarget;
		const projectName = String(new FormData(form).get("project_name")).trim();
		setError(undefined);
		try {
			const key = await api.createKey(projectName);
			setCreated({ projectName, rawKey: key.raw_api_key, dsn: key.dsn });
			form.reset();
			keys.reload();
		} catch (err) {
			setError((err as Error).message);
		}
	}

	return (
		<section>
			<h1>Projects</h1>
			{created && <RawKeyNotice {...created} onDone={() => setCreated(undefined)} />}
			<form className="row" onSubmit={create} aria-label="New project">
				<input name="project_name" placeholder="Project name" maxLength={100} required />
				<button type="submit" className="primary">
					Create project key
				</button>
				{error && <span className="error">{error}</span>}
			</form>
			{keys.loading && !keys.data && <p className="muted">Loading projects…</p>}
			{keys.error && <p className="error">{keys.error}</p>}
			{keys.data?.length === 0 && <p className="muted">No projects yet: create a key to start receiving feedback.</p>}
			{keys.data && keys.data.length > 0 && (
				<table>
					<thead>
						<tr>
							<th>Project</th>
							<th>Key</th>
							<th>Sentry DSN</th>
							<th>Feedback rate</th>
							<th>App logs</th>
							<th />
						</tr>
					</thead>
					<tbody>
						{keys.data.map((k) => (
							<KeyRow
								key={k.project_name}
								projectKey={k}
								onChanged={keys.reload}
								onNewKey={(key) => setCreated({ projectName: k.project_name, rawKey: key.raw_api_key, dsn: key.dsn })}
							/>
						))}
					</tbody>
				</table>
			)}
		</section>
	);
}
