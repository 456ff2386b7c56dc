/**
 * What the SDK hooks into by itself: uncaught exceptions and unhandled rejections (Node's
 * process events, or the browser's `error` and `unhandledrejection`), console errors and
 * warnings as breadcrumbs, and page unload. No `node:` import, so one build serves both.
 */
import { type Breadcrumb, describeValue, type Level, type LogEvent, type RequestInfo } from "./event.js";
import { guarded } from "./guard.js";

type UncaughtListener = (error: unknown, origin?: string) => void;

/** The parts of Node's `process` used here, typed without @types/node. */
interface NodeProcess {
	versions: { node?: string };
	version: string;
	on(event: "uncaughtException", listener: UncaughtListener): unknown;
	off(event: "uncaughtException", listener: UncaughtListener): unknown;
	listeners(event: "uncaughtException"): unknown[];
	exit(code: number): void;
	stderr: { write(text: string): unknown };
	getBuiltinModule?(id: "node:util"): { inspect(value: unknown): string } | undefined;
}

const nodeProcess = (globalThis as { process?: NodeProcess }).process;
const isNode = typeof nodeProcess?.versions?.node === "string";
const isBrowser = !isNode && typeof addEventListener === "function";

export const runtime = {
	platform: (isNode ? "node" : "javascript") as LogEvent["platform"],
	contexts: isNode ? { runtime: { name: "node", version: nodeProcess?.version } } : undefined,
	/** In a page: its address and the browser's user agent, as the endpoint's `request` field. */
	request(): RequestInfo | undefined {
		if (!isBrowser || typeof location === "undefined") return undefined;
		return { url: location.href, headers: { "User-Agent": navigator.userAgent } };
	},
};

export interface Hooks {
	captureUncaught: boolean;
	consoleBreadcrumbs: boolean;
	shutdownTimeoutMs: number;
	capture(error: unknown, mechanism: string, level: Level): void;
	addBreadcrumb(breadcrumb: Breadcrumb): void;
	flush(timeoutMs: number): Promise<boolean>;
	drain(): void;
}

/** Installs the hooks; answers the function that removes them. */
export function installIntegrations(hooks: Hooks): () => void {
	const removers: Array<() => void> = [];
	if (hooks.consoleBreadcrumbs) removers.push(consoleBreadcrumbs(hooks));
	if (hooks.captureUncaught && isNode) removers.push(nodeUncaught(hooks));
	if (isBrowser) {
		const listen = <K extends keyof WindowEventMap>(type: K, listener: (event: WindowEventMap[K]) => void) => {
			addEventListener(type, listener);
			removers.push(() => removeEventListener(type, listener));
		};
		if (hooks.captureUncaught) {
			listen("error", (event) =>
				hooks.capture(
					// Without `error` (a cross-origin script's "Script error."), what the event says.
					event.error ?? { name: "Error", message: event.message, stack: event.filename ? `    at ${event.filename}:${event.lineno}:${event.colno}` : "" },
					"onerror",
					"error",
				),
			);
			listen("unhandledrejection", (event) => hooks.capture(event.reason, "onunhandledrejection", "error"));
		}
		// Leaving the page: whatever waits goes out now (fetch with keepalive; sendBeacon cannot
		// carry the x-svc-key header the endpoint reads the key from).
		listen("pagehide", hooks.drain);
	}
	return () => {
		for (const remove of removers) remove();
	};
}

function consoleBreadcrumbs(hooks: Hooks): () => void {
	const levels = { error: "error", warn: "warning" } as const;
	const restores = (["error", "warn"] as const).map((method) => {
		const original = console[method];
		const wrapper = function (this: Console, ...args: unknown[]) {
			guarded(() =>
				hooks.addBreadcrumb({
					category: "console",
					level: levels[method],
					message: args.map((arg) => (arg instanceof Error ? `${arg.name}: ${arg.message}` : describeValue(arg))).join(" "),
				}),
			);
			return original.apply(this, args);
		};
		console[method] = wrapper;
		// Unless someone wrapped it again since: then theirs stays, and ours passes calls through.
		return () => {
			if (console[method] === wrapper) console[method] = original;
		};
	});
	return () => {
		for (const restore of restores) restore();
	};
}

/**
 * Node crashes on an uncaught exception (and, by default, on an unhandled rejection) when nothing
 * listens for `uncaughtException`. Listening would stop that, so when this is the only listener
 * it reports, waits up to `shutdownTimeoutMs` for the send, prints the error and exits with
 * code 1, as Node would; with the application's own listener there too, Node's rule is that the
 * process lives on, and it does.
 */
function nodeUncaught(hooks: Hooks): () => void {
	const process = nodeProcess;
	if (!process) return () => {};
	let crashing = false;
	const onUncaught: UncaughtListener = (error, origin) => {
		hooks.capture(error, origin === "unhandledRejection" ? "onunhandledrejection" : "onuncaughtexception", "fatal");
		if (crashing || process.listeners("uncaughtException").some((listener) => listener !== onUncaught)) return;
		crashing = true;
		hooks.flush(hooks.shutdownTimeoutMs).then(() => {
			const printed = guarded(() => {
				const inspect = process.getBuiltinModule?.("node:util")?.inspect;
				return inspect ? inspect(error) : String((error as Error)?.stack ?? error);
			});
			process.stderr.write(`${printed ?? "Uncaught exception"}\n\nNode.js ${process.version}\n`);
			process.exit(1);
		});
	};
	process.on("uncaughtException", onUncaught);
	return () => process.off("uncaughtException", onUncaught);
}
