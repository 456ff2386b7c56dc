import { useMutation, useQuery } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { Link, useParams } from "react-router";
import { type Artifact, api } from "../api";
import { ConfirmButton } from "../components/ConfirmButton";
import { usePageTitle } from "../components/pageTitle";
import { CopyButton } from "../components/CopyButton";
import { focusInsteadOf } from "../focus";
import { ActionError, QueryState } from "../components/QueryState";
import { TableWrap } from "../components/TableWrap";
import { utcDate, utcDateTime } from "../format";
import { keys, useProjects } from "../queries";
import { refreshAfter } from "../queryClient";

const MiB = 1024 * 1024;
const size = (bytes: number) => (bytes >= MiB ? `${(bytes / MiB).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`);

/** How CI uploads maps: sentry-cli as it is, or one curl request. */
function SetUp({ dsnId }: { dsnId: string | null }) {
	const origin = location.origin;
	return (
		<section className="card" aria-labelledby="setup-heading">
			<h2 id="setup-heading">Set up</h2>
			<p>
				Build with source maps, create an upload token below, then upload after every build. With <strong>sentry-cli</strong> (npm package{" "}
				<code>@sentry/cli</code>), unchanged:
			</p>
			<pre className="snippet" data-testid="sentry-cli-setup">
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
			<pre className="snippet" data-testid="plain-upload-setup">
				{`curl -X POST "${origin}/api/releases/$RELEASE/artifacts" \\
  -H "authorization: Bearer <upload token>" \\
  -F "file=@dist/app.js;filename=~/assets/app.js" \\
  -F "file=@dist/app.js.map;filename=~/assets/app.js.map"`}
			</pre>
		</section>
	);
}

function UploadTokens({ projectName }: { projectName: string }) {
	const queryKey = keys.uploadTokens(projectName);
	const tokens = useQuery({ queryKey, queryFn: () => api.listUploadTokens(projectName) });
	const [created, setCreated] = useState<string>();
	const createButton = useRef<HTMLButtonElement>(null);
	const create = useMutation({
		mutationFn: () => api.createUploadToken(projectName),
		onSuccess: (token) => setCreated(token.token),
		onSettled: (_answer, error) => refreshAfter(error, { queryKey }),
	});
	const revoke = useMutation({
		mutationFn: (id: string) => api.revokeUploadToken(id),
		onSettled: (_answer, error) => refreshAfter(error, { queryKey }),
	});
	const error = create.error ?? revoke.error;

	return (
		<section className="card" aria-labelledby="tokens-heading">
			<h2 id="tokens-heading">Upload tokens</h2>
			{created && (
				<div className="notice" role="status">
					<p>New upload token. Copy it now: it will not be shown again.</p>
					<code className="secret" data-testid="upload-token">
						{created}
					</code>
					<div className="row">
						<CopyButton text={created} what="upload token" />
						<button
							type="button"
							onClick={(event) => {
								focusInsteadOf(event.currentTarget, createButton.current);
								setCreated(undefined);
							}}
						>
							Done
						</button>
					</div>
				</div>
			)}
			<div className="row">
				<button ref={createButton} type="button" className="primary" onClick={() => create.mutate()} disabled={create.isPending}>
					Create upload token
				</button>
				<ActionError error={error} inline />
			</div>
			<QueryState query={tokens} loading="Loading tokens…" empty="No upload tokens yet." />
			{tokens.data && tokens.data.length > 0 && (
				<ul className="plain">
					{tokens.data.map((token) => (
						<li key={token.id} className="row">
							<code>…{token.token_hint}</code>
							<span className="muted">created {utcDateTime(token.created_at)}</span>
							<ConfirmButton
								question={`Revoke the upload token ending in ${token.token_hint}? Uploads with it stop working at once.`}
								confirmLabel="Revoke token"
								removes
								onConfirm={() => revoke.mutate(token.id)}
							>
								Revoke…
							</ConfirmButton>
						</li>
					))}
				</ul>
			)}
		</section>
	);
}

function ArtifactRow({ artifact, onDelete }: { artifact: Artifact; onDelete: () => void }) {
	return (
		<tr>
			<td>{artifact.release ?? <span className="muted">none</span>}</td>
			<td className="long-code">
				<code>{artifact.url}</code>
			</td>
			<td>{artifact.type.replace("_", " ")}</td>
			<td className="num">{size(artifact.size)}</td>
			<td className={artifact.debug_id ? "long-code" : undefined}>{artifact.debug_id ? <code>{artifact.debug_id}</code> : <span className="muted">none</span>}</td>
			<td>{utcDate(artifact.used_at)}</td>
			<td>
				<ConfirmButton question={`Delete ${artifact.url}?`} confirmLabel="Delete file" removes onConfirm={onDelete}>
					Delete…
				</ConfirmButton>
			</td>
		</tr>
	);
}

function Artifacts({ projectName }: { projectName: string }) {
	const queryKey = keys.artifacts(projectName);
	const list = useQuery({ queryKey, queryFn: () => api.listArtifacts(projectName) });
	const remove = useMutation({
		mutationFn: (target: { id: string } | { release: string }) =>
			"id" in target ? api.deleteArtifact(projectName, target.id) : api.deleteRelease(projectName, target.release),
		onSettled: (_answer, error) => refreshAfter(error, { queryKey }),
	});
	const releases = [...new Set((list.data?.artifacts ?? []).flatMap((a) => (a.release === null ? [] : [a.release])))];

	return (
		<section className="card" aria-labelledby="files-heading">
			<h2 id="files-heading">Uploaded files</h2>
			{list.data && (
				<p className="muted">
					{list.data.total_files} files, {size(list.data.total_bytes)} of {size(list.data.cap_bytes)}. Files no error has used for the log retention
					period are removed.
				</p>
			)}
			<ActionError error={remove.error} />
			<QueryState query={list} loading="Loading files…" empty="Nothing uploaded yet." isEmpty={(data) => data.artifacts.length === 0} />
			{releases.length > 0 && (
				<div className="row">
					{releases.map((release) => (
						<ConfirmButton
							key={release}
							question={`Delete every file of release ${release}?`}
							confirmLabel="Delete release"
							removes
							onConfirm={() => remove.mutate({ release })}
						>
							Delete release {release}…
						</ConfirmButton>
					))}
				</div>
			)}
			{list.data && list.data.artifacts.length > 0 && (
				<TableWrap label="Uploaded files">
					<table>
						<thead>
							<tr>
								<th>Release</th>
								<th>URL</th>
								<th>Type</th>
								<th className="num">Size</th>
								<th>Debug id</th>
								<th>Last used</th>
								<th>
									<span className="visually-hidden">Actions</span>
								</th>
							</tr>
						</thead>
						<tbody>
							{list.data.artifacts.map((artifact) => (
								<ArtifactRow key={artifact.id} artifact={artifact} onDelete={() => remove.mutate({ id: artifact.id })} />
							))}
						</tbody>
					</table>
				</TableWrap>
			)}
		</section>
	);
}

/** A project's source maps: how to upload them, the tokens that may, and what was uploaded. */
export function SourceMapsPage() {
	const projectName = useParams().project ?? "";
	const projects = useProjects();
	usePageTitle("Source maps", projectName);
	const dsnId = projects.data?.find((k) => k.project_name === projectName)?.dsn_template?.split("/").pop() ?? null;
	return (
		<section>
			<p>
				<Link to={`/projects/${encodeURIComponent(projectName)}`}>← {projectName}</Link>
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
