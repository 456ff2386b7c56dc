import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { Link } from "react-router";
import { api, type SiteView, type SiteWithFiguresView } from "../api";
import { ConfirmButton } from "../components/ConfirmButton";
import { RefusedHost } from "../components/RefusedHost";
import { usePageTitle } from "../components/pageTitle";
import { CopyButton } from "../components/CopyButton";
import { ActionError, QueryState } from "../components/QueryState";
import { trackerTag } from "../components/SetupSnippets";
import { TimeChart } from "../components/TimeChart";
import { count, plural } from "../format";
import { keys, useSiteFigures, useSites } from "../queries";
import { refreshAfter } from "../queryClient";
import { TRACKER_QUEUE } from "../trackerQueue";

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

/**
 * The host typed as a site's domain, as the Worker stores it in the usual cases (lower case, without
 * scheme, port, path or a leading `www.`), to compare with the owner's sites; null when it is no host.
 * The Worker's own reading (readDomain, in domain/sites/hostnames.ts) also knows the public suffixes,
 * a list too large to ship to the console for a warning.
 */
function typedHost(input: string): string | null {
	const text = input.trim();
	if (text === "" || /\s/.test(text)) return null;
	try {
		const host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`).hostname.replace(/\.$/, "");
		return host.startsWith("www.") && host.length > 4 ? host.slice(4) : host;
	} catch {
		return null;
	}
}

const isLocalHost = (host: string) => host === "localhost" || host.endsWith(".localhost") || /^127(\.\d{1,3}){3}$/.test(host);

/**
 * Why a domain typed into a site's form may not be what the owner means, though the API takes it:
 * another of their sites has it, or a domain it is a subdomain of, or a subdomain of it (each site
 * counts its own visits, so the figures are split between them), or it is a computer's own address.
 * `self` is the site being edited.
 */
function domainWarning(input: string, sites: SiteView[] | undefined, self?: string): string | null {
	const host = typedHost(input);
	if (host === null) return null;
	const others = sites?.filter((site) => site.tracking_id !== self && site.domain) ?? [];
	const twin = others.find((site) => site.domain === host);
	if (twin) return `Another of your sites, ${twin.name}, already has this domain: their figures will be counted apart.`;
	// A site takes the visits of its domain's subdomains too: a site of a subdomain splits them by snippet.
	const parent = others.find((site) => host.endsWith(`.${site.domain}`));
	if (parent) {
		return `${host} is a subdomain of ${parent.domain}, which your site ${parent.name} has: its pages are counted by whichever site's snippet they carry, not both.`;
	}
	const child = others.find((site) => site.domain?.endsWith(`.${host}`));
	if (child) {
		return `Your site ${child.name} has ${child.domain}, a subdomain of ${host}: its pages are counted by whichever site's snippet they carry, not both.`;
	}
	if (isLocalHost(host)) {
		return `${host} is the address of a local development server: a visit counts only when the tracker runs there, in the pages it serves, and visits to your public site are refused.`;
	}
	return null;
}

/**
 * A site form's Domain field, with a warning as it is typed (domainWarning). The warning comes next
 * in the form, so a screen reader reads it after the field; styles.css shows it on a line of its own
 * under the form's row.
 */
function DomainField({ saved, self }: { saved?: string; self?: string }) {
	const [typed, setTyped] = useState(saved ?? "");
	const warning = domainWarning(typed, useSites().data, self);
	const id = useId();
	const input = useRef<HTMLInputElement>(null);
	// A form's reset (once a site is added) empties the field without a change event.
	useEffect(() => {
		const form = input.current?.form;
		const reset = () => setTyped(saved ?? "");
		form?.addEventListener("reset", reset);
		return () => form?.removeEventListener("reset", reset);
	}, [saved]);
	return (
		<>
			<label>
				Domain
				<input
					ref={input}
					name="domain"
					defaultValue={saved}
					placeholder="example.com"
					required
					// `required` takes spaces, which the Worker trims to no domain at all.
					pattern=".*\S.*"
					title="A domain, such as example.com"
					maxLength={300}
					onChange={(e) => setTyped(e.target.value)}
					aria-describedby={warning ? id : undefined}
				/>
			</label>
			{warning && (
				<p id={id} className="field-warning" role="status">
					{warning}
				</p>
			)}
		</>
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
			<RefusedHost site={site} />
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
					<DomainField saved={site.domain ?? ""} self={site.tracking_id} />
					<button type="submit" className="primary" disabled={update.isPending}>
						Save
					</button>
				</form>
			</details>
			<p>Paste into every page's &lt;head&gt;:</p>
			<pre className="snippet">{tag}</pre>
			<p className="muted">
				To count clicks on links out of the site and on files to download too, load <code>t.links.js</code> in place of <code>t.js</code>.
			</p>
			<details>
				<summary>Custom events, and leaving out your own visits</summary>
				<p>
					Send an event from the page with <code>svc.track("Signup", {"{"} plan: "pro" {"}"})</code>: it shows under Custom events, its
					properties under Properties. The tag is deferred, so a script earlier in the page runs before it: put this line before the tag,
					and calls made before the tag loads are sent once it has:
				</p>
				<pre className="snippet">{TRACKER_QUEUE}</pre>
				<p>
					Your own visits: in your browser's console on the site, run <code>localStorage.svc_ignore = "true"</code>; that browser is not
					counted from then on.
				</p>
			</details>
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
				<DomainField />
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
