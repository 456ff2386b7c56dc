// Every `svc-local` command; each one declares its arguments and options
// (commandSpec.js) and lives in the module of its surface.
import { login, logout } from "./accountCommands.js";
import { connect } from "./connectCommand.js";
import { devices, pair, revoke } from "./pairingCommands.js";
import { start } from "./startCommand.js";
import { health, updateLogger, workspace } from "./workspaceCommands.js";

/** @typedef {import("./commandSpec.js").Command} Command */
/** @typedef {import("./commandSpec.js").CommandGroup} CommandGroup */

/** Every command, in the order the help lists them. @type {Record<string, Command | CommandGroup>} */
export const COMMANDS = { start, pair, devices, revoke, login, logout, connect, workspace, health, "update-logger": updateLogger };
