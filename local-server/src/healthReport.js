// A setup-health scan as `svc-local health` prints it: per package its
// logger, where init, key and endpoint were found, and each finding with
// the action to take; then the limits the scan reached.

/**
 * The answer of GET /api/workspace/setup-health.
 * @typedef {object} HealthAnswer
 * @property {string} workspaceId
 * @property {string} scannedAt
 * @property {boolean} cached
 * @property {import("./owner.js").OwnerAccess} access
 * @property {ReturnType<import("./walk.js").BoundedReader["report"]>} limits
 * @property {import("./scan.js").PackageHealth[]} packages
 */

/** A finding about the registry, not the package: each package that lists the logger has it. */
const REGISTRY_UNREACHABLE = "registry_unreachable";
/** A finding whose action names the page's Update button. */
const LOGGER_OUTDATED = "logger_outdated";

/** @param {import("./scan.js").PackageHealth} p */
function loggerLine(p) {
	const { listed, installed, latest } = p.logger;
	// A package.json that could not be read or parsed says nothing about the logger either way.
	if (!listed) return p.findings.some((f) => f.code === "package_json_unreadable") ? "logger unknown" : "logger not listed";
	return `logger ${installed ?? "not installed"}, latest ${latest ?? "unknown"}`;
}

/**
 * @param {HealthAnswer} answer
 * @param {import("./workspaces.js").Workspace} workspace
 */
export function healthText(answer, workspace) {
	const lines = [`workspace ${workspace.id}  ${workspace.path}  (scanned ${answer.scannedAt}${answer.cached ? ", from the cache" : ""}; access: ${answer.access})`];
	if (answer.packages.length === 0) lines.push("  no package.json found");
	// The same for every package that lists the logger: said once, below them, not under each.
	const registry = answer.packages.flatMap((p) => p.findings).find((f) => f.code === REGISTRY_UNREACHABLE);
	for (const p of answer.packages) {
		lines.push(`  ${p.dir}${p.name ? ` (${p.name})` : ""}  ${p.packageManager}  ${loggerLine(p)}`);
		const { init, key, endpoint } = p.logger.configured;
		if (init) lines.push(`    init in ${init}; key: ${key ?? "none"}; endpoint: ${endpoint ?? "none"}`);
		for (const f of p.findings) {
			if (f.code === REGISTRY_UNREACHABLE) continue;
			lines.push(`    ${f.severity}: ${f.message}`, `      -> ${f.action}`);
			// The Update button is the page's: from here, the command that does the same.
			if (f.code === LOGGER_OUTDATED) lines.push(`      -> or: svc-local update-logger ${workspace.id} ${p.dir}`);
		}
	}
	if (registry) lines.push(`  ${registry.severity}: ${registry.message}`, `    -> ${registry.action}`);
	/** @param {{count: number, paths: string[]}} h */
	const paths = (h) => `${h.paths.join(", ")}${h.count > h.paths.length ? ` and ${h.count - h.paths.length} more` : ""}`;
	for (const hit of answer.limits.hit) lines.push(`  limit reached: ${hit.message}: ${paths(hit)}`);
	if (answer.limits.unreadable.count > 0) lines.push(`  could not be read (skipped): ${paths(answer.limits.unreadable)}`);
	if (answer.limits.linksOut.count > 0) lines.push(`  links out of the workspace (not followed): ${paths(answer.limits.linksOut)}`);
	const attention = answer.packages.filter((p) => p.needsAttention).length;
	// With no package there is nothing to call set up: "no package.json found" above says it all.
	if (answer.packages.length > 0) lines.push(`  ${attention === 0 ? "every package is set up" : `${attention} of ${answer.packages.length} packages need attention`}`);
	lines.push("");
	return lines.join("\n");
}
