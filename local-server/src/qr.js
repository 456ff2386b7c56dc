// QR renderings of a pairing payload: terminal text for the CLI, an SVG data
// URL for the pairing page. The payload is JSON text (README.md, "The QR payload").
import QRCode from "qrcode";

/** @param {object} payload */
export function payloadText(payload) {
	return JSON.stringify(payload);
}

/** @param {object} payload @returns {Promise<string>} */
export function terminalQr(payload) {
	return QRCode.toString(payloadText(payload), { type: "terminal", small: true, errorCorrectionLevel: "M" });
}

/** @param {object} payload @returns {Promise<string>} data:image/svg+xml URL */
export async function svgDataUrl(payload) {
	const svg = await QRCode.toString(payloadText(payload), { type: "svg", errorCorrectionLevel: "M", margin: 2 });
	return `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;
}
