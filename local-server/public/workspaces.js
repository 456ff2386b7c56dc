// The Workspaces section of the pairing page: the registered workspaces
// (add, remove), the setup-health scan of one as a table with each finding's
// action, a button to scan again, and per package an Update button for the
// logger that shows the outcome. Everything from the scan is shown as text.

/** @param {string} id @returns {any} */
const $ = (id) => document.getElementById(id);

/** A finding about the registry, not the package: each package that lists the logger has it. */
const REGISTRY_UNREACHABLE = "registry_unreachable";

/** @type {(method: string, path: string, body?: unknown) => Promise<any>} */
let api;
/** @type {(err: unknown, where: string) => void} */
let fail;
/** The workspace whose scan is shown. @type {any} */
let shown = null;
/** Outcome of the last update per package dir of the shown workspace. @type {Map<string, any>} */
const outcomes = new Map();

/** @param {string} tag @param {string} [text] @param {string} [className] */
function el(tag, text, className) {
	const node = document.createElement(tag);
	if (text !== undefined) node.textContent = text;
	if (className) node.className = className;
	return node;
}

/** @param {string} text @param {string} className @param {() => void} onClick */
function button(text, className, onClick) {
	const b = el("button", text, className);
	b.type = "button";
	b.addEventListener("click", onClick);
	return b;
}

export async function loadWorkspaces() {
	try {
		const { workspaces } = await api("GET", "/api/workspaces");
		$("workspaces").querySelector("tbody").replaceChildren(...workspaces.map(workspaceRow));
		$("workspaces").hidden = workspaces.length === 0;
		$("workspaces-empty").hidden = workspaces.length > 0;
		$("workspaces-error").textContent = "";
		if (shown && !workspaces.some((w) => w.id === shown.id)) hideHealth();
	} catch (err) {
		fail(err, "workspaces-error");
	}
}

/** @param {any} w */
function workspaceRow(w) {
	const tr = el("tr");
	tr.dataset.workspaceId = w.id;
	tr.append(el("td", w.path), el("td", w.kind === "ssh" ? "SSH (not scanned)" : "local"), el("td", new Date(w.addedAt).toLocaleString()));
	const actions = el("td");
	if (w.kind === "local") actions.append(button("Scan", "scan", () => void scan(w, false)), " ");
	actions.append(
		button("Remove", "danger remove", async () => {
			if (!confirm(`Remove the workspace ${w.path}? Its folder is left alone.`)) return;
			try {
				await api("DELETE", `/api/workspaces/${encodeURIComponent(w.id)}`);
			} catch (err) {
				return fail(err, "workspaces-error");
			}
			await loadWorkspaces();
		}),
	);
	tr.append(actions);
	return tr;
}

async function addWorkspace() {
	const path = $("workspace-path").value.trim();
	$("workspaces-error").textContent = "";
	try {
		await api("POST", "/api/workspaces", { path });
	} catch (err) {
		return fail(err, "workspaces-error");
	}
	$("workspace-path").value = "";
	await loadWorkspaces();
}

/** @param {any} w @param {boolean} force */
async function scan(w, force) {
	if (shown?.id !== w.id) outcomes.clear();
	shown = w;
	$("health").hidden = false;
	$("health-workspace").textContent = w.path;
	$("health-status").textContent = "Scanning…";
	$("health-error").textContent = "";
	$("rescan").disabled = true;
	try {
		showScan(await api("GET", `/api/workspace/setup-health?workspaceId=${encodeURIComponent(w.id)}${force ? "&force=1" : ""}`));
	} catch (err) {
		$("health-status").textContent = "";
		$("health-packages").hidden = true;
		fail(err, "health-error");
	}
	$("rescan").disabled = false;
}

/** @param {any} r the scan answer */
function showScan(r) {
	const attention = r.packages.filter((p) => p.needsAttention).length;
	const summary = attention === 0 ? "Every package is set up." : `${attention} of ${r.packages.length} packages need attention.`;
	$("health-status").textContent = `${summary} Scanned ${new Date(r.scannedAt).toLocaleString()}${r.cached ? " (from the last hour's scan)" : ""}; access: ${r.access}.`;
	/** @param {{count: number, paths: string[]}} h */
	const paths = (h) => `${h.paths.join(", ")}${h.count > h.paths.length ? ` and ${h.count - h.paths.length} more` : ""}`;
	const unreadable = r.limits.unreadable;
	// The same for every package that lists the logger: said once above the table, not in each row.
	const registry = r.packages.flatMap((p) => p.findings).find((f) => f.code === REGISTRY_UNREACHABLE);
	$("health-limits").replaceChildren(
		...(registry ? [el("li", `${registry.message} ${registry.action}`, "registry")] : []),
		...r.limits.hit.map((h) => el("li", `Limit reached: ${h.message}: ${paths(h)}`)),
		...(unreadable?.count > 0 ? [el("li", `Could not be read (skipped): ${paths(unreadable)}`)] : []),
		...(r.limits.linksOut?.count > 0 ? [el("li", `Links out of the workspace (not followed): ${paths(r.limits.linksOut)}`)] : []),
	);
	$("health-packages").querySelector("tbody").replaceChildren(...r.packages.map(packageRow));
	$("health-packages").hidden = r.packages.length === 0;
	$("health-empty").hidden = r.packages.length > 0;
}

/** @param {any} p */
function packageRow(p) {
	const tr = el("tr", undefined, p.needsAttention ? "attention" : "");
	tr.dataset.packageDir = p.dir;
	const name = el("td");
	name.append(el("div", p.dir), el("div", p.name ?? "", "hint"));
	const { listed, installed, latest, configured } = p.logger;
	// A package.json that could not be read or parsed says nothing about the logger either way.
	const unread = p.findings.some((f) => f.code === "package_json_unreadable");
	const logger = listed ? `${installed ?? "not installed"} (latest ${latest ?? "unknown"})` : unread ? "unknown" : "not listed";
	const setup = el("td", undefined, "setup");
	if (configured.init) {
		setup.append(el("div", `init: ${configured.init}`), el("div", `key: ${configured.key ?? "none"}`), el("div", `endpoint: ${configured.endpoint ?? "none"}`));
	} else setup.textContent = "—";
	const findings = el("td");
	const list = el("ul", undefined, "findings");
	const own = p.findings.filter((f) => f.code !== REGISTRY_UNREACHABLE);
	for (const f of own) {
		const li = el("li", undefined, `finding ${f.severity}`);
		li.dataset.code = f.code;
		li.append(el("strong", `${f.severity}: `), el("span", f.message, "message"), el("div", f.action, "action"));
		list.append(li);
	}
	findings.append(own.length > 0 ? list : el("span", "none"));
	const update = el("td");
	if (listed) update.append(button("Update logger", "update", () => void updateLogger(p, update)));
	const outcome = outcomes.get(p.dir);
	if (outcome) update.append(outcomeView(outcome));
	tr.append(name, el("td", p.packageManager), el("td", logger), setup, findings, update);
	return tr;
}

/** @param {any} o the update answer, or {error} */
function outcomeView(o) {
	const box = el("div", undefined, `outcome ${o.ok ? "ok" : "failed"}`);
	if (o.error) {
		box.textContent = o.error;
		return box;
	}
	const how = o.timedOut ? "stopped: it took too long" : `exit code ${o.exitCode}`;
	box.append(el("div", `${o.ok ? "Updated" : "Update failed"} (${how}, ${Math.round(o.durationMs / 1000)} s): ${o.command}`));
	const details = el("details");
	details.append(el("summary", "Output"), el("pre", o.outputTail));
	box.append(details);
	return box;
}

/** @param {any} p @param {HTMLElement} cell */
async function updateLogger(p, cell) {
	const b = cell.querySelector("button");
	b.disabled = true;
	b.textContent = "Updating…";
	try {
		outcomes.set(p.dir, await api("POST", "/api/workspace/setup-health/update-logger", { workspaceId: shown.id, packageDir: p.dir }));
	} catch (err) {
		outcomes.set(p.dir, { ok: false, error: err instanceof Error ? err.message : String(err) });
		fail(err, "health-error");
	}
	// The update dropped the cached scan: this one shows the new state.
	await scan(shown, false);
}

function hideHealth() {
	shown = null;
	outcomes.clear();
	$("health").hidden = true;
}

/**
 * Wires the section to the page's API client and error display.
 * @param {typeof api} pageApi @param {typeof fail} pageFail
 */
export function setUpWorkspaces(pageApi, pageFail) {
	api = pageApi;
	fail = pageFail;
	$("workspace-form").addEventListener("submit", (/** @type {Event} */ e) => {
		e.preventDefault();
		void addWorkspace();
	});
	$("rescan").addEventListener("click", () => shown && void scan(shown, true));
}

/** Signed out: nothing of the last owner's workspaces stays on the page. */
export function clearWorkspaces() {
	hideHealth();
	$("workspaces").querySelector("tbody").replaceChildren();
}
