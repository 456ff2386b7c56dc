// The workspaces whose setup health svc-local checks, the health scan itself,
// and the logger update it advises, through the running server.
import fs from "node:fs";
import path from "node:path";
import { CliError } from "./commandSpec.js";
import { LOGGER_PACKAGE } from "./packageManagers.js";
import { healthText } from "./healthReport.js";
import { ownerRequest } from "./ownerRequest.js";
import { isSshLocation } from "./workspaces.js";

/** @typedef {import("./commandSpec.js").Command} Command */
/** @typedef {import("./commandSpec.js").CommandGroup} CommandGroup */
/** @typedef {import("./workspaces.js").Workspace} Workspace */
/** @typedef {import("./healthReport.js").HealthAnswer} HealthAnswer */

/** @type {CommandGroup} */
export const workspace = {
	summary: "the folders whose setup health svc-local checks",
	subcommands: {
		add: {
			summary: "register a workspace: a local folder, or ssh://… or user@host:path (listed, not scanned)",
			args: ["<dir>"],
			async run({ args: [dir] }, io) {
				const where = isSshLocation(dir) ? dir : path.resolve(dir);
				const w = /** @type {Workspace} */ (await ownerRequest(io.env, "POST", "/api/workspaces", { path: where }));
				io.stdout.write(`workspace ${w.id}: ${w.path} (${w.kind})\n`);
				return 0;
			},
		},
		list: {
			summary: "list the registered workspaces",
			options: { json: { type: "boolean", description: "print the workspaces as a JSON array (id, kind, path, addedAt)" } },
			async run({ options }, io) {
				const { workspaces } = /** @type {{workspaces: Workspace[]}} */ (await ownerRequest(io.env, "GET", "/api/workspaces"));
				if (options.json) {
					const rows = workspaces.map((w) => ({ id: w.id, kind: w.kind, path: w.path, addedAt: w.addedAt }));
					io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
					return 0;
				}
				if (workspaces.length === 0) io.stdout.write("no workspaces (add one with svc-local workspace add <dir>)\n");
				for (const w of workspaces) io.stdout.write(`${w.id}  ${w.kind}  ${w.path}  added ${w.addedAt}\n`);
				return 0;
			},
		},
		remove: {
			summary: "forget a workspace (its folder is left alone)",
			args: ["<id>"],
			async run({ args: [id] }, io) {
				await ownerRequest(io.env, "DELETE", `/api/workspaces/${encodeURIComponent(id)}`);
				io.stdout.write(`removed workspace ${id}\n`);
				return 0;
			},
		},
	},
};

/** Exit code of `svc-local health` when a package needs attention. */
const NEEDS_ATTENTION = 4;

/** @type {Command} */
export const health = {
	summary: "scan the setup health of a workspace (all local ones without an argument)",
	args: ["[workspace]"],
	options: {
		force: { type: "boolean", description: "scan again now instead of answering the scan of the last hour" },
		json: { type: "boolean", description: "print the scan answers as a JSON array, each with its workspace's folder as path" },
	},
	details: `workspace: its id or its folder. Exits ${NEEDS_ATTENTION} when a package needs attention (a finding of severity error or warning), so that a script can stop on it; 1 when a workspace could not be scanned (the others are still printed).`,
	async run({ args: [which], options }, io) {
		const { workspaces } = /** @type {{workspaces: Workspace[]}} */ (await ownerRequest(io.env, "GET", "/api/workspaces"));
		const chosen = which === undefined ? workspaces.filter((w) => w.kind === "local") : [findWorkspace(workspaces, which)];
		if (chosen.length === 0) throw new CliError("no local workspace is registered: add one with svc-local workspace add <dir>");
		/** @type {{answer: HealthAnswer, workspace: Workspace}[]} */
		const scanned = [];
		let failed = false;
		for (const w of chosen) {
			const query = `workspaceId=${w.id}${options.force ? "&force=1" : ""}`;
			try {
				scanned.push({ answer: /** @type {HealthAnswer} */ (await ownerRequest(io.env, "GET", `/api/workspace/setup-health?${query}`)), workspace: w });
			} catch (err) {
				// One workspace that cannot be scanned (its folder gone...) does not hide the others'.
				if (which !== undefined || !(err instanceof CliError)) throw err;
				io.stderr.write(`svc-local: workspace ${w.id} (${w.path}) not scanned: ${err.message}\n`);
				failed = true;
			}
		}
		// Each answer names its workspace's folder too, so a script need not ask `workspace list`.
		if (options.json) io.stdout.write(`${JSON.stringify(scanned.map((s) => ({ path: s.workspace.path, ...s.answer })), null, 2)}\n`);
		else for (const { answer, workspace } of scanned) io.stdout.write(healthText(answer, workspace));
		if (failed) return 1;
		return scanned.some((s) => s.answer.packages.some((p) => p.needsAttention)) ? NEEDS_ATTENTION : 0;
	},
};

/** The answer of POST /api/workspace/setup-health/update-logger: what SetupHealth.updateLogger returns. @typedef {Awaited<ReturnType<import("./setupHealth.js").SetupHealth["updateLogger"]>>} UpdateOutcome */

/** @type {Command} */
export const updateLogger = {
	summary: `update ${LOGGER_PACKAGE} to its latest version in one package of a workspace, with the package's own package manager`,
	args: ["<workspace>", "<package>"],
	details:
		"workspace: its id or its folder. package: the package's folder as svc-local health lists it (relative to the workspace, . for its\n" +
		"root), or an absolute path in the workspace; its package.json must list the logger. What svc-local health advises as the Update\n" +
		"button of the pairing page: the server runs the install (at most 5 minutes) and forgets its last scan of the workspace.\n" +
		"Exits 1, with the end of the package manager's output, when the install fails or runs out of time.",
	async run({ args: [which, packageDir] }, io) {
		const { workspaces } = /** @type {{workspaces: Workspace[]}} */ (await ownerRequest(io.env, "GET", "/api/workspaces"));
		const w = findWorkspace(workspaces, which);
		io.stdout.write(`updating ${LOGGER_PACKAGE} in ${packageDir} of ${w.path}...\n`);
		const r = /** @type {UpdateOutcome} */ (await ownerRequest(io.env, "POST", "/api/workspace/setup-health/update-logger", { workspaceId: w.id, packageDir }));
		const took = `${(r.durationMs / 1000).toFixed(1)} s`;
		if (r.ok) {
			io.stdout.write(`updated with ${r.command} (${r.packageManager}, ${took}); svc-local health ${w.id} shows the new scan\n`);
			return 0;
		}
		const why = r.timedOut ? `ran out of time after ${took} and was stopped` : `failed with exit code ${r.exitCode} after ${took}`;
		io.stderr.write(`svc-local: ${r.command} ${why}; its output ends:\n${r.outputTail.replace(/\n?$/, "\n")}`);
		return 1;
	},
};

/**
 * A registered workspace by its id or its folder.
 * @param {Workspace[]} workspaces @param {string} which
 */
function findWorkspace(workspaces, which) {
	const byId = workspaces.find((w) => w.id === which);
	if (byId) return byId;
	/** @type {string} */
	let real;
	try {
		real = fs.realpathSync(path.resolve(which));
	} catch {
		real = path.resolve(which);
	}
	const byPath = workspaces.find((w) => w.path === real || w.path === which);
	if (!byPath) throw new CliError(`no workspace is registered with id or folder ${which} (svc-local workspace list shows them; svc-local workspace add <dir> adds one)`);
	return byPath;
}

