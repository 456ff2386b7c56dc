/**
 * A webhook receiver for the alert tests, as a chat service's incoming webhook is one: a Node HTTP
 * server on a free port that keeps every alert it is sent and answers as the test says.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedAlert {
	method: string;
	path: string;
	headers: IncomingHttpHeaders;
	/** The body as sent. */
	text: string;
	/** The body as JSON (every alert is). */
	body: any;
	/** When it arrived (ms). */
	at: number;
}

/** `answer` is told each alert and how many the same path has had, this one included. */
export async function startAlertReceiver(answer: (alert: ReceivedAlert, toThisPath: number, res: ServerResponse) => void) {
	const received: ReceivedAlert[] = [];
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on("data", (chunk) => chunks.push(chunk));
		req.on("end", () => {
			const text = Buffer.concat(chunks).toString("utf8");
			const alert = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, text, body: JSON.parse(text), at: Date.now() };
			received.push(alert);
			answer(alert, received.filter((r) => r.path === alert.path).length, res);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		received,
		/** The alerts sent to `path`, oldest first. */
		to: (path: string) => received.filter((r) => r.path === path),
		close: () => {
			// An answer still delayed would hold the server open.
			server.closeAllConnections();
			return new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
