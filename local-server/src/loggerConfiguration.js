// Whether and how a package starts @svcapp/logger, for the setup-health scan
// (scan.js): where its init is called, where its key and endpoint come from,
// and the findings about them. A key is never repeated: only the file it was
// found in and its last four characters.
import { LOGGER_PACKAGE } from "./packageManagers.js";
import { PROJECT_KEY } from "./sentrySdk.js";

/** @typedef {import("./loggerInit.js").InitCall} InitCall */
/** @typedef {import("./loggerInit.js").OptionValue} OptionValue */
/** @typedef {import("./scan.js").Finding} Finding */
/** @typedef {import("./scan.js").Folder} Folder */

/**
 * Where the logger is started and where its key and endpoint come from, as
 * sentences ("found in .env (…x9Qz)"); `ok` when all three were found, the
 * key, where its value is known, has a project key's shape and the endpoint
 * is an http(s) address.
 * @typedef {{ok: boolean, init: string | null, key: string | null, endpoint: string | null}} Configured
 */

/** @param {string} value a secret: shown by its last four characters only, and not even those when it is short */
function lastFour(value) {
	return value.length >= 12 ? `…${value.slice(-4)}` : "…";
}

/** @returns {Configured} */
export function notConfigured() {
	return { ok: false, init: null, key: null, endpoint: null };
}

/**
 * What an init call passes for an option. found: a value is there; missing:
 * the option is not passed at all; variable: the environment variable it is
 * read from; value: the value, when it is known, and file: where it is written.
 * @typedef {{found: boolean, missing: boolean, where: string, literal: boolean, variable: string, value?: string, file?: string}} ResolvedOption
 */

/** What the findings say about each option of init. */
const OPTION_TEXTS = {
	key: { missing: "a key", pass: "Pass key: process.env.SVC_KEY and set SVC_KEY=<your project key> in .env.", example: "<your project key>" },
	endpoint: { missing: "an endpoint", pass: 'Pass endpoint: "https://<your svc address>" to init.', example: "https://<your svc address>" },
};

/**
 * Where an option's value was found, as the answer shows it (a key by its
 * last four characters only); null when it was not. Adds the findings.
 * @param {"key" | "endpoint"} name @param {ResolvedOption} option @param {string} file @param {Finding[]} findings
 */
function describeOption(name, option, file, findings) {
	const texts = OPTION_TEXTS[name];
	if (option.found) {
		if (option.value === undefined) return option.where;
		return `${option.where} (${name === "key" ? lastFour(option.value) : option.value})`;
	}
	if (option.missing) {
		findings.push({ code: `${name}_missing`, severity: "error", message: `init in ${file} is called without ${texts.missing}.`, action: texts.pass });
		return null;
	}
	findings.push({
		code: `${name}_not_found`,
		severity: "warning",
		message: `init in ${file} reads the ${name} from ${option.variable}, which no .env file of this package sets.`,
		action: `Set ${option.variable}=${texts.example} in .env, or make sure the environment the app runs in sets it.`,
	});
	return `${option.variable} (not set in any .env file)`;
}

/**
 * Whether and how the package starts the logger; adds the findings.
 * @param {{file: string, call: InitCall}[]} calls
 * @param {string[]} importers files that import the logger
 * @param {({dir: string} & Folder)[]} chain
 * @param {Finding[]} findings
 * @param {{unread: string[], stopped: boolean, tests: string[]}} elsewhere the package's source files and
 *   folders that could not be read, whether the walk stopped at a limit before reading every file,
 *   and the tests that call init (not counted in `calls`: the app does not run them)
 * @returns {Configured}
 */
export function configuration(calls, importers, chain, findings, { unread: unreadPaths, stopped, tests }) {
	if (calls.length === 0) {
		const unread =
			(tests.length > 0 ? ` Only tests call it (${tests.join(", ")}), which the app does not run.` : "") +
			(unreadPaths.length > 0 ? ` ${unreadPaths.join(", ")} could not be read: the call may be there.` : "") +
			(stopped ? " The scan stopped at a limit before reading every file (see the limits reached): the call may be in a file it did not read." : "");
		findings.push({
			code: "logger_not_initialised",
			severity: "error",
			message:
				(importers.length > 0
					? `${importers[0]} imports ${LOGGER_PACKAGE} but no call to its init was found.`
					: `No source file of this package imports ${LOGGER_PACKAGE} and calls its init.`) + unread,
			action: 'Call init({ key: process.env.SVC_KEY, endpoint: "https://<your svc address>" }) from @svcapp/logger when the app starts.',
		});
		return notConfigured();
	}
	const envFiles = chain.flatMap((c) => c.env);
	const envLinksOut = chain.flatMap((c) => c.envLinksOut);
	/** Variables looked for in a .env linked from out of the workspace, which may set them. @type {Set<string>} */
	const unchecked = new Set();
	/** @param {OptionValue | null} option @param {string} file @returns {ResolvedOption} */
	const resolve = (option, file) => {
		const none = { found: false, missing: false, where: "", literal: false, variable: "" };
		if (option === null) return { ...none, missing: true };
		if (option.kind === "literal") return { ...none, found: option.value !== "", missing: option.value === "", where: `found in ${file}`, literal: true, value: option.value, file };
		if (option.kind === "expression") return { ...none, found: true, where: `set in ${file} by an expression (not followed)` };
		const env = envFiles.find((e) => e.vars[option.name]);
		if (env) return { ...none, found: true, where: `found in ${env.file}`, variable: option.name, value: env.vars[option.name], file: env.file };
		if (envLinksOut.length > 0) {
			unchecked.add(option.name);
			return { ...none, found: true, where: `${option.name}, not checked: ${envLinksOut.join(", ")} is a link out of the workspace`, variable: option.name };
		}
		// A binding in none of them is a secret kept by Cloudflare, which no file here can show.
		if (option.kind === "binding") return { ...none, found: true, where: `the Worker secret ${option.name} (not in the vars of a wrangler configuration nor .dev.vars)`, variable: option.name };
		if (option.fallback) return { ...none, found: true, where: `${option.name} is not set: the fallback in ${file}`, literal: true, variable: option.name, value: option.fallback, file };
		return { ...none, variable: option.name };
	};
	const resolved = calls.map(({ file, call }) => ({ file, key: resolve(call.key, file), endpoint: resolve(call.endpoint, file) }));
	const { file, key, endpoint } = resolved.find((r) => r.key.found && r.endpoint.found) ?? resolved[0];
	// No key of another shape was ever minted: the service refuses every event sent with one.
	const keyInvalid = key.found && key.value !== undefined && !PROJECT_KEY.test(key.value.trim());
	const endpointInvalid = endpoint.value !== undefined && !/^https?:\/\/[^\s/]+/.test(endpoint.value);
	const configured = {
		// Found and usable: an endpoint that is no http(s) address is no configuration.
		ok: key.found && endpoint.found && !keyInvalid && !endpointInvalid,
		init: file,
		key: describeOption("key", key, file, findings),
		endpoint: describeOption("endpoint", endpoint, file, findings),
	};
	if (unchecked.size > 0) {
		const vars = [...unchecked].join(" and ");
		findings.push({
			code: "env_link_not_read",
			severity: "info",
			message: `${envLinksOut.join(", ")} ${envLinksOut.length === 1 ? "is a symbolic link" : "are symbolic links"} to a file out of the workspace, which the scan does not read: whether ${vars} ${unchecked.size === 1 ? "is" : "are"} set there is not checked.`,
			action: `Nothing to do if it sets ${vars}; for the scan to check it, keep the file in the workspace (or link to one there).`,
		});
	}
	if (key.literal && key.found) {
		findings.push({
			code: "key_in_source",
			severity: "info",
			message: `The project key is written in ${file}.`,
			action: "Read it from an environment variable instead (key: process.env.SVC_KEY), unless this code runs in a browser, where the key is public anyway.",
		});
	}
	if (keyInvalid) {
		// Nothing of the value is repeated: a mistyped key may still be most of a real one.
		findings.push({
			code: "key_invalid",
			severity: "error",
			message: `${key.literal ? "The key written" : key.variable} in ${key.file} is not a project key: a project key is svc_ and 43 letters and digits.`,
			action: `Set ${key.literal ? "it" : key.variable} to the project key the console's Projects area showed when it was created; regenerate it there if it is lost.`,
		});
	}
	if (endpointInvalid) {
		findings.push({
			code: "endpoint_invalid",
			severity: "error",
			message: `The endpoint ${JSON.stringify(endpoint.value)} is not an http(s) address.`,
			action: 'Set the endpoint to your svc address, for example "https://svc.example.com".',
		});
	}
	return configured;
}

/**
 * A package that starts the logger without listing it: from the browser script a page loads
 * (nothing to do), with the logger a package above it lists and installs (a monorepo's root:
 * nothing to do), or else only while something else happens to install it.
 * @param {{file: string, call: InitCall}[]} calls @param {string | null} provider the dir of the package above that lists it
 * @param {string} install how to add it, "`npm install @svcapp/logger` in web"
 * @returns {Finding}
 */
export function startedUnlisted(calls, provider, install) {
	const { file } = calls[0];
	if (calls.every(({ call }) => call.script)) {
		return {
			code: "logger_script",
			severity: "info",
			message: `${file} starts the browser script of ${LOGGER_PACKAGE} (svcLogger.init), which the page loads itself: it is not a dependency of this package, so its version is not checked.`,
			action: `Nothing to do; for its version to be checked and updated here, add it with ${install} and serve its dist/svc-logger.browser.js.`,
		};
	}
	if (provider !== null) {
		return {
			code: "logger_listed_above",
			severity: "info",
			message: `${file} starts ${LOGGER_PACKAGE}, which ${provider === "." ? "the workspace's root" : provider} lists and installs for this package.`,
			action: `Nothing to do; listing it here too (${install}) keeps this package working on its own.`,
		};
	}
	return {
		code: "logger_not_listed",
		severity: "warning",
		message: `${file} starts ${LOGGER_PACKAGE}, but this package does not list it: it works only while something else installs it.`,
		action: `Add it with ${install}.`,
	};
}

/**
 * A monorepo's root that lists the logger, which its packages start.
 * @param {string[]} dirs those packages
 * @returns {Finding}
 */
export function startedInPackages(dirs) {
	return {
		code: "logger_started_in_packages",
		severity: "info",
		message: `Listed here for the packages of this workspace that start it: ${dirs.join(", ")}.`,
		action: "Nothing to do here; their rows say how each one is set up.",
	};
}
