// The pairing page: QR code refreshed 10 s before it expires (src/refresh.js), the
// devices list (every 10 s and on focus/visibility), revoke buttons, the LAN
// toggle, and the workspaces' setup health (workspaces.js). The owner token is
// typed once and kept in sessionStorage for this tab only; it never goes into a URL.
import { nextRefreshDelay } from "/refresh.js";
import { clearWorkspaces, loadWorkspaces, setUpWorkspaces } from "/workspaces.js";

const TOKEN_KEY = "svc-local-owner-token";
const DEVICES_REFRESH_MS = 10_000;

/** @param {string} id @returns {any} */
const $ = (id) => document.getElementById(id);

let codeTimer = 0;
let devicesTimer = 0;
/** The latest pairing the devices list has shown (its ISO time); null before the first list. */
let latestPairing = null;
let signedIn = false;
/** Server clock minus this page's clock, from the Date header (the page may run on another computer). */
let skewMs = 0;

class Unauthorized extends Error {}
/** No answer at all: the server is stopped, or this computer cannot reach it. */
class Unreachable extends Error {}

/**
 * Calls the local server's API with the owner bearer.
 * @param {string} method @param {string} path @param {unknown} [body]
 */
async function api(method, path, body) {
	const token = sessionStorage.getItem(TOKEN_KEY);
	const headers = { authorization: `Bearer ${token}` };
	if (body !== undefined) headers["content-type"] = "application/json";
	/** @type {Response} */
	let res;
	try {
		res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store" });
	} catch {
		throw new Unreachable(`svc-local is not reachable at ${location.origin}: it has stopped, or this computer cannot reach it. This page tries again every few seconds and carries on once it answers.`);
	}
	$("server-down").textContent = "";
	const date = Date.parse(res.headers.get("date") ?? "");
	if (Number.isFinite(date)) skewMs = date + 500 - Date.now(); // Date has whole seconds: take the middle
	const data = await res.json().catch(() => ({}));
	if (res.status === 401) throw new Unauthorized(data.error || "not signed in");
	if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
	return data;
}

/** @param {unknown} err @param {string} where */
function fail(err, where) {
	if (err instanceof Unauthorized) return signOut(`Signed out: ${err.message}`);
	if (err instanceof Unreachable) return serverDown(err.message);
	$(where).textContent = err instanceof Error ? err.message : String(err);
}

/**
 * The server does not answer: its code is not shown (nobody could pair with it), and the page
 * says so in place of the browser's own words; the next code made shows again.
 * @param {string} message
 */
function serverDown(message) {
	$("server-down").textContent = message;
	hideCode();
}

/** No trace of the shown code: image, payload, connect command, expiry. */
function hideCode() {
	$("qr").removeAttribute("src");
	$("qr").hidden = true;
	delete $("qr").dataset.payload;
	delete $("qr").dataset.expiresAt;
	$("connect-command").textContent = "";
	$("expires").textContent = "";
}

/** @param {string | null} iso */
function when(iso) {
	if (!iso) return "never";
	const t = Date.parse(iso);
	const s = Math.round((Date.now() - t) / 1000);
	if (s < 5) return "just now";
	if (s < 60) return `${s} s ago`;
	if (s < 3600) return `${Math.floor(s / 60)} min ago`;
	return new Date(t).toLocaleString();
}

async function newCode() {
	clearTimeout(codeTimer);
	const fetchedAt = Date.now();
	try {
		const b = await api("POST", "/api/pairing/bootstrap?qr=1");
		if (!signedIn) return; // signed out while it was made: not shown to whoever comes next
		$("qr").src = b.qr;
		$("qr").hidden = false;
		$("qr").dataset.expiresAt = b.expiresAt;
		$("qr").dataset.payload = JSON.stringify(b.payload);
		$("connect-command").textContent = `svc-local connect '${JSON.stringify(b.payload)}'`;
		const expiresAt = Date.parse(b.expiresAt) - skewMs; // on this page's clock
		$("expires").textContent = `Code expires at ${new Date(expiresAt).toLocaleTimeString()}`;
		$("code-error").textContent = "";
		// 10 s before expiry, never sooner than 5 s after this one.
		codeTimer = setTimeout(newCode, nextRefreshDelay(expiresAt, fetchedAt, Date.now()));
	} catch (err) {
		fail(err, "code-error");
		if (signedIn) codeTimer = setTimeout(newCode, 5000);
	}
}

/** @param {{deviceId: string, name: string, platform: string, remoteAddress: string | null, state: string, connecting?: boolean, lastSeen: string | null, pairedAt: string}} d */
function deviceRow(d) {
	const tr = document.createElement("tr");
	tr.dataset.deviceId = d.deviceId;
	// Connected, but it has not said hello (named itself) yet: not shown as Online before it does.
	const state = d.connecting ? "Connecting" : d.state;
	const cells = [d.name, d.platform, d.remoteAddress ?? "", state, when(d.lastSeen), new Date(d.pairedAt).toLocaleString()];
	cells.forEach((text, i) => {
		const td = document.createElement("td");
		td.textContent = text; // device names come from devices: never HTML
		if (i === 0) {
			// Devices may share a name ("Unnamed device"): the ID tells them apart, and is what svc-local revoke takes.
			const id = document.createElement("div");
			id.className = "hint device-id";
			id.textContent = `ID ${d.deviceId}`;
			td.append(id);
		}
		if (i === 3) td.className = `state state-${state}`;
		if (i === 3 && d.connecting) td.title = "connected, but it has not said hello yet";
		tr.append(td);
	});
	const td = document.createElement("td");
	const button = document.createElement("button");
	button.type = "button";
	button.className = "danger revoke";
	button.textContent = "Revoke";
	button.addEventListener("click", async () => {
		if (!confirm(`Revoke ${d.name}? It can come back only by pairing with a new code.`)) return;
		button.disabled = true;
		try {
			await api("DELETE", `/api/pairing/devices/${encodeURIComponent(d.deviceId)}`);
		} catch (err) {
			fail(err, "devices-error");
		}
		await loadDevices();
	});
	td.append(button);
	tr.append(td);
	return tr;
}

async function loadDevices() {
	clearTimeout(devicesTimer);
	try {
		const { devices } = await api("GET", "/api/pairing/devices");
		if (!signedIn) return;
		$("devices").querySelector("tbody").replaceChildren(...devices.map(deviceRow));
		$("devices").hidden = devices.length === 0;
		$("devices-empty").hidden = devices.length > 0;
		$("devices-error").textContent = "";
		// A device paired since the last list may have used the code on screen, which works once:
		// the next one to scan it would be refused.
		const latest = devices[0]?.pairedAt ?? ""; // the list comes newest paired first
		if (latestPairing !== null && latest > latestPairing) void newCode();
		if (latestPairing === null || latest > latestPairing) latestPairing = latest;
	} catch (err) {
		fail(err, "devices-error");
	}
	if (signedIn) devicesTimer = setTimeout(loadDevices, DEVICES_REFRESH_MS);
}

/** @param {any} info the answer of GET /api/pairing/server */
function showServer(info) {
	$("lan").checked = info.lan.enabled;
	$("lan").disabled = info.lan.managed;
	$("lan-note").textContent = info.lan.managed
		? "Set by SVC_SERVER_HOST / SVC_ALLOW_LAN in svc-local's environment."
		: info.lan.enabled
			? `Listening on all interfaces (${info.host}:${info.port}). LAN traffic is not encrypted.`
			: `Listening on this computer only (${info.host}:${info.port}).`;
	$("endpoints").replaceChildren(
		...info.endpoints.map((e) => {
			const li = document.createElement("li");
			li.textContent = `${e.url} (${e.kind})`;
			return li;
		}),
	);
}

async function loadServer() {
	showServer(await api("GET", "/api/pairing/server"));
}

async function toggleLan() {
	const enabled = $("lan").checked;
	$("lan").disabled = true;
	$("lan-error").textContent = "";
	try {
		const info = await api("PUT", "/api/pairing/lan", { enabled });
		showServer(info);
		if (String(info.port) !== location.port) {
			// The old port could not be taken again: follow the server.
			location.href = `http://127.0.0.1:${info.port}/`;
			return;
		}
		await newCode(); // the endpoints in the code changed
	} catch (err) {
		fail(err, "lan-error");
		await loadServer().catch(() => {});
	}
}

async function enter() {
	try {
		await loadServer();
	} catch (err) {
		sessionStorage.removeItem(TOKEN_KEY);
		showLogin(err instanceof Error ? err.message : String(err));
		return;
	}
	signedIn = true;
	$("login").hidden = true;
	$("app").hidden = false;
	await Promise.all([newCode(), loadDevices(), loadWorkspaces()]);
}

/** @param {string} [message] */
function showLogin(message = "") {
	$("app").hidden = true;
	$("login").hidden = false;
	$("login-error").textContent = message;
	$("token").focus();
}

/** @param {string} [message] */
function signOut(message) {
	signedIn = false;
	clearTimeout(codeTimer);
	clearTimeout(devicesTimer);
	sessionStorage.removeItem(TOKEN_KEY);
	// The last code stays valid for up to 120 s: no copy of it (image, payload, connect
	// command) may stay in the hidden page, nor the devices, for whoever uses the tab next.
	hideCode();
	$("server-down").textContent = "";
	$("devices").querySelector("tbody").replaceChildren();
	latestPairing = null;
	clearWorkspaces();
	showLogin(message);
}

async function start() {
	const health = await fetch("/api/health", { cache: "no-store" }).then((r) => r.json()).catch(() => ({}));
	if (health.ownerMode === "cloud") {
		$("token-label").textContent = "svc session token";
		$("login-hint").textContent = "svc-local runs with your svc account (svc-local login): paste your svc session token (saved by svc-local login in cloud-session.json in its state directory).";
	}
	$("login-form").addEventListener("submit", (e) => {
		e.preventDefault();
		sessionStorage.setItem(TOKEN_KEY, $("token").value.trim());
		$("token").value = "";
		void enter();
	});
	$("new-code").addEventListener("click", () => void newCode());
	$("lan").addEventListener("change", () => void toggleLan());
	$("sign-out").addEventListener("click", () => signOut());
	setUpWorkspaces(api, fail);
	window.addEventListener("focus", () => signedIn && void loadDevices());
	document.addEventListener("visibilitychange", () => {
		if (signedIn && document.visibilityState === "visible") void loadDevices();
	});
	if (sessionStorage.getItem(TOKEN_KEY)) await enter();
	else showLogin();
}

void start();
