// Questions on the terminal. A hidden answer (a password) is read by a
// readline interface whose output is a stream that drops everything: on a
// terminal, readline turns echo off (raw mode) and would echo each key to its
// output itself, so nothing typed is shown.
import readline from "node:readline";
import { Writable } from "node:stream";

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
