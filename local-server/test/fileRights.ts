// Running svc-local without the right to open others' files, even as root
// (where file modes stop nothing): as root the process is started through
// setpriv without the capabilities that bypass file modes and ownership.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { tempDir } from "./helpers.js";

const DROP_FILE_RIGHTS = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"];
export const asRoot = process.getuid?.() === 0;

/** Whether a process started so is refused a file of mode 0 (setpriv present, and allowed to drop them here). */
function dropsFileRights(): boolean {
	const probe = path.join(tempDir("svc-unreadable-probe-"), "locked");
	fs.writeFileSync(probe, "x", { mode: 0 });
	return spawnSync(DROP_FILE_RIGHTS[0], [...DROP_FILE_RIGHTS.slice(1), "cat", probe]).status === 1;
}

/** Whether file modes can be made to count for the processes of `withoutFileRights`. */
export const canDrop = !asRoot || dropsFileRights();

/** The command and arguments that run `argv` (a program and its arguments) without those rights. */
export function withoutFileRights(argv: string[]): [string, string[]] {
	const [command, ...args] = asRoot ? [...DROP_FILE_RIGHTS, ...argv] : argv;
	return [command, args];
}
