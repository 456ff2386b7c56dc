import { CopyButton } from "./CopyButton";

/** Ready-to-paste set-up for a project: feedback and log ingestion with its key. */
export function SetupSnippets({ projectName }: { projectName: string }) {
	const origin = location.origin;
	const snippets: Array<[title: string, text: string]> = [
		[
			"Send feedback",
			`curl -X POST ${origin}/functions/v1/submit-feedback \\
  -H "Authorization: Bearer $SVC_KEY" -H 'Content-Type: application/json' \\
  -d '{"type":"issue","title":"Crash on save","description":"Pressing save crashes","email":"user@example.com"}'`,
		],
		[
			"Send a log event",
			`curl -X POST ${origin}/api/app-logs-ingest \\
  -H "x-svc-key: $SVC_KEY" -H 'Content-Type: application/json' \\
  -d '{"level":"error","message":"Checkout failed","environment":"production","release":"1.0.0","user":{"id":"u_123"}}'`,
		],
	];
	return (
		<section className="card" aria-labelledby="setup-heading">
			<h2 id="setup-heading">Set-up</h2>
			<p className="muted">
				Set <code>SVC_KEY</code> to the key of {projectName} (shown once, when it was created or regenerated). Browser analytics use a site's
				tag instead: see Analytics.
			</p>
			{snippets.map(([title, text]) => (
				<div key={title}>
					<h3>{title}</h3>
					<pre className="snippet">{text}</pre>
					<CopyButton text={text} label={`Copy: ${title.toLowerCase()}`} />
				</div>
			))}
		</section>
	);
}
