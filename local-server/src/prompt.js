// Questions on the terminal. A hidden answer (a password) is read by a
// readline interface whose output is a stream that drops everything: on a
// terminal, readline turns echo off (raw mode) and would echo each key to its
// output itself, so nothing typed is shown.
import fs from "node:fs";
import readline from "node:readline";
import { Writable } from "node:stream";
import { CliError } from "./commandSpec.js";

/**
 * @typedef {object} PromptIo
 * @property {NodeJS.WritableStream} stdout
 * @property {NodeJS.ReadableStream & {isTTY?: boolean}} stdin
 */

/** Ctrl-C at a prompt: the answer was refused, and the command ends as an interrupt would. */
export class PromptCancelled extends Error {
	constructor() {
		super("cancelled");
	}
}

/**
 * Asks one question and answers the line typed, trimmed.
 * @param {PromptIo} io @param {string} question @param {{hidden?: boolean}} [o]
 * @returns {Promise<string>}
 */
export function prompt(io, question, { hidden = false } = {}) {
	const terminal = !!io.stdin.isTTY;
	const hide = hidden && terminal;
	const output = hide ? new Writable({ write: (/** @type {unknown} */ _chunk, _encoding, done) => done() }) : io.stdout;
	const rl = readline.createInterface({ input: io.stdin, output, terminal });
	return new Promise((resolve, reject) => {
		rl.on("SIGINT", () => {
			rl.close();
			io.stdout.write("\n");
			reject(new PromptCancelled());
		});
		if (hide) io.stdout.write(question);
		rl.question(hide ? "" : question, (answer) => {
			rl.close();
			if (hide) io.stdout.write("\n");
			resolve(answer.trim());
		});
	});
}

/**
 * A secret given by a file rather than on the command line (where `ps` shows it to every user of
 * the computer): the file's first line, or with `-` standard input's (asked for without echo on a
 * terminal).
 * @param {PromptIo} io @param {string} file @param {string} option the option's name, for the messages
 * @returns {Promise<string>}
 */
export async function readSecretFile(io, file, option) {
	/** @type {string} */
	let text;
	if (file === "-") text = await readStandardInput(io, "Session token: ");
	else {
		try {
			text = fs.readFileSync(file, "utf8");
		} catch (err) {
			const code = /** @type {NodeJS.ErrnoException} */ (err).code;
			throw new CliError(`cannot read ${option} ${file}: ${code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : /** @type {Error} */ (err).message}`);
		}
	}
	const secret = text.trim().split(/\r?\n/)[0].trim();
	if (!secret) throw new CliError(`${option} ${file === "-" ? "(standard input)" : file} holds no token`);
	return secret;
}

/**
 * The most of standard input read whole. What is piped there is a token, a pairing code or
 * `svc-local pair`'s whole output (a few kilobytes with its QR code); a stream piped by mistake
 * (a log, /dev/zero) is refused here rather than held in memory until it ends.
 */
export const STANDARD_INPUT_BYTES = 1024 * 1024;

/**
 * A secret from standard input: asked for without echo on a terminal, else all of it (a pipe, a
 * file), at most STANDARD_INPUT_BYTES.
 * @param {PromptIo} io @param {string} question what a terminal is asked
 * @returns {Promise<string>}
 */
export async function readStandardInput(io, question) {
	if (io.stdin.isTTY) return prompt(io, question, { hidden: true });
	/** @type {Buffer[]} */
	const chunks = [];
	let bytes = 0;
	for await (const chunk of io.stdin) {
		const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
		bytes += buffer.length;
		if (bytes > STANDARD_INPUT_BYTES) throw new CliError("standard input holds more than 1 MiB: pipe only the pairing code or the token (or svc-local pair's output)");
		chunks.push(buffer);
	}
	// Decoded once whole: a character split across two chunks stays whole.
	return Buffer.concat(chunks).toString("utf8");
}
