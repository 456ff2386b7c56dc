/**
 * Site domains and host authorization: an event's `url_host` must be the site's configured domain
 * or a subdomain of it.
 */

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

/**
 * What an owner typed ("https://www.Example.com/", "example.com:8080", "bücher.de") as the domain
 * to store: the lower-case ASCII host name, without scheme, port, path or a leading `www.` (so
 * both the apex and www match). Null when it is not a host name.
 */
export function normalizeDomain(input: string): string | null {
	const text = input.trim();
	if (text === "" || /\s/.test(text)) return null;
	let host: string;
	try {
		host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`).hostname;
	} catch {
		return null;
	}
	host = host.replace(/\.$/, "");
	if (host.startsWith("www.") && host.length > 4) host = host.slice(4);
	if (host.length > 253 || host.startsWith("[")) return null;
	// The URL parser reads "1.2.3" or "0x7f.1" as IPv4 addresses; only a dotted quad as typed is one.
	if (IPV4.test(host)) return text.includes(host) ? host : null;
	const labels = host.split(".");
	return labels.every((label) => LABEL.test(label)) && !/^\d+$/.test(labels[labels.length - 1]) ? host : null;
}

/** The host part of a `url_host` as a tracker sends it (`location.hostname`), port tolerated. */
export function hostOnly(urlHost: string): string {
	return urlHost
		.trim()
		.toLowerCase()
		.replace(/:\d*$/, "")
		.replace(/\.$/, "");
}

/** True when `urlHost` is `domain` or one of its subdomains; "evil-example.com" is not "example.com". */
export function hostMatchesDomain(urlHost: string, domain: string): boolean {
	const host = hostOnly(urlHost);
	return host === domain || host.endsWith(`.${domain}`);
}
