import { useState } from "react";
import { Link, useParams } from "react-router";
import { type Artifact, api } from "../api";
import { useAsync } from "../useAsync";

const MiB = 1024 * 1024;
const size = (bytes: number) => (bytes >= MiB ? `${(bytes / MiB).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`);

/** How CI uploads maps: sentry-cli as it is, or one curl request. */
function SetUp({ dsnId }: { dsnId: string | null }) {
	const origin = location.origin;
	return (
		<div className="card">
			<h2>Set up</h2>
			<p>
				Build with source maps, create an upload token below, then upload after every build. With <strong>sentry-cli</strong> (npm package{" "}
				<code>@sentry/cli</code>), unchanged:
			</p>
			<pre className="secret" data-testid="sentry-cli-setup">
				{`export SENTRY_URL=${origin}
export SENTRY_AUTH_TOKEN=<upload token>
export SENTRY_ORG=any
export SENTRY_PROJECT=${dsnId ?? "<DSN id>"}
npx sentry-cli sourcemaps inject ./dist
npx sentry-cli sourcemaps upload --release "$RELEASE" --url-prefix '~/assets' ./dist`}
			</pre>
			<p>
				<code>inject</code> gives each script a debug id that Sentry SDKs send with every error, so maps are found whatever the release. Without
				sentry-cli, upload each file named by the URL path the browser loads it from; errors must then carry the same release:
			</p>
			<pre className="secret" data-testid="plain-upload-setup">
				{`curl -X POST "${origin}/api/releases/$RELEASE/artifacts" \\
  -H "authorization: Bearer <upload token>" \\
  -F "file=@dist/app.js;filename=~/assets/app.js" \\
  -F "file=@dist/app.js.map;filename=~/assets/app.js.map"`}
			</pre>
		</div>
	);
}

function UploadTokens({ projectName }: { projectName: string }) {
	const tokens = useAsync(() => api.listUploadTokens(projectName).then((r) => r.tokens), [projectName]);
	const [created, setCreated] = useState<string>();
	const [error, setError] = useState<string>();
	const act = (action: () => Promise<unknown>) => action().then(tokens.reload, (err: Error) => setError(err.message));

	return (
		<div className="card">
			<h2>Upload tokens</h2>
			{created && (
				<div className="notice" role="status">
					<p>New upload token. Copy it now: it will not be shown again.</p>
					<code className="secret" data-testid="upload-token">
						{created}
					</code>
					<button type="button" onClick={() => setCreated(undefined)}>
						Done
					</button>
				</div>
			)}
			<div className="row">
				<button type="button" className="primary" onClick={() => act(() => api.createUploadToken(projectName).then((t) => setCreated(t.token)))}>
					Create upload token
				</button>
				{error && <span className="error">{error}</span>}
			</div>
			{tokens.loading && !tokens.data && <p className="muted">Loading tokens…</p>}
			{tokens.error && <p className="error">{tokens.error}</p>}
			{tokens.data?.length === 0 && <p className="muted">No upload tokens yet.</p>}
			{tokens.data && tokens.data.length > 0 && (
				<ul>
					{tokens.data.map((token) => (
						<li key={token.id} className="row">
							<code>…{token.token_hint}</code>
							<span className="muted">created {new Date(token.created_at).toLocaleString()}</span>
							<button
								type="button"
								className="danger"
								onClick={() => confirm("Revoke this upload token? Uploads with it stop working at once.") && act(() => api.revokeUploadToken(token.id))}
							>
								Revoke
							</button>
						</li>
					))}
				</ul>
			)}
		</div>
	);
}

function ArtifactRow({ artifact, onDelete }: { artifact: Artifact; onDelete: () => void }) {
	return (
		<tr>
			<td>{artifact.release ?? <span className="muted">none</span>}</td>
			<td>
				<code>{artifact.url}</code>
			</td>
			<td>{artifact.type.replace("_", " ")}</td>
			<td>{size(artifact.size)}</td>
			<td>{artifact.debug_id ? <code>{artifact.debug_id}</code> : <span className="muted">none</span>}</td>
			<td>{new Date(artifact.used_at).toLocaleDateString()}</td>
			<td>
				<button type="button" className="danger" onClick={onDelete}>
					Delete
				</button>
			</td>
		</tr>
	);
}

function Artifacts({ projectName }: { projectName: string }) {
	const list = useAsync(() => api.listArtifacts(projectName), [projectName]);
	const [error, setError] = useState<string>();
	const act = (action: () => Promise<unknown>) => action().then(list.reload, (err: Error) => setError(err.message));
	const releases = [...new Set((list.data?.artifacts ?? []).flatMap((a) => (a.release === null ? [] : [a.release])))];

	return (
		<div className="card">
			<h2>Uploaded files</h2>
			{list.data && (
				<p className="muted">
					{list.data.total_files} files, {size(list.data.total_bytes)} of {size(list.data.cap_bytes)}. Files no error has used for the log retention
					period are removed.
				</p>
			)}
			{error && <p className="error">{error}</p>}
			{list.loading && !list.data && <p className="muted">Loading files…</p>}
			{list.error && <p className="error">{list.error}</p>}
			{list.data?.artifacts.length === 0 && <p className="muted">Nothing uploaded yet.</p>}
			{releases.length > 0 && (
				<div className="row">
					{releases.map((release) => (
						<button
							key={release}
							type="button"
							className="danger"
							onClick={() => confirm(`Delete every file of release ${release}?`) && act(() => api.deleteRelease(projectName, release))}
						>
							Delete release {release}
						</button>
					))}
				</div>
			)}
			{list.data && list.data.artifacts.length > 0 && (
				<table>
					<thead>
						<tr>
							<th>Release</th>
							<th>URL</th>
							<th>Type</th>
							<th>Size</th>
							<th>Debug id</th>
							<th>Last used</th>
							<th />
						</tr>
					</thead>
					<tbody>
						{list.data.artifacts.map((artifact) => (
							<ArtifactRow key={artifact.id} artifact={artifact} onDelete={() => act(() => api.deleteArtifact(projectName, artifact.id))} />
						))}
					</tbody>
				</table>
			)}
		</div>
	);
}

/** A project's source maps: how to upload them, the tokens that may, and what was uploaded. */
export function SourceMapsPage() {
	const projectName = useParams().projectName ?? "";
	const keys = useAsync(() => api.listKeys().then((r) => r.keys), []);
	const dsnId = keys.data?.find((k) => k.project_name === projectName)?.dsn_template?.split("/").pop() ?? null;
	return (
		<section>
			<p>
				<Link to="/">← Projects</Link>
			</p>
			<h1>Source maps · {projectName}</h1>
			<p className="muted">
				Errors from minified browser code are shown, and grouped, as the code was written: original file, function, line and the lines around
				it.
			</p>
			<SetUp dsnId={dsnId} />
			<UploadTokens projectName={projectName} />
			<Artifacts projectName={projectName} />
		</section>
	);
}
