import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useRef } from "react";
import { Link } from "react-router";
import { api, type SiteView, type SiteWithFiguresView } from "../api";
import { ConfirmButton } from "../components/ConfirmButton";
import { usePageTitle } from "../components/pageTitle";
import { CopyButton } from "../components/CopyButton";
import { ActionError, QueryState } from "../components/QueryState";
import { trackerTag } from "../components/SetupSnippets";
import { TimeChart } from "../components/TimeChart";
import { count, plural } from "../format";
import { keys, useSiteFigures, useSites } from "../queries";
import { refreshAfter } from "../queryClient";

/** A site's visitors in the last 24 hours: the figure, and a bar per hour with its words for those who cannot see it. */
function SiteFigures({ figures }: { figures: SiteWithFiguresView["last_24h"] }) {
	const values = figures.series.map((point) => point.visitors);
	const busiest = Math.max(0, ...values);
	return (
		<div className="row">
			<TimeChart
				kind="sparkline"
				height={32}
				times={figures.series.map((point) => Date.parse(point.t))}
				series={[{ label: "visitors", values, color: "--chart-1" }]}
				label={busiest ? `Visitors per hour over the last 24 hours: at most ${plural(busiest, "visitor")} in an hour` : "No visitors in any hour of the last 24 hours"}
			/>
			<span>
				<strong>{count(figures.visitors)}</strong> <span className="muted">{figures.visitors === 1 ? "visitor" : "visitors"} in the last 24 hours</span>
			</span>
		</div>
	);
}

/** A site's fields, as its forms word them. */
const SITE_WORDS = {
	domain: { name: "The domain" },
	name: { name: "The site's name", missing: "Give the site a name." },
};

function SiteCard({ site, figures }: { site: SiteView; figures?: SiteWithFiguresView["last_24h"] }) {
	const settled = (_answer: unknown, error: unknown) => refreshAfter(error, { queryKey: keys.sites });
	const update = useMutation({ mutationFn: (changes: Partial<SiteView>) => api.updateSite(site.tracking_id, changes), onSettled: settled });
	const remove = useMutation({ mutationFn: () => api.deleteSite(site.tracking_id), onSettled: settled });
	const tag = trackerTag(site.tracking_id);
	const settings = useRef<HTMLDetailsElement>(null);

	function save(event: FormEvent<HTMLFormElement>) {
		event.preventDefault();
		const data = new FormData(event.currentTarget);
		const changes = { name: String(data.get("name")).trim(), domain: String(data.get("domain")).trim() };
		update.mutate(changes, { onSuccess: () => settings.current?.removeAttribute("open") });
	}

	return (
		<li className="card">
			<h2>
				<Link to={`/analytics/${site.tracking_id}`}>{site.name}</Link>
			</h2>
			<p className="muted">
				{site.domain ?? "No domain: collection is refused until one is set"} · tracking ID <code>{site.tracking_id}</code>
			</p>
			{figures && <SiteFigures figures={figures} />}
			<p className="row">
				<Link to={`/analytics/${site.tracking_id}`}>Dashboard</Link>
				<Link to={`/crawlers/${site.tracking_id}`}>Crawlers</Link>
			</p>
			<details ref={settings}>
				<summary>Rename or change the domain</summary>
				{/* Keyed by the saved values, so the fields show them again after a save or a refetch. */}
				<form key={`${site.name}\n${site.domain}`} className="row" onSubmit={save} aria-label={`Settings of ${site.name}`}>
					<label>
						Name
						<input name="name" defaultValue={site.name} required maxLength={100} />
					</label>
					<label>
						Domain
						<input name="domain" defaultValue={site.domain ?? ""} placeholder="example.com" required maxLength={300} />
					</label>
					<button type="submit" className="primary" disabled={update.isPending}>
						Save
					</button>
				</form>
			</details>
			<p>Paste into every page's &lt;head&gt;:</p>
			<pre className="snippet">{tag}</pre>
			<div className="row">
				<CopyButton text={tag} label="Copy tag" />
				<label className="switch">
					<input type="checkbox" checked={site.active} onChange={(e) => update.mutate({ active: e.target.checked })} disabled={update.isPending} />
					Collecting
				</label>
				<label className="switch">
					<input
						type="checkbox"
						checked={site.attack_mode}
						onChange={(e) => update.mutate({ attack_mode: e.target.checked })}
						disabled={update.isPending}
					/>
					Attack Mode (stricter limits, refuses tools and headless browsers)
				</label>
				<ConfirmButton
					question={`Delete ${site.name}? Its analytics events and crawler visits are deleted with it.`}
					confirmLabel="Delete site"
					removes
					onConfirm={() => remove.mutate()}
					disabled={remove.isPending}
				>
					Delete…
				</ConfirmButton>
			</div>
			<ActionError error={update.error ?? remove.error} fields={SITE_WORDS} />
		</li>
	);
}

export function AnalyticsPage() {
	const sites = useSites();
	const figures = useSiteFigures().data;
	usePageTitle("Analytics");
	const create = useMutation({
		mutationFn: ({ domain, name }: { domain: string; name: string }) => api.createSite(domain, name),
		onSettled: (_answer, error) => refreshAfter(error, { queryKey: keys.sites }),
	});

	function submit(event: FormEvent<HTMLFormElement>) {
		event.preventDefault();
		const form = event.currentTarget;
		const data = new FormData(form);
		create.mutate({ domain: String(data.get("domain")).trim(), name: String(data.get("name")).trim() }, { onSuccess: () => form.reset() });
	}

	return (
		<section>
			<h1>Analytics</h1>
			<p className="muted">Privacy-friendly analytics: no cookies, no personal data. Add a site, paste its tag, and open its dashboard.</p>
			<form className="row" onSubmit={submit} aria-label="New site">
				<label>
					Domain
					<input name="domain" placeholder="example.com" required maxLength={300} />
				</label>
				<label>
					Name (optional)
					<input name="name" placeholder="My site" maxLength={100} />
				</label>
				<button type="submit" className="primary" disabled={create.isPending}>
					Add site
				</button>
				<ActionError error={create.error} fields={SITE_WORDS} inline />
			</form>
			<QueryState query={sites} loading="Loading sites…" empty="No sites yet: add one to see its visitors." />
			<ul className="plain">
				{sites.data?.map((site) => (
					<SiteCard key={site.tracking_id} site={site} figures={figures?.get(site.tracking_id)} />
				))}
			</ul>
		</section>
	);
}
