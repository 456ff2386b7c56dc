import { Link } from "react-router";
import { useSites } from "../queries";
import { CopyButton } from "./CopyButton";

/** The tag that loads the tracker for a site, served by this same service. */
export const trackerTag = (trackingId: string) => `<script defer src="${location.origin}/t.js" data-id="${trackingId}"></script>`;

/** Ready-to-paste set-up for a project: feedback and log ingestion with its key, and the sites' tracker tags. */
export function SetupSnippets({ projectName }: { projectName: string }) {
	const origin = location.origin;
	const sites = useSites();
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
				Set <code>SVC_KEY</code> to the key of {projectName} (shown once, when it was created or regenerated).
			</p>
			{snippets.map(([title, text]) => (
				<div key={title}>
					<h3>{title}</h3>
					<pre className="snippet">{text}</pre>
					<CopyButton text={text} label={`Copy: ${title.toLowerCase()}`} />
				</div>
			))}
			<h3>Browser analytics</h3>
			{sites.data?.length ? (
				sites.data.map((site) => (
					<div key={site.tracking_id}>
						<p>
							Tracker tag for {site.name}, in every page's &lt;head&gt;:
						</p>
						<pre className="snippet">{trackerTag(site.tracking_id)}</pre>
						<CopyButton text={trackerTag(site.tracking_id)} label={`Copy the tag of ${site.name}`} />
					</div>
				))
			) : (
				<p className="muted">
					Analytics need no key: <Link to="/analytics">add a site</Link> and paste its tag.
				</p>
			)}
		</section>
	);
}
