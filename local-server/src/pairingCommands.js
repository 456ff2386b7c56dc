// The owner's pairing commands against the running server: a fresh code, the
// paired devices, revoking one.
import { ownerRequest } from "./ownerRequest.js";
import { payloadText, terminalQr } from "./qr.js";

/** @typedef {import("./commandSpec.js").Command} Command */
/** @typedef {import("./commandSpec.js").Io} Io */
/** @typedef {ReturnType<import("./server.js").LocalServer["createBootstrap"]>} Bootstrap */
/** @typedef {ReturnType<import("./pairing.js").PairingService["describe"]>} DeviceListing */

/** @param {Io} io @param {Bootstrap} b */
export async function printCode(io, b) {
	const qr = await terminalQr(b.payload, io.stdout.isTTY === true);
	const expires = new Date(b.expiresAt).toLocaleTimeString();
	io.stdout.write(`\nScan with the svc app to pair (code expires at ${expires}):\n${qr}\n`);
	io.stdout.write(`Or on another computer: svc-local connect '${payloadText(b.payload)}'\n`);
}

/** @type {Command} */
export const pair = {
	summary: "print a fresh pairing code from the running server",
	async run(_input, io) {
		const b = /** @type {Bootstrap} */ (await ownerRequest(io.env, "POST", "/api/pairing/bootstrap"));
		await printCode(io, b);
		return 0;
	},
};

/** @type {Command} */
export const devices = {
	summary: "list paired devices",
	options: { json: { type: "boolean", description: "print the devices as a JSON array (deviceId, name, platform, state, connecting, remoteAddress, lastSeen, pairedAt)" } },
	details:
		"A device connected that has not said hello (named itself) yet is shown Connecting (with --json: connecting true, state Online).\n" +
		"With --json, remoteAddress and lastSeen are null when unknown; times are ISO 8601.",
	async run({ options }, io) {
		const { devices } = /** @type {{devices: DeviceListing[]}} */ (await ownerRequest(io.env, "GET", "/api/pairing/devices"));
		if (options.json) {
			// The fields the text shows, named and ordered the same whatever the server adds later.
			const rows = devices.map((d) => ({
				deviceId: d.deviceId,
				name: d.name,
				platform: d.platform,
				state: d.state,
				connecting: d.connecting === true,
				remoteAddress: d.remoteAddress ?? null,
				lastSeen: d.lastSeen ?? null,
				pairedAt: d.pairedAt,
			}));
			io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
			return 0;
		}
		if (devices.length === 0) io.stdout.write("no paired devices\n");
		for (const d of devices) {
			io.stdout.write(`${d.deviceId}  ${d.name}  ${d.platform}  ${d.connecting ? "Connecting" : d.state}  ${d.remoteAddress ?? "-"}  last seen ${d.lastSeen ?? "-"}  paired ${d.pairedAt}\n`);
		}
		return 0;
	},
};

/** @type {Command} */
export const revoke = {
	summary: "revoke a paired device: its credential stops working and its connections end",
	args: ["<deviceId>"],
	async run({ args: [id] }, io) {
		await ownerRequest(io.env, "DELETE", `/api/pairing/devices/${encodeURIComponent(id)}`);
		io.stdout.write(`revoked ${id}\n`);
		return 0;
	},
};
