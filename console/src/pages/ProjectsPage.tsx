import { type FormEvent, useState } from "react";
import { Link } from "react-router";
import { api, type ProjectKey } from "../api";
import { useAsync } from "../useAsync";

/** Shown once after create or regenerate: the API never returns the raw key again. */
function RawKeyNotice({ projectName, rawKey, onDone }: { projectName: string; rawKey: string; onDone: () => void }) {
	return (
		<div className="card notice" role="status">
			<p>
				New key for <strong>{projectName}</strong>. Copy it now: it will not be shown again.
			</p>
			<code className="secret" data-testid="raw-key">
				{rawKey}
			</code>
			<div className="row">
				<button type="button" onClick={() => navigator.clipboard?.writeText(rawKey)}>
					Copy
				</button>
				<button type="button" onClick={onDone}>
					Done
				</button>
			</div>
		</div>
	);
}

function KeyRow({ projectKey, onChanged, onRawKey }: { projectKey: ProjectKey; onChanged: () => void; onRawKey: (raw: string) => void }) {
	const [error, setError] = useState<string>();
	const act = (action: () => Promise<unknown>) => action().then(onChanged, (err: Error) => setError(err.message));
	const name = projectKey.project_name;
	return (
		<tr>
			<td>
				<Link to={`/projects/${encodeURIComponent(name)}/feedback`}>{name}</Link>
			</td>
			<td>
				<code>…{projectKey.key_hint}</code>
			</td>
			<td>{projectKey.rate_limit_per_minute}/min</td>
			<td>{projectKey.logs_enabled ? "on" : "off"}</td>
			<td className="row">
				<button type="button" onClick={() => act(() => api.regenerateKey(name).then((k) => onRawKey(k.raw_api_key)))}>
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
	const [created, setCreated] = useState<{ projectName: string; rawKey: string }>();
	const [error, setError] = useState<string>();

	async function create(event: FormEvent<HTMLFormElement>) {
		event.preventDefault();
		const form = event.currentTarget;
		const projectName = String(new FormData(form).get("project_name")).trim();
		setError(undefined);
		try {
			const key = await api.createKey(projectName);
			setCreated({ projectName, rawKey: key.raw_api_key });
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
								onRawKey={(rawKey) => setCreated({ projectName: k.project_name, rawKey })}
							/>
						))}
					</tbody>
				</table>
			)}
		</section>
	);
}
