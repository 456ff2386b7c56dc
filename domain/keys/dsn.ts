/**
 * Sentry DSNs for project keys: `<scheme>://<raw key>@<host>/<dsn id>`, so an application
 * instrumented with a Sentry SDK changes only its DSN (docs/api.md#sentry-sdks).
 */

/** Stands for the raw key in `dsn_template`: the raw key is shown once, the template always. */
const KEY_PLACEHOLDER = "{PROJECT_KEY}";

/** The DSN of a key reached at `origin` (the scheme, host and port the request came to). */
export function sentryDsn(origin: string, rawKey: string, dsnId: number): string {
	const url = new URL(origin);
	return `${url.protocol}//${rawKey}@${url.host}/${dsnId}`;
}

export const dsnTemplate = (origin: string, dsnId: number) => sentryDsn(origin, KEY_PLACEHOLDER, dsnId);
