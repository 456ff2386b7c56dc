import { useState } from "react";
import { Link } from "react-router";
import type { ProjectKey, SiteView } from "../api";
import { useSites } from "../queries";
import { CopyButton } from "./CopyButton";

/** The tag that loads the tracker for a site, served by this same service. */
export const trackerTag = (trackingId: string) => `<script defer src="${location.origin}/t.js" data-id="${trackingId}"></script>`;

/** Letters and digits alone, lower case: "My Shop" and "my-shop" alike. */
const squeezed = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");

/**
 * The site most likely the project's, whose tag the set-up offers first: sites belong to the
 * account, not to a project. One named as the project, else one whose domain has it as a label
 * (shop.example for "Shop"), else one whose name or domain holds it, else the first.
 */
function likelySite(sites: SiteView[], project: string): SiteView | undefined {
	const name = squeezed(project);
	const likely: Array<(site: SiteView) => boolean> = [
		(site) => squeezed(site.name) === name,
		(site) => (site.domain ?? "").split(".").some((label) => squeezed(label) === name),
		(site) => squeezed(`${site.name} ${site.domain ?? ""}`).includes(name),
	];
	return (name ? likely.map((test) => sites.find(test)).find(Boolean) : undefined) ?? sites[0];
}

/** The tracker tag of one of the owner's sites, the one picked (the project's likely site until then), or how to add a site. */
function TrackerTag({ project }: { project: string }) {
	const sites = useSites().data;
	const [picked, setPicked] = useState<string>();
	if (!sites) return null;
	const site = sites.find((s) => s.tracking_id === picked) ?? likelySite(sites, project);
	if (!site) {
		return (
			<p className="muted">
				Analytics need no key: <Link to="/analytics">add a site</Link> and paste its tag.
			</p>
		);
	}
	const tag = trackerTag(site.tracking_id);
	return (
		<div className="snippet-block">
			<p className="muted">
				Sites belong to the account, not to a project: pick the one this project's pages are on, or add one under <Link to="/analytics">Analytics</Link>.
			</p>
			<label className="inline picker">
				Site
				<select value={site.tracking_id} title={site.name} onChange={(e) => setPicked(e.target.value)}>
					{sites.map((s) => (
						<option key={s.tracking_id} value={s.tracking_id}>
							{s.name}
						</option>
					))}
				</select>
			</label>
			<p>Its tracker tag, in every page's &lt;head&gt;:</p>
			<pre className="snippet">{tag}</pre>
			<CopyButton text={tag} what={`the tag of ${site.name}`} />
		</div>
	);
}


type Snippet = [title: string, text: string];

/** Every way of sending to this project with its key in `$SVC_KEY` (or the DSN), for this service's address. */
function projectSnippets(origin: string, dsnTemplate: string | null): Array<[group: string, note: string, snippets: Snippet[]]> {
	const logs: Snippet[] = [
		[
			"@svcapp/logger in Node",
			`// npm install @svcapp/logger
import * as logger from "@svcapp/logger";

logger.init({
  key: process.env.SVC_KEY,
  endpoint: "${origin}",
  environment: "production",
  release: "my-app@1.0.0",
});
// Uncaught exceptions and unhandled rejections are reported by themselves.
logger.captureException(new Error("Checkout failed"));`,
		],
		[
			"@svcapp/logger in a page without a bundler",
			`<!-- svc-logger.browser.js is in the package's dist/ folder: serve it with your assets. -->
<script src="/assets/svc-logger.browser.js"></script>
<script>
  // The project key in place of {PROJECT_KEY}: a page's key is public, as every browser error tracker's is.
  svcLogger.init({ key: "{PROJECT_KEY}", endpoint: "${origin}", release: "my-app@1.0.0" });
</script>`,
		],
	];
	if (dsnTemplate) {
		logs.push([
			"A Sentry SDK (@sentry/node, @sentry/browser…)",
			`// Keep the SDK and its calls; only the DSN changes, with the key in place of {PROJECT_KEY}.
// Errors, messages and user feedback arrive. Tracing, replays and Sentry.logger's logs
// are accepted and dropped: send what should become an issue with captureException or captureMessage.
Sentry.init({ dsn: "${dsnTemplate}" });`,
		]);
	}
	logs.push([
		"Plain HTTP",
		`curl -X POST ${origin}/api/app-logs-ingest \\
  -H "x-svc-key: $SVC_KEY" -H 'Content-Type: application/json' \\
  -d '{"level":"error","message":"Checkout failed","environment":"production","release":"1.0.0","user":{"id":"u_123"}}'`,
	]);
	return [
		[
			"Feedback",
			"An app's feedback form posts its fields with the key.",
			[
				[
					"Send feedback",
					`curl -X POST ${origin}/functions/v1/submit-feedback \\
  -H "Authorization: Bearer $SVC_KEY" -H 'Content-Type: application/json' \\
  -d '{"type":"issue","title":"Crash on save","description":"Pressing save crashes","email":"user@example.com"}'`,
				],
			],
		],
		["Errors and logs", "Events are grouped into issues. Use whichever fits the app.", logs],
	];
}

/**
 * Ready-to-paste set-up for a project: feedback, errors and logs (the logger SDK, a Sentry SDK
 * through the DSN, plain HTTP) with its key, and the tracker tag of one of the owner's sites.
 */
export function SetupSnippets({ projectKey }: { projectKey: ProjectKey }) {
	return (
		<section className="card" aria-labelledby="setup-heading">
			<h2 id="setup-heading">Set-up</h2>
			<p className="muted">
				<code>SVC_KEY</code> is the key of {projectKey.project_name}, shown once when it was created or regenerated.
				{projectKey.dsn_template && (
					<>
						{" "}
						Its Sentry DSN is <code data-testid="dsn-template">{projectKey.dsn_template}</code> with the key in place of{" "}
						<code>{"{PROJECT_KEY}"}</code>.
					</>
				)}
			</p>
			{projectSnippets(location.origin, projectKey.dsn_template).map(([group, note, snippets]) => (
				<div key={group}>
					<h3>{group}</h3>
					<p className="muted">{note}</p>
					{snippets.map(([title, text]) => (
						<div key={title} className="snippet-block">
							<h4>{title}</h4>
							<pre className="snippet">{text}</pre>
							<CopyButton text={text} what={title} />
						</div>
					))}
				</div>
			))}
			<h3>Browser analytics</h3>
			<TrackerTag project={projectKey.project_name} />
		</section>
	);
}
