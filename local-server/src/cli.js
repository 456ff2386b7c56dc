// The `svc-local` command line: `svc-local [command] [arguments] [options]`.
// Arguments are parsed by node:util parseArgs in strict mode against what
// the command declares (commandSpec.js): an unknown option, a missing or extra
// argument, or an unknown command is an error that names it and points at
// --help (exit 2). `main` takes argv and streams, so tests run it as a real
// process or in-process.
import fs from "node:fs";
import { parseArgs } from "node:util";
import { UsageError } from "./commandSpec.js";
import { COMMANDS } from "./commands.js";
import { isObject } from "./json.js";
import { PromptCancelled } from "./prompt.js";
import { start } from "./startCommand.js";

/** @typedef {import("./commandSpec.js").Io} Io */
/** @typedef {import("./commandSpec.js").Command} Command */
/** @typedef {import("./commandSpec.js").CommandGroup} CommandGroup */
/** @typedef {import("./commandSpec.js").OptionSpec} OptionSpec */

/** Options every command takes. @type {Record<string, OptionSpec>} */
const COMMON_OPTIONS = {
	help: { type: "boolean", short: "h", description: "show this help and exit" },
	version: { type: "boolean", short: "v", description: "print the version of svc-local and exit" },
};

/** The options of start, which `svc-local` alone runs. */
const START_OPTIONS = Object.keys(start.options ?? {}).map((name) => `--${name}`);

function version() {
	const pkg = /** @type {unknown} */ (JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")));
	return isObject(pkg) && typeof pkg.version === "string" ? pkg.version : "unknown";
}

/** @param {Record<string, OptionSpec>} options */
function optionLines(options) {
	const rows = Object.entries(options).map(([name, o]) => [`${o.short ? `-${o.short}, ` : "    "}--${name}${o.value ? ` <${o.value}>` : ""}`, o.description]);
	const width = Math.max(...rows.map(([left]) => left.length));
	return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`).join("\n");
}

/** @param {string} name @param {Command} command */
function usageLine(name, command) {
	return ["svc-local", name, ...(command.args ?? [])].join(" ");
}

/** @param {string} name @param {Command} command */
function commandHelp(name, command) {
	const parts = [`Usage: ${usageLine(name, command)} [options]`, "", `${command.summary[0].toUpperCase()}${command.summary.slice(1)}.`];
	if (command.details) parts.push("", command.details);
	parts.push("", "Options:", optionLines({ ...command.options, ...COMMON_OPTIONS }));
	return `${parts.join("\n")}\n`;
}

/**
 * Each command with its full name ("workspace add" for one of a group), in the order of the table.
 * @param {Record<string, Command | CommandGroup>} commands @param {string} [prefix]
 * @returns {[string, Command][]}
 */
function leafCommands(commands, prefix = "") {
	return Object.entries(commands).flatMap(([name, command]) =>
		"subcommands" in command ? leafCommands(command.subcommands, `${prefix}${name} `) : [/** @type {[string, Command]} */ ([`${prefix}${name}`, command])],
	);
}

/** @param {[string, Command][]} commands */
function commandList(commands) {
	const usages = commands.map(([name, command]) => [usageLine(name, command), command.summary]);
	const width = Math.max(...usages.map(([usage]) => usage.length));
	return usages.map(([usage, summary]) => `  ${usage.padEnd(width)}  ${summary}`).join("\n");
}

/** @param {string} name @param {CommandGroup} group */
function groupHelp(name, group) {
	return `Usage: svc-local ${name} <command> [arguments] [options]

${group.summary[0].toUpperCase()}${group.summary.slice(1)}.

Commands:
${commandList(leafCommands(group.subcommands, `${name} `))}

Run \`svc-local ${name} <command> --help\` for a command's options.

Options:
${optionLines(COMMON_OPTIONS)}
`;
}

function globalHelp() {
	return `svc-local ${version()}: the svc desktop local server (QR pairing and live device connections)

Usage: svc-local [command] [arguments] [options]

Commands (\`svc-local\` alone runs start):
${commandList(leafCommands(COMMANDS))}

Run \`svc-local <command> --help\` for a command's options.

Options:
${optionLines(COMMON_OPTIONS)}

Environment: SVC_HOME (state directory, default ~/.svc), SVC_MODE (production | isolated | preview),
SVC_PORT, SVC_SERVER_HOST, SVC_ALLOW_LAN, SVC_OWNER_TOKEN, SVC_SESSION_TOKEN, SVC_PASSWORD, SVC_NPM_REGISTRY.
`;
}

/**
 * parseArgs in strict mode; what it refuses is a usage error of `where`.
 * @param {string[]} argv @param {Record<string, OptionSpec>} options @param {string} where e.g. "svc-local pair"
 * @returns {{options: import("./commandSpec.js").OptionValues, args: string[]}}
 */
function strictParse(argv, options, where) {
	try {
		const { values, positionals } = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
		return { options: values, args: positionals };
	} catch (err) {
		throw new UsageError(parseErrorMessage(err, where), where);
	}
}

/**
 * Parses one command's arguments.
 * @param {string} name @param {Command} command @param {string[]} argv
 */
function parseCommandArgs(name, command, argv) {
	const { options, args } = strictParse(argv, { ...command.options, ...COMMON_OPTIONS }, `svc-local ${name}`);
	if (options.help || options.version) return { options, args: [] };
	const declared = command.args ?? [];
	const required = declared.filter((a) => a.startsWith("<")).length;
	if (args.length > declared.length) throw new UsageError(`unexpected argument ${JSON.stringify(args[declared.length])} for svc-local ${name}`, `svc-local ${name}`);
	if (args.length < required) throw new UsageError(`missing argument ${declared[args.length]} for svc-local ${name}`, `svc-local ${name}`);
	return { options, args };
}

/**
 * parseArgs' message for a refused argument, shortened to the point.
 * @param {unknown} err @param {string} where
 */
function parseErrorMessage(err, where) {
	const code = isObject(err) ? err.code : undefined;
	const message = err instanceof Error ? err.message : String(err);
	const option = /'(-[^' ]*)/.exec(message)?.[1];
	if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option) return `unknown option ${option} for ${where}`;
	// `--port -1`: parseArgs takes the value for an option of its own and says so at length.
	const valued = /^Option '(--[\w-]+)[^']*' argument is ambiguous/.exec(message)?.[1];
	if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && valued) return `${valued} needs a value; one that starts with "-" is written ${valued}=<value>`;
	return message;
}

/**
 * Runs one command line; answers the exit code.
 * @param {string[]} argv the arguments after the program name
 * @param {Io} io
 */
export async function main(argv, io) {
	try {
		const [first, ...rest] = argv;
		// `svc-local` alone runs start, and so do start's own options alone: `svc-local --no-clear --port 8790`.
		if (first === undefined || START_OPTIONS.some((o) => first === o || first.startsWith(`${o}=`))) return await runCommand("start", argv, io);
		if (first.startsWith("-")) {
			// The common options before any command: `svc-local --help [command]`, `svc-local --version`.
			const { options, args } = strictParse(argv, COMMON_OPTIONS, "svc-local");
			if (options.help && args.length > 0) return await runCommand(args[0], ["--help"], io);
			if (options.help) io.stdout.write(globalHelp());
			else if (options.version) io.stdout.write(`${version()}\n`);
			else throw new UsageError(`the command comes first, then its arguments: svc-local <command> ${argv.join(" ")}`, "svc-local");
			return 0;
		}
		if (first === "help") {
			if (rest.length === 0) {
				io.stdout.write(globalHelp());
				return 0;
			}
			return await runCommand(rest[0], ["--help", ...rest.slice(1)], io);
		}
		return await runCommand(first, rest, io);
	} catch (err) {
		// The terminal's raw mode turns Ctrl-C into a key: end as SIGINT would have, and say nothing more.
		if (err instanceof PromptCancelled) return 130;
		if (err instanceof UsageError) {
			io.stderr.write(`svc-local: ${err.message}\nRun \`${err.helpCommand} --help\` for usage.\n`);
			return 2;
		}
		io.stderr.write(`svc-local: ${err instanceof Error ? err.message : String(err)}\n`);
		return 1;
	}
}

/**
 * @param {string} name @param {string[]} argv @param {Io} io
 * @returns {Promise<number>}
 */
async function runCommand(name, argv, io) {
	const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
	if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}`, "svc-local");
	return "subcommands" in command ? runGroup(name, command, argv, io) : runLeaf(name, command, argv, io);
}

/**
 * A command of a group: its first argument that is not an option names it.
 * @param {string} name @param {CommandGroup} group @param {string[]} argv @param {Io} io
 * @returns {Promise<number>}
 */
async function runGroup(name, group, argv, io) {
	const at = argv.findIndex((a) => !a.startsWith("-"));
	if (at !== -1) {
		const sub = argv[at];
		const command = Object.hasOwn(group.subcommands, sub) ? group.subcommands[sub] : undefined;
		if (!command || "subcommands" in command) throw new UsageError(`unknown command ${JSON.stringify(`${name} ${sub}`)}`, `svc-local ${name}`);
		return runLeaf(`${name} ${sub}`, command, [...argv.slice(0, at), ...argv.slice(at + 1)], io);
	}
	const { options } = strictParse(argv, COMMON_OPTIONS, `svc-local ${name}`);
	if (options.help) io.stdout.write(groupHelp(name, group));
	else if (options.version) io.stdout.write(`${version()}\n`);
	else throw new UsageError(`missing command for svc-local ${name}: one of ${Object.keys(group.subcommands).join(", ")}`, `svc-local ${name}`);
	return 0;
}

/**
 * @param {string} name @param {Command} command @param {string[]} argv @param {Io} io
 * @returns {Promise<number>}
 */
async function runLeaf(name, command, argv, io) {
	const { options, args } = parseCommandArgs(name, command, argv);
	if (options.help) {
		io.stdout.write(commandHelp(name, command));
		return 0;
	}
	if (options.version) {
		io.stdout.write(`${version()}\n`);
		return 0;
	}
	return command.run({ args, options }, io);
}
