/**
 * A real HTTP server standing in for the ingest endpoint: it records every request and answers
 * as the test says (200 by default; a status with headers; or no answer until released).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { LogEvent } from "../src/event";

interface Received {
	path: string;
	headers: IncomingHttpHeaders;
	/** Characters of the JSON body. */
	chars: number;
	event: LogEvent;
}

export type Answer = { status: number; headers?: Record<string, string> } | "hold";

export async function startRecorder() {
	const received: Received[] = [];
	const held: ServerResponse[] = [];
	let answer: Answer = { status: 200 };
	const server = createServer((req, res) => {
		let body = "";
		req.setEncoding("utf8");
		req.on("data", (chunk) => (body += chunk));
		req.on("end", () => {
			received.push({ path: req.url ?? "", headers: req.headers, chars: body.length, event: JSON.parse(body) });
			if (answer === "hold") held.push(res);
			else respond(res, answer);
		});
	});
	const respond = (res: ServerResponse, { status, headers = {} }: Exclude<Answer, "hold">) => {
		res.writeHead(status, { "content-type": "application/json", ...headers });
		res.end(status === 200 ? '{"ok":true,"group_hash":"0123456789abcdef0123456789abcdef","is_new":true}' : '{"error":"no"}');
	};
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		received,
		answerWith(next: Answer) {
			answer = next;
		},
		/** Answers every held request with 200. */
		release() {
			for (const res of held.splice(0)) respond(res, { status: 200 });
		},
		/** Waits (up to 10 s) until `count` requests have arrived; answers what has arrived. */
		async until(count: number) {
			for (let i = 0; i < 500 && received.length < count; i++) await new Promise((resolve) => setTimeout(resolve, 20));
			return received;
		},
		close() {
			this.release();
			server.closeAllConnections();
			return new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

export type Recorder = Awaited<ReturnType<typeof startRecorder>>;
