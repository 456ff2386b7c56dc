import { describe, it } from "vitest";
import { isInApp, parseStack, type StackFrame } from "../src/stack";

/**
 * Real `error.stack` strings. Chrome 147 and Node 24 were recorded here from one small app
 * (`assets/app.js`, below) and a Node service; Firefox and Safari are those engines' formats for
 * the same app, as they print them.
 *
 *   3  total() { return this.items.map((item) => item.price.amount)… }   (CartService)
 *   4  static async load() { await null; return new CartService(…).total(); }
 *   7  function onCheckout() { … new CartService(…).total(); … }
 *  10  onCheckout();
 *  12  eval("(function evaluated() { throw new Error('from eval') })()")
 *  13  new Function("a", "return a.b.c")({})
 *  17  button.addEventListener("click", function () { undefinedFunctionCall(); })
 */
const APP = "http://localhost:8080/assets/app.js";

const CHROME = {
	propertyOfNull: `TypeError: Cannot read properties of null (reading 'amount')
    at ${APP}:3:56
    at Array.map (<anonymous>)
    at CartService.total (${APP}:3:31)
    at onCheckout (${APP}:7:44)
    at ${APP}:10:1`,
	asyncMethod: `TypeError: Cannot read properties of null (reading 'amount')
    at ${APP}:3:56
    at Array.map (<anonymous>)
    at CartService.total (${APP}:3:31)
    at CartService.load (${APP}:4:79)`,
	eval: `Error: from eval
    at evaluated (eval at <anonymous> (${APP}:12:7), <anonymous>:1:31)
    at eval (eval at <anonymous> (${APP}:12:7), <anonymous>:1:56)
    at ${APP}:12:7`,
	newFunction: `TypeError: Cannot read properties of undefined (reading 'c')
    at eval (eval at <anonymous> (${APP}:13:7), <anonymous>:3:12)
    at ${APP}:13:40`,
	promiseAll: `RangeError: quantity out of range: -1
    at ${APP}:15:93
    at async Promise.all (index 0)
    at async saveOrder (${APP}:15:35)`,
	listener: `ReferenceError: undefinedFunctionCall is not defined
    at HTMLButtonElement.<anonymous> (${APP}:17:78)`,
	/** playwright's evaluate: eval'd code whose caller has no file at all */
	evalWithoutFile: `Error: boom @ here
    at outer (eval at evaluate (:370:30), <anonymous>:1:35)
    at UtilityScript.evaluate (<anonymous>:372:16)`,
};

const NODE = {
	commonJs: `RangeError: quantity out of range: -1
    at parseQuantity (/srv/api/server.cjs:2:63)
    at /srv/api/node_modules/order-lib/index.js:1:77
    at Array.map (<anonymous>)
    at validate (/srv/api/node_modules/order-lib/index.js:1:66)
    at handleRequest (/srv/api/server.cjs:3:38)
    at Object.<anonymous> (/srv/api/server.cjs:4:7)
    at Module._compile (node:internal/modules/cjs/loader:1929:14)
    at Object..js (node:internal/modules/cjs/loader:2060:10)
    at Module.load (node:internal/modules/cjs/loader:1651:32)
    at Module._load (node:internal/modules/cjs/loader:1443:12)`,
	timer: `TypeError: Cannot read properties of null (reading 'charge')
    at Timeout.retryPayment [as _onTimeout] (/srv/api/server.cjs:5:49)
    at listOnTimeout (node:internal/timers:685:17)
    at process.processTimers (node:internal/timers:618:7)`,
	esModule: `TypeError: cart is empty
    at Checkout.submit (file:///srv/api/main.mjs:1:42)
    at file:///srv/api/main.mjs:2:22
    at ModuleJob.run (node:internal/modules/esm/module_job:561:25)
    at async node:internal/modules/esm/loader:647:26
    at async asyncRunEntryPointWithESMLoader (node:internal/modules/run_main:101:5)`,
	executor: `TypeError: inside executor
    at /srv/api/server.cjs:8:27
    at new Promise (<anonymous>)
    at Object.<anonymous> (/srv/api/server.cjs:8:1)`,
	windows: `Error: disk full
    at writeReport (C:\\apps\\billing\\report.js:12:11)
    at file:///C:/apps/billing/main.mjs:3:1`,
};

const FIREFOX = {
	propertyOfNull: `total/<@${APP}:3:56
total@${APP}:3:31
onCheckout@${APP}:7:44
@${APP}:10:1
`,
	asyncMethod: `total/<@${APP}:3:56
total@${APP}:3:31
load@${APP}:4:79
async*@${APP}:11:13
`,
	eval: `evaluated@${APP} line 12 > eval:1:31
@${APP} line 12 > eval:1:56
@${APP}:12:7
`,
	newFunction: `anonymous@${APP} line 13 > Function:3:12
@${APP}:13:40
`,
	listener: `@${APP}:17:78
EventListener.handleEvent*@${APP}:17:34
`,
	noColumn: `submit@${APP}:40
`,
};

const SAFARI = {
	propertyOfNull: `@${APP}:3:56
map@[native code]
total@${APP}:3:31
onCheckout@${APP}:7:44
global code@${APP}:10:11`,
	asyncMethod: `@${APP}:3:56
map@[native code]
total@${APP}:3:31
@${APP}:4:79`,
	eval: `evaluated@
eval code@
eval@[native code]
global code@${APP}:12:11`,
	module: `submit@http://localhost:8080/assets/main.js:5:24
module code@http://localhost:8080/assets/main.js:9:7`,
	native: `[native code]
forEach@[native code]
render@${APP}:30:18`,
};

/** The frames as `function file:line:column in_app`, crash site last, for readable expectations. */
const summary = (frames: StackFrame[]) =>
	frames.map((f) => [f.function ?? "", `${f.filename ?? ""}:${f.lineno ?? ""}:${f.colno ?? ""}`, f.in_app ? "app" : "-"].join(" "));

describe("V8 stacks (Chrome, Edge, Node)", () => {
	it("reads function, file, line and column, oldest call first", ({ expect }) => {
		expect(summary(parseStack(CHROME.propertyOfNull))).toEqual([
			` ${APP}:10:1 app`,
			`onCheckout ${APP}:7:44 app`,
			`CartService.total ${APP}:3:31 app`,
			"Array.map <anonymous>:: -",
			` ${APP}:3:56 app`,
		]);
	});

	it("does not take the message for a frame, even with an @ or a second line in it", ({ expect }) => {
		const stack = "Error: mail to ops@example.com failed\nsee https://status.example.com:443\n    at notify (http://localhost:8080/assets/app.js:9:3)";
		expect(summary(parseStack(stack))).toEqual([`notify ${APP}:9:3 app`]);
	});

	it("keeps async frames and V8's `Promise.all (index 0)`, which is no file", ({ expect }) => {
		expect(summary(parseStack(CHROME.promiseAll))).toEqual([
			`async saveOrder ${APP}:15:35 app`,
			"async Promise.all index 0:: -",
			` ${APP}:15:93 app`,
		]);
		expect(summary(parseStack(CHROME.asyncMethod)).at(0)).toBe(`CartService.load ${APP}:4:79 app`);
	});

	it("places eval'd code at the call to eval", ({ expect }) => {
		expect(summary(parseStack(CHROME.eval))).toEqual([` ${APP}:12:7 app`, `eval ${APP}:12:7 app`, `evaluated ${APP}:12:7 app`]);
		expect(summary(parseStack(CHROME.newFunction))).toEqual([` ${APP}:13:40 app`, `eval ${APP}:13:7 app`]);
		// Evaluated code whose caller has no file is nobody's file.
		expect(summary(parseStack(CHROME.evalWithoutFile))).toEqual(["UtilityScript.evaluate <anonymous>:372:16 -", "outer <anonymous>:: -"]);
	});

	it("reads event listeners' frames", ({ expect }) => {
		expect(summary(parseStack(CHROME.listener))).toEqual([`HTMLButtonElement.<anonymous> ${APP}:17:78 app`]);
	});

	it("tells the app's frames from dependencies' and Node's own", ({ expect }) => {
		expect(summary(parseStack(NODE.commonJs))).toEqual([
			"Module._load node:internal/modules/cjs/loader:1443:12 -",
			"Module.load node:internal/modules/cjs/loader:1651:32 -",
			"Object..js node:internal/modules/cjs/loader:2060:10 -",
			"Module._compile node:internal/modules/cjs/loader:1929:14 -",
			"Object.<anonymous> /srv/api/server.cjs:4:7 app",
			"handleRequest /srv/api/server.cjs:3:38 app",
			"validate /srv/api/node_modules/order-lib/index.js:1:66 -",
			"Array.map <anonymous>:: -",
			" /srv/api/node_modules/order-lib/index.js:1:77 -",
			"parseQuantity /srv/api/server.cjs:2:63 app",
		]);
		expect(summary(parseStack(NODE.timer))).toEqual([
			"process.processTimers node:internal/timers:618:7 -",
			"listOnTimeout node:internal/timers:685:17 -",
			"Timeout.retryPayment [as _onTimeout] /srv/api/server.cjs:5:49 app",
		]);
		expect(summary(parseStack(NODE.executor))).toEqual([
			"Object.<anonymous> /srv/api/server.cjs:8:1 app",
			"new Promise <anonymous>:: -",
			" /srv/api/server.cjs:8:27 app",
		]);
	});

	it("gives ES modules' file URLs as paths, on Windows too", ({ expect }) => {
		expect(summary(parseStack(NODE.esModule))).toEqual([
			"async asyncRunEntryPointWithESMLoader node:internal/modules/run_main:101:5 -",
			" node:internal/modules/esm/loader:647:26 -",
			"ModuleJob.run node:internal/modules/esm/module_job:561:25 -",
			" /srv/api/main.mjs:2:22 app",
			"Checkout.submit /srv/api/main.mjs:1:42 app",
		]);
		expect(summary(parseStack(NODE.windows))).toEqual([" C:/apps/billing/main.mjs:3:1 app", "writeReport C:\\apps\\billing\\report.js:12:11 app"]);
	});

	it("decodes a file URL's percent-encoding, as the path on disk has none; a bad one stays as it is", ({ expect }) => {
		const stack = "Error: x\n    at load (file:///srv/my%20app/caf%C3%A9.mjs:3:9)\n    at file:///srv/100%.mjs:1:1";
		expect(parseStack(stack).map((frame) => frame.filename)).toEqual(["/srv/100%.mjs", "/srv/my app/café.mjs"]);
	});
});

describe("Firefox (SpiderMonkey) stacks", () => {
	it("reads named, nested (`outer/<`) and anonymous frames", ({ expect }) => {
		expect(summary(parseStack(FIREFOX.propertyOfNull))).toEqual([
			` ${APP}:10:1 app`,
			`onCheckout ${APP}:7:44 app`,
			`total ${APP}:3:31 app`,
			`total/< ${APP}:3:56 app`,
		]);
	});

	it("keeps the async cause prefixes (`async*`, `EventListener.handleEvent*`)", ({ expect }) => {
		expect(summary(parseStack(FIREFOX.asyncMethod)).at(0)).toBe(`async* ${APP}:11:13 app`);
		expect(summary(parseStack(FIREFOX.listener))).toEqual([`EventListener.handleEvent* ${APP}:17:34 app`, ` ${APP}:17:78 app`]);
	});

	it("places eval'd and Function code at the line of the call", ({ expect }) => {
		expect(summary(parseStack(FIREFOX.eval))).toEqual([` ${APP}:12:7 app`, `eval ${APP}:12: app`, `evaluated ${APP}:12: app`]);
		expect(summary(parseStack(FIREFOX.newFunction))).toEqual([` ${APP}:13:40 app`, `anonymous ${APP}:13: app`]);
	});

	it("reads a frame without a column", ({ expect }) => {
		expect(summary(parseStack(FIREFOX.noColumn))).toEqual([`submit ${APP}:40: app`]);
	});
});

describe("Safari (JavaScriptCore) stacks", () => {
	it("reads frames and marks `[native code]` as not the app's", ({ expect }) => {
		expect(summary(parseStack(SAFARI.propertyOfNull))).toEqual([
			`global code ${APP}:10:11 app`,
			`onCheckout ${APP}:7:44 app`,
			`total ${APP}:3:31 app`,
			"map [native code]:: -",
			` ${APP}:3:56 app`,
		]);
		expect(summary(parseStack(SAFARI.native))).toEqual([`render ${APP}:30:18 app`, "forEach [native code]:: -", " [native code]:: -"]);
	});

	it("reads eval'd code, which JavaScriptCore gives no location", ({ expect }) => {
		expect(summary(parseStack(SAFARI.eval))).toEqual([
			`global code ${APP}:12:11 app`,
			"eval [native code]:: -",
			"eval code :: -",
			"evaluated :: -",
		]);
	});

	it("reads module code and async frames", ({ expect }) => {
		expect(summary(parseStack(SAFARI.module))).toEqual([
			"module code http://localhost:8080/assets/main.js:9:7 app",
			"submit http://localhost:8080/assets/main.js:5:24 app",
		]);
		expect(summary(parseStack(SAFARI.asyncMethod))).toHaveLength(4);
	});
});

describe("stack limits and odd input", () => {
	const deep = (n: number) => ["RangeError: Maximum call stack size exceeded", ...Array.from({ length: n }, (_, i) => `    at f${i} (${APP}:1:${i + 1})`)].join("\n");

	it("keeps 200 frames, and of a deeper stack the newest 200 (the crash site stays)", ({ expect }) => {
		expect(parseStack(deep(200))).toHaveLength(200);
		const frames = parseStack(deep(201));
		expect(frames).toHaveLength(200);
		expect(frames.at(-1)?.function).toBe("f0");
		expect(frames.at(0)?.function).toBe("f199");
	});

	it("answers no frames for anything that is not a stack", ({ expect }) => {
		for (const stack of [undefined, null, 42, "", "just a message", "Error: no frames here"]) expect(parseStack(stack)).toEqual([]);
	});
});

describe("in_app", () => {
	it("is false for dependencies, runtime internals, code without a file, extensions and this SDK", ({ expect }) => {
		for (const file of [
			"/srv/api/node_modules/express/lib/router/index.js",
			"C:\\apps\\api\\node_modules\\pg\\lib\\client.js",
			"node:internal/process/task_queues",
			"internal/timers.js",
			"<anonymous>",
			"[native code]",
			"native",
			"index 3",
			"chrome-extension://abcdefghijklmnop/content.js",
			"/srv/api/node_modules/@svcapp/logger/dist/svc-logger.js",
			"/srv/api/packages/logger/dist/svc-logger.node.js",
			"http://localhost:5173/node_modules/.vite/deps/@svcapp_logger.js",
			"https://cdn.example.com/svc-logger.browser.js",
			undefined,
		]) {
			expect(isInApp(file), String(file)).toBe(false);
		}
	});

	it("is true for the application's own files", ({ expect }) => {
		for (const file of ["/srv/api/server.cjs", APP, "C:\\apps\\billing\\report.js", "webpack-internal:///./src/app.js", "/srv/my-logger.js"]) {
			expect(isInApp(file), file).toBe(true);
		}
	});
});
