import type { SiteView } from "../api";
import { ago, utcDateTime } from "../format";

/** How long a refused host is shown: a tag moved or fixed since stops being mentioned. */
const REFUSAL_SHOWN_MS = 7 * 86_400_000;

/**
 * Where the site's tag runs and counts nothing: the last host outside the domain that collection
 * refused (a staging host, a second domain), in the last week.
 */
export function RefusedHost({ site }: { site: SiteView }) {
	if (!site.domain || !site.refused_host || !site.refused_at || Date.now() - Date.parse(site.refused_at) > REFUSAL_SHOWN_MS) return null;
	return (
		<p className="card notice" role="status">
			Visits from <strong>{site.refused_host}</strong> were refused, most recently{" "}
			<time dateTime={site.refused_at} title={utcDateTime(site.refused_at)}>
				{ago(site.refused_at)}
			</time>
			: it is not {site.domain} or one of its subdomains, so the site's tag counts nothing there. Add a site for that domain, or change this site's.
		</p>
	);
}
