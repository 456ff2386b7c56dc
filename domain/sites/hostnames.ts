/**
 * Site domains and host authorization, read with the public suffix list (tldts): an event's
 * `url_host` must be the site's domain or a subdomain of it, `www.` and the apex are one site,
 * and a public suffix alone (`com`, `co.uk`, `github.io`) is no site: it would let every site
 * under it report as this one.
 */
import { parse } from "tldts";
import { memoizeByText } from "../textMemo";

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

/**
 * True when `host` is exactly a suffix of the public suffix list, ICANN's (`co.uk`) or a private
 * one (`github.io`, `blogspot.com`): names under it belong to unrelated owners. A name the list
 * does not know as a suffix (`localhost`, `intranet`) is not one.
 */
function isPublicSuffix(host: string): boolean {
	const { domain, isIcann, isPrivate } = parse(host, { allowPrivateDomains: true });
	return domain === null && (isIcann === true || isPrivate === true);
}

/** isPublicSuffix of a site's stored domain, asked for every analytics event: kept per isolate. */
const domainIsPublicSuffix = memoizeByText(isPublicSuffix, { entries: 10_000, maxChars: 300 });

export type DomainReading = { domain: string } | { error: string };

/**
 * What an owner typed ("https://www.Example.com/", "example.com:8080", "bücher.de") as the domain
 * to store: the lower-case ASCII host name, without scheme, port, path or a leading `www.` (so
 * the apex and www are one site). An error says why it is not a site's domain.
 */
export function readDomain(input: string): DomainReading {
	const notAHost = { error: "must be a host name such as example.com" };
	const text = input.trim();
	if (text === "" || /\s/.test(text)) return notAHost;
	let host: string;
	try {
		host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`).hostname;
	} catch {
		return notAHost;
	}
	host = host.replace(/\.$/, "");
	// www.co.uk is a registrable name of its own: only a `www.` in front of something that is
	// not a public suffix is the apex's alias.
	if (host.startsWith("www.") && host.length > 4 && !isPublicSuffix(host.slice(4))) host = host.slice(4);
	if (host.length > 253 || host.startsWith("[")) return notAHost;
	// The URL parser reads "1.2.3" or "0x7f.1" as IPv4 addresses; only a dotted quad as typed is one.
	if (IPV4.test(host)) return text.includes(host) ? { domain: host } : notAHost;
	const labels = host.split(".");
	if (!labels.every((label) => LABEL.test(label)) || /^\d+$/.test(labels[labels.length - 1])) return notAHost;
	if (isPublicSuffix(host)) {
		return { error: `${host} is a public suffix, under which unrelated sites register their own names: use the site's own domain, such as example.${host}` };
	}
	return { domain: host };
}

/** The host part of a `url_host` as a tracker sends it (`location.hostname`), port tolerated. */
export function hostOnly(urlHost: string): string {
	return urlHost
		.trim()
		.toLowerCase()
		.replace(/:\d*$/, "")
		.replace(/\.$/, "");
}

/**
 * True when `urlHost` is `domain` or one of its subdomains: "blog.example.com" belongs to
 * "example.com", "evil-example.com" does not, and neither does "other.github.io" to
 * "user.github.io". A public suffix (a site stored before suffixes were refused) authorizes nothing.
 */
export function hostMatchesDomain(urlHost: string, domain: string): boolean {
	const host = hostOnly(urlHost);
	return (host === domain || host.endsWith(`.${domain}`)) && !domainIsPublicSuffix(domain);
}
