// QR renderings of a pairing payload: terminal text for the CLI, an SVG data
// URL for the pairing page. The payload is JSON text (README.md, "The QR payload").
import QRCode from "qrcode";

/** @param {object} payload */
export function payloadText(payload) {
	return JSON.stringify(payload);
}

/**
 * On a terminal, colours keep the code light on dark and light themes alike; written to a file or
 * a pipe (a service's log), it is the same blocks as plain text, with no escape codes.
 * @param {object} payload @param {boolean} toTerminal @returns {Promise<string>}
 */
export function terminalQr(payload, toTerminal) {
	const text = payloadText(payload);
	return toTerminal ? QRCode.toString(text, { type: "terminal", small: true, errorCorrectionLevel: "M" }) : QRCode.toString(text, { type: "utf8", errorCorrectionLevel: "M" });
}

/** @param {object} payload @returns {Promise<string>} data:image/svg+xml URL */
export async function svgDataUrl(payload) {
	const svg = await QRCode.toString(payloadText(payload), { type: "svg", errorCorrectionLevel: "M", margin: 2 });
	return `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;
}
