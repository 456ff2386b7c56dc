// What a `svc-local` command is: its declared arguments and options (cli.js
// parses them and prints its --help), how it runs, and how it fails in one line.

/**
 * @typedef {object} Io
 * @property {NodeJS.ProcessEnv} env
 * @property {NodeJS.WritableStream & {isTTY?: boolean}} stdout
 * @property {NodeJS.WritableStream} stderr
 * @property {NodeJS.ReadableStream & {isTTY?: boolean, setRawMode?: (mode: boolean) => void}} stdin
 */

/**
 * @typedef {object} OptionSpec
 * @property {"string" | "boolean"} type
 * @property {string} [short] one letter, as -x
 * @property {string} [value] what a string option takes, for the help
 * @property {string} description
 */

/** @typedef {Record<string, string | boolean | undefined>} OptionValues */

/**
 * @typedef {object} Command
 * @property {string} summary one line, for the list of commands and the command's help
 * @property {string[]} [args] positional arguments: "<name>" required, "[name]" optional
 * @property {Record<string, OptionSpec>} [options]
 * @property {string} [details] more text for the command's help
 * @property {(input: {args: string[], options: OptionValues}, io: Io) => Promise<number>} run
 */

/**
 * Commands under one name: `svc-local workspace add <dir>`.
 * @typedef {object} CommandGroup
 * @property {string} summary
 * @property {Record<string, Command>} subcommands
 */

/** A failure to report in one line (exit 1). */
export class CliError extends Error {}

/** Wrong use of the command line, an option's value included (exit 2, with a pointer to --help). */
export class UsageError extends Error {
	/** @param {string} message @param {string} helpCommand what to run for help */
	constructor(message, helpCommand) {
		super(message);
		this.helpCommand = helpCommand;
	}
}

/** @param {string | boolean | undefined} value */
export function stringOption(value) {
	return typeof value === "string" ? value : undefined;
}
