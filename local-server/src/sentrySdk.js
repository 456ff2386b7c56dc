// A package that reports its errors with one of Sentry's SDKs rather than the
// logger. svc takes Sentry's envelopes too: an app whose DSN carries a
// project key (https://<project key>@<svc address>/<dsn id>) reaches svc
// without @svcapp/logger, and one whose DSN names another service does not.
// The DSN is looked for where apps keep it: a variable of a .env file
// (SENTRY_DSN, NEXT_PUBLIC_SENTRY_DSN...) or a `dsn: "…"` literal in a source
// file that imports a Sentry SDK.

/** @typedef {import("./scan.js").Finding} Finding */

/**
 * What a project key looks like: svc_ and 43 characters. Keys are minted as
 * letters and digits now; ones created before may also hold `-` and `_`,
 * and still work.
 */
export const PROJECT_KEY = /^svc_[A-Za-z0-9_-]{43}$/;

/** Sentry's build tools and shared internals, which report nothing themselves. */
const SENTRY_TOOLING = /^@sentry\/(?:cli|types|utils|core|[\w-]*plugin[\w-]*)$/;
const DSN = /^https?:\/\/([^:@/\s]+)(?::[^@/\s]*)?@([^/\s?#]+)(?:\/[^\s?#]*)?\/\d+\/?$/;
const DSN_LITERAL = /\bdsn\s*:\s*(["'`])(https?:\/\/[^"'`\s]+)\1/g;

/**
 * The Sentry SDK a manifest lists (dependencies, devDependencies or optionalDependencies), else null.
 * @param {Record<string, unknown>} manifest
 */
export function sentrySdkOf(manifest) {
	for (const field of ["dependencies", "devDependencies", "optionalDependencies"]) {
		const deps = manifest[field];
		if (typeof deps !== "object" || deps === null) continue;
		const sdk = Object.keys(deps).find((name) => name.startsWith("@sentry/") && !SENTRY_TOOLING.test(name));
		if (sdk) return sdk;
	}
	return null;
}

/**
 * The `dsn: "…"` literals of a source file that imports a Sentry SDK.
 * @param {string} text
 */
export function dsnLiterals(text) {
	if (!text.includes("@sentry/")) return [];
	return [...text.matchAll(DSN_LITERAL)].map((m) => m[2]);
}

/** @param {string} value @returns {{key: string, host: string} | null} */
function parseDsn(value) {
	const m = DSN.exec(value.trim());
	return m ? { key: m[1], host: m[2] } : null;
}

/**
 * Where a package's DSNs are set: each .env variable named *DSN* that holds one, and each literal.
 * @param {{file: string, vars: Record<string, string>}[]} envFiles
 * @param {{file: string, value: string}[]} literals
 */
export function dsnsOf(envFiles, literals) {
	const fromEnv = envFiles.flatMap((e) => Object.entries(e.vars).flatMap(([name, value]) => (/DSN/i.test(name) ? [{ where: `${name} in ${e.file}`, value }] : [])));
	return [...fromEnv, ...literals.map((l) => ({ where: `the dsn in ${l.file}`, value: l.value }))].flatMap(({ where, value }) => {
		const dsn = parseDsn(value);
		return dsn ? [{ where, ...dsn }] : [];
	});
}

/**
 * What to say about a package that does not list the logger but lists a Sentry SDK.
 * @param {string} sdk @param {ReturnType<typeof dsnsOf>} dsns
 * @param {string[]} envLinksOut its .env files that link out of the workspace: there, but not read
 * @returns {Finding}
 */
export function sentryFinding(sdk, dsns, envLinksOut = []) {
	const setTo = "Set the DSN to your project key's DSN (https://<project key>@<your svc address>/<dsn id>; the console shows it with the key)";
	if (dsns.length === 0 && envLinksOut.length > 0) {
		return {
			code: "sentry_dsn_not_checked",
			severity: "info",
			message: `${sdk} is listed and no source file passes a DSN; ${envLinksOut.join(", ")} ${envLinksOut.length === 1 ? "is a symbolic link" : "are symbolic links"} to a file out of the workspace, which the scan does not read: whether it sets a DSN that carries a project key is not checked.`,
			action: `Nothing to do if it does; for the scan to check it, keep the file in the workspace (or link to one there). ${setTo}.`,
		};
	}
	if (dsns.length === 0) {
		return {
			code: "sentry_dsn_not_found",
			severity: "warning",
			message: `${sdk} is listed, but no .env file of this package sets a DSN and no source file passes one: whether its errors reach svc is unknown.`,
			action: `${setTo}, for example SENTRY_DSN in .env, or add @svcapp/logger.`,
		};
	}
	const elsewhere = dsns.find((d) => !PROJECT_KEY.test(d.key));
	if (elsewhere) {
		return {
			code: "sentry_dsn_not_svc",
			severity: "warning",
			message: `${sdk} sends to ${elsewhere.host}: ${elsewhere.where} does not carry an svc project key, so those errors do not reach svc.`,
			action: `${setTo}, or add @svcapp/logger.`,
		};
	}
	// Sentry's SDKs take only letters, digits and _ as a DSN's key and turn themselves off,
	// silently, for any other: a key minted before svc's keys had that alphabet.
	const refused = dsns.find((d) => /[^A-Za-z0-9_]/.test(d.key));
	if (refused) {
		return {
			code: "sentry_dsn_key_refused",
			severity: "error",
			message: `The project key in ${refused.where} holds "-", which ${sdk} does not accept in a DSN: it turns itself off and sends nothing.`,
			action: "Regenerate the key in the console (keys are letters and digits now) and set the DSN it shows.",
		};
	}
	const hosts = [...new Set(dsns.map((d) => d.host))].join(", ");
	return {
		code: "sentry_sdk",
		severity: "info",
		message: `Errors reach svc through ${sdk}: ${dsns.map((d) => d.where).join(", ")} ${dsns.length === 1 ? "carries" : "carry"} a project key and ${dsns.length === 1 ? "sends" : "send"} to ${hosts}.`,
		action: "Nothing to do; @svcapp/logger, svc's own SDK, is the alternative.",
	};
}
