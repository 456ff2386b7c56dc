/**
 * The grouping table: pairs of events written as data, each either one bug (same group) or two
 * (different groups). test/fingerprint.test.ts runs it against the pure fingerprint module and
 * through the real endpoint.
 */

type Frame = Record<string, unknown>;
type Event = Record<string, unknown>;

export interface GroupingCase {
	name: string;
	same: boolean;
	a: Event;
	b: Event;
}

const f = (filename: string, fn: string, lineno: number, colno: number, extra: Frame = {}): Frame => ({
	filename,
	function: fn,
	lineno,
	colno,
	...extra,
});

const exception = (type: string, value: string, frames?: Frame[]): Event => ({
	exception: { type, value, ...(frames ? { stacktrace: { frames } } : {}) },
});

// A small server-side stack (oldest first, as SDKs send it): runtime, a dependency, the app.
const serverStack = (opts: { dir?: string; line?: number; appFn?: string; context?: string } = {}): Frame[] => [
	f("node:internal/process/task_queues", "processTicksAndRejections", 95, 5),
	f(`${opts.dir ?? "/srv/app"}/node_modules/express/lib/router/layer.js`, "Layer.handle [as handle_request]", 95, 5, { in_app: false }),
	f(`${opts.dir ?? "/srv/app"}/src/routes/users.ts`, "getUser", opts.line ?? 42, 17, { in_app: true, context_line: "    const user = await loadUser(req.params.id);" }),
	f(`${opts.dir ?? "/srv/app"}/src/services/users.ts`, opts.appFn ?? "loadUser", (opts.line ?? 42) + 70, 11, {
		in_app: true,
		context_line: opts.context ?? "  return profile.settings.theme;",
	}),
];

// A browser stack in one bundle, as Chrome reports it.
const bundleStack = (bundle: string, line = 1, col = 4242): Frame[] => [
	f(`https://shop.example.com/assets/${bundle}`, "HTMLButtonElement.onClick", line, col + 900, { in_app: true }),
	f(`https://shop.example.com/assets/${bundle}`, "submitOrder", line, col, { in_app: true }),
];


// ---- Events as Sentry SDKs send them ------------------------------------------------------
// `exception.values` holds causes and children first, the reported exception last; each one's
// `mechanism` gives its id and its parent's (the reported one is 0).

type Exc = Record<string, unknown>;
const values = (...list: Exc[]): Event => ({ exception: { values: list } });
/** The event's `platform`, as every Sentry SDK sends it: JavaScript frames group by their own rules. */
const fromNode = (event: Event): Event => ({ platform: "node", ...event });
const fromBrowser = (event: Event): Event => ({ platform: "javascript", ...event });
const exc = (type: string | null, value: string, frames: Frame[], mechanism: Record<string, unknown> = {}): Exc => ({
	...(type === null ? {} : { type }),
	value,
	stacktrace: { frames },
	...(Object.keys(mechanism).length > 0 ? { mechanism } : {}),
});
/** The reported exception of a chain; `group` for AggregateError, ExceptionGroup, AggregateException. */
const root = (opts: { group?: boolean; type?: string } = {}) => ({
	type: opts.type ?? "generic",
	handled: true,
	exception_id: 0,
	...(opts.group ? { is_exception_group: true } : {}),
});
const linked = (id: number, parent: number, source: string, group = false) => ({
	type: "chained",
	handled: true,
	source,
	exception_id: id,
	parent_id: parent,
	...(group ? { is_exception_group: true } : {}),
});

// .NET (sentry-dotnet): module and function, no file names.
const net = (module: string, fn: string, inApp: boolean): Frame => ({ module, function: fn, in_app: inApp });
const fetchPricesFrames = [net("System.Net.Http.HttpClient", "SendAsync", false), net("Shop.Services.PriceService", "FetchPricesAsync", true)];
const loadOrdersFrames = [net("Microsoft.Data.SqlClient.SqlCommand", "ExecuteReaderAsync", false), net("Shop.Data.OrderRepository", "LoadOrdersAsync", true)];
const waitAllFrames = [net("Shop.Program", "Main", true), net("System.Threading.Tasks.Task", "WaitAll", false)];
const httpError = (value = "Connection refused (api.example.com:443)") => exc("System.Net.Http.HttpRequestException", value, fetchPricesFrames);
const sqlError = () => exc("Microsoft.Data.SqlClient.SqlException", "Execution Timeout Expired.", loadOrdersFrames);
const aggregate = (...inner: Exc[]) => ({
	platform: "csharp",
	...values(
		...inner.map((e, i) => ({ ...e, mechanism: linked(i + 1, 0, `InnerExceptions[${i}]`) })).reverse(),
		exc("System.AggregateException", "One or more errors occurred.", waitAllFrames, root({ group: true, type: "AppDomain.UnhandledException" })),
	),
});

// Python (sentry-python 2.x): ExceptionGroup children, each raised in its own task.
const py = (module: string, fn: string, line: number, context: string): Frame => ({
	filename: `${module.replaceAll(".", "/")}.py`,
	abs_path: `/srv/app/${module.replaceAll(".", "/")}.py`,
	module,
	function: fn,
	lineno: line,
	context_line: context,
	in_app: true,
});
const pyChild = (type: string, value: string, id: number) =>
	exc(type, value, [py("shop.tasks", "sync_item", 40 + id, `raise ${type}(f"bad item {item.id}")`)], linked(id, 0, `exceptions[${id - 1}]`));
const exceptionGroup = (...children: Exc[]) => ({
	platform: "python",
	...values(...children.reverse(), exc("ExceptionGroup", `sync failed (${children.length} sub-exceptions)`, [py("shop.tasks", "sync_all", 12, "async with asyncio.TaskGroup() as tg:")], root({ group: true, type: "excepthook" }))),
});

// Node (@sentry/node): a plain `cause` chain, as its LinkedErrors integration sends it.
const nodeFrame = (fn: string, line: number, context: string): Frame => ({
	filename: "/srv/app/src/orders.js",
	module: "orders",
	function: fn,
	lineno: line,
	colno: 11,
	in_app: true,
	context_line: context,
});
const causeChain = (cause: { value: string; fn: string; context: string }, line = 0) =>
	fromNode(values(
		exc("Error", cause.value, [nodeFrame("loadOrders", 20 + line, "await loadOrders(userId);"), nodeFrame(cause.fn, 50 + line, cause.context)], linked(1, 0, "cause")),
		exc("Error", "Could not show the order page", [nodeFrame("loadOrders", 20 + line, "throw new Error('Could not show the order page', { cause: err });")], root()),
	));
const dbDown = { value: "connect ECONNREFUSED 10.0.0.5:5432", fn: "query", context: "const rows = await db.query(sql, params);" };
const badJson = { value: "Unexpected token < in JSON at position 0", fn: "parseBody", context: "return JSON.parse(text);" };

// Node: one bug as @sentry/node and @svcapp/logger send it. Both name each frame's module from
// the application's directory and send its line of source (with the lines around it); they
// differ in mechanisms and ids, and in the value when the bug is met again with other data.
const shopFrame = (fn: string, line: number, context: string): Frame => ({
	filename: "/srv/shop/lib/shop.mjs",
	module: "lib:shop",
	function: fn,
	lineno: line,
	colno: 3,
	in_app: true,
	pre_context: ["export function openShop(sdk) {"],
	context_line: context,
	post_context: ["}"],
});
const timerFrames: Frame[] = [
	{ filename: "node:internal/timers", module: "timers", function: "process.processTimers", lineno: 618, colno: 7, in_app: false },
	{ filename: "node:internal/timers", module: "timers", function: "listOnTimeout", lineno: 685, colno: 17, in_app: false },
];
const emptyCart = (order: number, mechanism: Record<string, unknown>) =>
	fromNode(values(
		exc(
			"TypeError",
			`cannot submit order ${order}: the cart is empty`,
			[
				...timerFrames,
				shopFrame("Timeout.checkout [as _onTimeout]", 17, "submitOrder({ id: order, items: [] });"),
				shopFrame("submitOrder", 38, 'if (order.items.length === 0) throw new TypeError("the cart is empty");'),
			],
			mechanism,
		),
	));
/** A message with the stack it was captured at: Sentry's SDKs (and the logger) attach it by default. */
const stockMessage = (sku: string, caller: string, extra: Record<string, unknown> = {}, call = 'sdk.captureMessage("stock low for " + sku, "warning");') => ({
	platform: "node",
	message: `stock low for ${sku}`,
	level: "warning",
	exception: {
		values: [
			{
				value: `stock low for ${sku}`,
				stacktrace: { frames: [...timerFrames, shopFrame(`Timeout.${caller} [as _onTimeout]`, 6, `${caller}(sdk, sku);`), shopFrame("warnLowStock", 22, call)] },
				mechanism: { type: "generic", handled: true, synthetic: true, ...extra },
			},
		],
	},
});
/** A message captured in a page with its stack (no lines of source), as @sentry/browser sends it with attachStacktrace. */
const pageMessage = (text: string, caller: string) => ({
	platform: "javascript",
	message: text,
	exception: {
		values: [
			{
				value: text,
				stacktrace: { frames: [bf(APP_JS, caller, 1, 880), bf(APP_JS, "checkout", 1, 4242)] },
				mechanism: { type: "generic", handled: true, synthetic: true },
			},
		],
	},
});

// Browsers (@sentry/browser): one bug, one bundle, as each engine's stack parser reports it. Every
// browser frame is in_app unless the SDK knows better.
const APP_JS = "https://shop.example.com/assets/app-8f3a2c1d.js";
const bf = (filename: string, fn: string, line: number, col: number): Frame => ({ filename, function: fn, lineno: line, colno: col, in_app: true });
const chromeStack = (file = APP_JS) => [
	bf(file, "HTMLButtonElement.<anonymous>", 1, 9120),
	bf(file, "renderCart", 1, 4242),
	bf("<anonymous>", "Array.forEach", 0, 0),
	bf(file, "eval", 3, 17), // eval'd template: Chrome names the file that called eval
	bf(file, "lineTotal", 1, 3021),
];
const firefoxStack = [
	bf(APP_JS, "setupCart/<", 1, 9133),
	bf(APP_JS, "renderCart", 1, 4250),
	bf(APP_JS, "eval", 3, 17), // `app.js line 1 > eval`
	bf(APP_JS, "lineTotal", 1, 3030),
];
const safariStack = [
	bf(APP_JS, "?", 1, 9140),
	bf(APP_JS, "renderCart", 1, 4251),
	bf("[native code]", "forEach", 0, 0),
	bf("eval code", "eval code", 0, 0),
	bf("[native code]", "eval", 0, 0),
	bf(APP_JS, "lineTotal", 1, 3040),
];
const cartTypeError = (value: string, frames: Frame[]) => fromBrowser(values(exc("TypeError", value, frames, { type: "onerror", handled: false })));

// JavaScript shared by a Node service and a page (src/orders.js, as e2e/fixtures/logger has it):
// `checkout` runs from a timer and calls `submitOrder`, which throws. Node's frames, from
// @sentry/node and @svcapp/logger alike, carry a module and lines of source; a page's carry
// neither, whichever engine reported it.
const ORDERS_JS = "https://shop.example.com/assets/orders.js";
const CHECKOUT_LINE = "\t\tsubmitOrder(cart);";
const SUBMIT_LINE = '\t\tthrow new TypeError("cannot submit an empty cart");';
const nodeOrderFrame = (fn: string, line: number, source: string, opts: { file?: string; module?: boolean; source?: boolean } = {}): Frame => ({
	filename: opts.file ?? "/srv/shop/src/orders.js",
	...(opts.module === false ? {} : { module: "src:orders" }),
	function: fn,
	lineno: line,
	colno: 3,
	in_app: true,
	...(opts.source === false ? {} : { pre_context: ["export function startCheckout(cart) {"], context_line: source, post_context: ["}"] }),
});
const nodeOrders = (opts: Parameters<typeof nodeOrderFrame>[3] = {}) => [
	...timerFrames,
	nodeOrderFrame("Timeout.checkout [as _onTimeout]", 5, CHECKOUT_LINE, opts),
	nodeOrderFrame("submitOrder", 11, SUBMIT_LINE, opts),
];
const chromeOrders = (file = ORDERS_JS, extra: Frame = {}) => [{ ...bf(file, "checkout", 5, 3), ...extra }, { ...bf(file, "submitOrder", 11, 9), ...extra }];
/** Firefox adds the frame that set the timer (`setTimeout handler*…`) and the page's module code under it. */
const firefoxOrders = [bf("https://shop.example.com/", "", 20, 3), bf(ORDERS_JS, "setTimeout handler*startCheckout", 4, 12), bf(ORDERS_JS, "checkout", 5, 3), bf(ORDERS_JS, "submitOrder", 11, 9)];
const safariOrders = [bf(ORDERS_JS, "checkout", 5, 14), bf(ORDERS_JS, "submitOrder", 11, 18)];
/** A page's frames after symbolication: the original file, name and lines of source, the frame as it came beside them. */
const mappedOrderFrame = (fn: string | null, line: number, source: string): Frame => ({
	filename: "./src/orders.ts",
	abs_path: "webpack://shop/./src/orders.ts",
	...(fn === null ? {} : { function: fn }),
	lineno: line,
	colno: 3,
	in_app: true,
	pre_context: ["export function startCheckout(cart: Cart) {"],
	context_line: source,
	post_context: ["}"],
	minified: { filename: "https://shop.example.com/assets/app-8f3a2c1d.js", function: "a", lineno: 1, colno: 400 + line },
});
const emptyCartIn = (from: (event: Event) => Event, frames: Frame[], mechanism = "onerror") =>
	from(values(exc("TypeError", "cannot submit an empty cart", frames, { type: mechanism, handled: false })));
/** A frame of a Worker's bundle as `wrangler dev` runs it, from the temporary folder `run` names. */
const workerFrame = (run: string, fn: string, line: number): Frame =>
	f(`/home/dev/shop-worker/.wrangler/tmp/${run}/index.js`, fn, line, 16, { abs_path: `/home/dev/shop-worker/.wrangler/tmp/${run}/index.js`, in_app: true });
const nodeCrash = (frames: Frame[]) => emptyCartIn(fromNode, frames, "auto.node.onuncaughtexception");
const pageCrash = (frames: Frame[]) => emptyCartIn(fromBrowser, frames, "auto.browser.global_handlers.onerror");

// Flutter (sentry-dart): the app's frames between the Dart SDK's and the Flutter framework's.
const dart = (absPath: string, fn: string, line: number, inApp?: boolean): Frame => ({
	abs_path: absPath,
	filename: absPath.split("/").pop(),
	function: fn,
	lineno: line,
	...(inApp === undefined ? {} : { in_app: inApp }),
});
const flutterStack = (frameworkFn: string, zoneLine: number) => [
	dart("dart:async/zone.dart", "_rootRun", zoneLine),
	dart("package:flutter/src/widgets/framework.dart", frameworkFn, 5000 + zoneLine),
	dart("package:sentry_flutter/src/integrations/flutter_error_integration.dart", "call", 40),
	dart("package:shop/cart/cart_page.dart", "_CartPageState.build", 88),
	dart("org-dartlang-sdk:///dart-sdk/lib/_internal/js_runtime/lib/js_helper.dart", "throwExpression", 1196),
];

// Ruby (sentry-ruby): a block's function is where it sits, `block (2 levels) in Order#pay`.
const rubyFrame = (fn: string, line: number, context: string): Frame => ({
	filename: "app/models/order.rb",
	abs_path: "/srv/shop/app/models/order.rb",
	function: fn,
	lineno: line,
	context_line: context,
	in_app: true,
});
/** A gem's frame that calls back into the app (not the app's own). */
const activeSupportCallback: Frame = { filename: "active_support/callbacks.rb", abs_path: "/usr/lib/ruby/gems/3.3.0/gems/activesupport-7.1.3/lib/active_support/callbacks.rb", function: "block in run_callbacks", lineno: 110, in_app: false };
const rubyDeclined = (...frames: Frame[]) => ({ platform: "ruby", ...values(exc("Shop::Declined", "card declined for order 101", frames)) });

export const GROUPING_CASES: GroupingCase[] = [
	// ---- one bug, one group -------------------------------------------------------------
	{
		name: "message with different numbers (durations, user ids)",
		same: true,
		a: { message: "timeout after 31ms for user 8812" },
		b: { message: "timeout after 45ms for user 17" },
	},
	{
		name: "message with different UUIDs",
		same: true,
		a: { message: "Order 3f2b8c1e-9d4a-4b7e-8f21-0c9e5a7d6b13 not found" },
		b: { message: "Order a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d not found" },
	},
	{
		name: "message with different emails",
		same: true,
		a: { message: "Could not deliver mail to alice@example.com: mailbox full" },
		b: { message: "Could not deliver mail to bob.smith+shop@example.org: mailbox full" },
	},
	{
		name: "message with different IP addresses and ports",
		same: true,
		a: { message: "Connection refused by 10.0.0.12:5432" },
		b: { message: "Connection refused by 192.168.1.7:6543" },
	},
	{
		name: "message with different IPv6 addresses",
		same: true,
		a: { message: "Blocked request from 2001:db8::8a2e:370:7334" },
		b: { message: "Blocked request from fe80::1ff:fe23:4567:890a" },
	},
	{
		name: "message with different URLs",
		same: true,
		a: { message: "GET https://api.example.com/users/1?expand=orders failed" },
		b: { message: "GET https://api.example.com/users/99 failed" },
	},
	{
		name: "message with different ISO dates",
		same: true,
		a: { message: "Job scheduled for 2024-03-01T10:00:00Z was missed" },
		b: { message: "Job scheduled for 2025-11-30T23:59:59.123+02:00 was missed" },
	},
	{
		name: "message with different human-readable dates",
		same: true,
		a: { message: "Invoice due Tue Jan 02 2024 10:00:00 GMT+0100 (Central European Standard Time) is overdue" },
		b: { message: "Invoice due Fri Mar 15 2024 09:30:00 GMT+0000 (Coordinated Universal Time) is overdue" },
	},
	{
		name: "message with different hex object ids",
		same: true,
		a: { message: "Document 507f1f77bcf86cd799439011 missing from index" },
		b: { message: "Document 5f8d0d55b54764421b7156c9 missing from index" },
	},
	{
		name: "message with different hashes (md5 vs sha1)",
		same: true,
		a: { message: "Checksum mismatch: d41d8cd98f00b204e9800998ecf8427e" },
		b: { message: "Checksum mismatch: da39a3ee5e6b4b0d3255bfef95601890afd80709" },
	},
	{
		name: "message with different quoted values",
		same: true,
		a: { message: `Unknown field 'nickname' in payload for "signup"` },
		b: { message: `Unknown field 'age' in payload for "checkout"` },
	},
	{
		name: "exception value with different numbers, no stack",
		same: true,
		a: exception("TimeoutError", "Query exceeded 5000ms (attempt 3 of 5)"),
		b: exception("TimeoutError", "Query exceeded 12000ms (attempt 1 of 5)"),
	},
	{
		name: "TypeError on undefined: Chrome vs Firefox wording",
		same: true,
		a: exception("TypeError", "Cannot read properties of undefined (reading 'name')"),
		b: exception("TypeError", `can't access property "name", user.profile is undefined`),
	},
	{
		name: "TypeError on undefined: Chrome vs Safari wording",
		same: true,
		a: exception("TypeError", "Cannot read properties of undefined (reading 'x')"),
		b: exception("TypeError", "undefined is not an object (evaluating 'a.x')"),
	},
	{
		name: "TypeError on undefined: older Chrome vs older Firefox wording",
		same: true,
		a: exception("TypeError", "Cannot read property 'x' of undefined"),
		b: exception("TypeError", "x is undefined"),
	},
	{
		name: "TypeError on null: window.onerror message vs Safari exception",
		same: true,
		a: { message: "Uncaught TypeError: Cannot read properties of null (reading 'addEventListener')" },
		b: exception("TypeError", "null is not an object (evaluating 'button.addEventListener')"),
	},
	{
		name: "not a function: Chrome vs Safari wording",
		same: true,
		a: exception("TypeError", "items.map is not a function"),
		b: exception("TypeError", "items.map is not a function. (In 'items.map(render)', 'items.map' is undefined)"),
	},
	{
		name: "undefined variable: Chrome vs Safari wording",
		same: true,
		a: exception("ReferenceError", "gtag is not defined"),
		b: exception("ReferenceError", "Can't find variable: gtag"),
	},
	{
		name: "stack overflow: Chrome RangeError vs Firefox InternalError",
		same: true,
		a: exception("RangeError", "Maximum call stack size exceeded"),
		b: exception("InternalError", "too much recursion"),
	},
	{
		name: "network failure: Firefox vs Safari wording",
		same: true,
		a: exception("TypeError", "NetworkError when attempting to fetch resource."),
		b: exception("TypeError", "Load failed"),
	},
	{
		name: "bad JSON response: Chrome vs Firefox wording",
		same: true,
		a: exception("SyntaxError", `Unexpected token '<', "<!DOCTYPE "... is not valid JSON`),
		b: exception("SyntaxError", "JSON.parse: unexpected character at line 1 column 1 of the JSON data"),
	},
	{
		name: "stack with different line and column numbers",
		same: true,
		a: exception("TypeError", "Cannot read properties of undefined (reading 'theme')", serverStack({ line: 42 })),
		b: exception("TypeError", "Cannot read properties of undefined (reading 'theme')", serverStack({ line: 57 })),
	},
	{
		name: "stack with different values: the stack decides",
		same: true,
		a: exception("NotFoundError", "User 8812 not found in tenant acme", serverStack()),
		b: exception("NotFoundError", "User 17 not found in tenant globex", serverStack()),
	},
	{
		name: "stack deployed under different directories",
		same: true,
		a: exception("Error", "boom", serverStack({ dir: "/srv/releases/2024-05-01" })),
		b: exception("Error", "boom", serverStack({ dir: "/home/deploy/app-v2" })),
	},
	{
		name: "stack in bundles with different content hashes (main-8f3a2c.js)",
		same: true,
		a: exception("TypeError", "Cannot read properties of undefined (reading 'id')", bundleStack("main-8f3a2c.js")),
		b: exception("TypeError", "Cannot read properties of undefined (reading 'id')", bundleStack("main-91bd0e.js")),
	},
	{
		name: "stack in webpack chunks with different content hashes",
		same: true,
		a: exception("Error", "checkout failed", bundleStack("main.8f3a2c1d.chunk.js", 2, 100)),
		b: exception("Error", "checkout failed", bundleStack("main.0b7e44fa.chunk.js", 2, 9000)),
	},
	{
		name: "stack in Vite bundles with different base64 hashes",
		same: true,
		a: exception("Error", "checkout failed", bundleStack("index-BxY7_q2k.js")),
		b: exception("Error", "checkout failed", bundleStack("index-CpoXzVlj.js")),
	},
	{
		name: "stack with different library and runtime frames around the same app frames",
		same: true,
		a: exception("Error", "boom", serverStack()),
		b: exception("Error", "boom", [
			f("node:internal/timers", "listOnTimeout", 569, 17),
			f("/srv/app/node_modules/fastify/lib/route.js", "preHandlerCallback", 411, 11),
			f("/srv/app/node_modules/.pnpm/express@5.0.1/node_modules/express/lib/router/layer.js", "handle", 152, 17),
			...serverStack().slice(2),
		]),
	},
	{
		name: "stack with recursion of different depth",
		same: true,
		a: exception("RangeError", "depth exceeded", [
			f("src/tree.ts", "render", 10, 1, { in_app: true }),
			...Array.from({ length: 5 }, () => f("src/tree.ts", "walk", 20, 5, { in_app: true })),
			f("src/tree.ts", "visit", 30, 3, { in_app: true }),
		]),
		b: exception("RangeError", "depth exceeded", [
			f("src/tree.ts", "render", 11, 1, { in_app: true }),
			...Array.from({ length: 40 }, () => f("src/tree.ts", "walk", 21, 5, { in_app: true })),
			f("src/tree.ts", "visit", 31, 3, { in_app: true }),
		]),
	},
	{
		name: "stack with mutual recursion of different depth",
		same: true,
		a: exception("RangeError", "too deep", [
			f("src/parse.ts", "parse", 1, 1),
			...Array.from({ length: 3 }, (_, i) => [f("src/parse.ts", "parseList", 10 + i, 1), f("src/parse.ts", "parseValue", 20 + i, 1)]).flat(),
		]),
		b: exception("RangeError", "too deep", [
			f("src/parse.ts", "parse", 1, 1),
			...Array.from({ length: 12 }, (_, i) => [f("src/parse.ts", "parseList", 10 + i, 1), f("src/parse.ts", "parseValue", 20 + i, 1)]).flat(),
		]),
	},
	{
		name: "stack as Chrome and Firefox name the same functions",
		same: true,
		a: exception("Error", "save failed", [
			f("https://app.example.com/static/app.js?v=123", "async CartService.save", 10, 5, { in_app: true }),
			f("https://app.example.com/static/app.js?v=123", "Object.onSubmit", 40, 9, { in_app: true }),
		]),
		b: exception("Error", "save failed", [
			f("https://app.example.com/static/app.js?v=124", "save", 10, 7, { in_app: true }),
			f("https://app.example.com/static/app.js?v=124", "onSubmit", 40, 11, { in_app: true }),
		]),
	},
	{
		// Firefox names async parents `cause*function` and adds the stacks that scheduled them,
		// which Chrome's Error.stack never shows (Sentry's parser passes both through as sent).
		name: "async stack: Chrome's `at async` frames vs Firefox's async* frames and scheduling parents",
		same: true,
		a: exception("Error", "save failed", [
			f("https://app.example.com/assets/app-8f3a2c1d.js", "async HTMLFormElement.onSubmit", 40, 9, { in_app: true }),
			f("https://app.example.com/assets/app-8f3a2c1d.js", "CartService.save", 10, 5, { in_app: true }),
			f("https://app.example.com/assets/app-8f3a2c1d.js", "CartService.persist", 20, 3, { in_app: true }),
		]),
		b: exception("Error", "save failed", [
			f("https://app.example.com/assets/app-8f3a2c1d.js", "", 50, 1, { in_app: true }),
			f("https://app.example.com/assets/app-8f3a2c1d.js", "EventListener.handleEvent*init", 3, 8, { in_app: true }),
			f("https://app.example.com/assets/app-8f3a2c1d.js", "async*onSubmit", 40, 9, { in_app: true }),
			f("https://app.example.com/assets/app-8f3a2c1d.js", "save", 10, 5, { in_app: true }),
			f("https://app.example.com/assets/app-8f3a2c1d.js", "persist", 20, 3, { in_app: true }),
		]),
	},
	{
		name: "async stack: Firefox promise-callback and timer parents do not count",
		same: true,
		a: exception("TypeError", "Cannot read properties of undefined (reading 'total')", [
			f("https://app.example.com/assets/app-8f3a2c1d.js", "renderTotals", 70, 2, { in_app: true }),
		]),
		b: exception("TypeError", "can't access property \"total\", cart is undefined", [
			f("https://app.example.com/assets/app-8f3a2c1d.js", "main", 90, 1, { in_app: true }),
			f("https://app.example.com/assets/app-8f3a2c1d.js", "setTimeout handler*refresh", 80, 4, { in_app: true }),
			f("https://app.example.com/assets/app-8f3a2c1d.js", "promise callback*renderTotals", 70, 2, { in_app: true }),
			f("https://app.example.com/assets/app-8f3a2c1d.js", "renderTotals", 70, 2, { in_app: true }),
		]),
	},
	{
		// Sentry's Node parser turns `at async Promise.all (index 3)` into filename "index 3".
		name: "Node stack through Promise.all at different indexes, no in_app flags",
		same: true,
		a: exception("Error", "boom", [f("/srv/app/src/jobs.js", "runAll", 5, 3), f("index 0", "Promise.all", 0, 0), f("/srv/app/src/jobs.js", "runOne", 9, 11)]),
		b: exception("Error", "boom", [f("/srv/app/src/jobs.js", "runAll", 5, 3), f("index 3", "Promise.all", 0, 0), f("/srv/app/src/jobs.js", "runOne", 9, 11)]),
	},
	{
		name: "stack with and without transpiler helper frames (__awaiter, asyncGeneratorStep)",
		same: true,
		a: exception("Error", "boom", [f("dist/app.js", "main", 1, 1), f("dist/app.js", "handle", 5, 1)]),
		b: exception("Error", "boom", [
			f("dist/app.js", "main", 1, 1),
			f("dist/app.js", "__awaiter", 80, 1),
			f("dist/app.js", "asyncGeneratorStep", 90, 1),
			f("dist/app.js", "handle", 6, 1),
		]),
	},
	{
		name: "stack with Python-style modules on different lines",
		same: true,
		a: exception("KeyError", "'user_id'", [
			{ module: "app.views", function: "profile", lineno: 10, in_app: true },
			{ module: "app.models", function: "User.load", lineno: 88, in_app: true },
		]),
		b: exception("KeyError", "'account_id'", [
			{ module: "app.views", function: "profile", lineno: 14, in_app: true },
			{ module: "app.models", function: "User.load", lineno: 91, in_app: true },
		]),
	},
	{
		name: "explicit fingerprint groups different messages",
		same: true,
		a: { message: "Stripe card declined", fingerprint: ["payment-gateway"] },
		b: { message: "Adyen refused the transaction", fingerprint: ["payment-gateway"] },
	},
	{
		name: "fingerprint {{ default }} is the computed grouping",
		same: true,
		a: { message: "cache miss for key 1234", fingerprint: ["{{ default }}"] },
		b: { message: "cache miss for key 98" },
	},

	// ---- two bugs, two groups -----------------------------------------------------------
	{
		name: "same value, different exception types, no stack",
		same: false,
		a: exception("TypeError", "invalid configuration"),
		b: exception("RangeError", "invalid configuration"),
	},
	{
		name: "same stack, different exception types",
		same: false,
		a: exception("TypeError", "boom", serverStack()),
		b: exception("ValidationError", "boom", serverStack()),
	},
	{
		name: "same type, different in-app function (call site)",
		same: false,
		a: exception("Error", "boom", serverStack({ appFn: "loadUser" })),
		b: exception("Error", "boom", serverStack({ appFn: "saveUser" })),
	},
	{
		name: "same function, different line of code (two throws in one function)",
		same: false,
		a: exception("Error", "boom", serverStack({ context: "  return profile.settings.theme;" })),
		b: exception("Error", "boom", serverStack({ context: "  throw new Error('no profile');" })),
	},
	{
		name: "same function name in different files",
		same: false,
		a: exception("Error", "boom", [f("src/orders.ts", "load", 1, 1, { in_app: true })]),
		b: exception("Error", "boom", [f("src/invoices.ts", "load", 1, 1, { in_app: true })]),
	},
	{
		name: "same library frames, different app frame under them",
		same: false,
		a: exception("Error", "boom", [f("node_modules/react-dom/cjs/react-dom.js", "commitRoot", 1, 1), f("src/Cart.tsx", "Cart", 10, 1)]),
		b: exception("Error", "boom", [f("node_modules/react-dom/cjs/react-dom.js", "commitRoot", 1, 1), f("src/Checkout.tsx", "Checkout", 10, 1)]),
	},
	{
		name: "different messages",
		same: false,
		a: { message: "Payment failed for order 12" },
		b: { message: "Login failed for user 12" },
	},
	{
		name: "property access on null vs undefined",
		same: false,
		a: exception("TypeError", "Cannot read properties of null (reading 'x')"),
		b: exception("TypeError", "Cannot read properties of undefined (reading 'x')"),
	},
	{
		name: "different undefined variables",
		same: false,
		a: exception("ReferenceError", "gtag is not defined"),
		b: exception("ReferenceError", "fbq is not defined"),
	},
	{
		name: "different non-functions",
		same: false,
		a: exception("TypeError", "items.map is not a function"),
		b: exception("TypeError", "callback is not a function"),
	},
	{
		name: "different explicit fingerprints on the same message",
		same: false,
		a: { message: "upstream failed", fingerprint: ["upstream", "billing"] },
		b: { message: "upstream failed", fingerprint: ["upstream", "search"] },
	},
	{
		name: "{{ default }} refined by a tag-like part",
		same: false,
		a: { message: "quota exceeded", fingerprint: ["{{ default }}", "eu-west"] },
		b: { message: "quota exceeded", fingerprint: ["{{ default }}", "us-east"] },
	},
	{
		name: "a stack and a plain message with the same text",
		same: false,
		a: exception("Error", "boom", serverStack()),
		b: { message: "boom" },
	},

	// ---- exception chains and groups (Sentry: chained-exception grouping) ----------------------
	{
		name: ".NET AggregateException around one error groups as that error alone",
		same: true,
		a: aggregate(httpError()),
		b: values(exc("System.Net.Http.HttpRequestException", "Connection refused (api.example.com:443)", fetchPricesFrames, root())),
	},
	{
		name: ".NET AggregateException around the same error three times groups as that error",
		same: true,
		a: aggregate(httpError(), httpError("Connection refused (cdn.example.com:443)"), httpError()),
		b: aggregate(httpError()),
	},
	{
		name: ".NET AggregateException around unrelated errors: two issues, not one per wrapper",
		same: false,
		a: aggregate(httpError()),
		b: aggregate(sqlError()),
	},
	{
		name: ".NET AggregateException around two errors vs around one of them",
		same: false,
		a: aggregate(httpError(), sqlError()),
		b: aggregate(httpError()),
	},
	{
		name: "Python ExceptionGroup of three copies of one error groups as the error alone",
		same: true,
		a: exceptionGroup(pyChild("ValueError", "bad item 7", 1), pyChild("ValueError", "bad item 9", 2), pyChild("ValueError", "bad item 12", 3)),
		b: values(exc("ValueError", "bad item 3", [py("shop.tasks", "sync_item", 41, 'raise ValueError(f"bad item {item.id}")')], root({ type: "excepthook" }))),
	},
	{
		name: "Python ExceptionGroup: the same children in another order",
		same: true,
		a: exceptionGroup(pyChild("ValueError", "bad item 7", 1), pyChild("KeyError", "'sku'", 2)),
		b: exceptionGroup(pyChild("KeyError", "'sku'", 2), pyChild("ValueError", "bad item 7", 1)),
	},
	{
		name: "Python ExceptionGroup: different children",
		same: false,
		a: exceptionGroup(pyChild("ValueError", "bad item 7", 1), pyChild("KeyError", "'sku'", 2)),
		b: exceptionGroup(pyChild("ValueError", "bad item 7", 1), pyChild("TimeoutError", "timed out", 2)),
	},
	{
		name: "JavaScript AggregateError (Promise.any) with its children in another order",
		same: true,
		a: fromNode(values(
			exc("RangeError", "b", [nodeFrame("pickMirror", 9, "return Promise.any(mirrors.map(fetchMirror));")], linked(2, 0, "errors[1]")),
			exc("TypeError", "a", [nodeFrame("pickMirror", 9, "return Promise.any(mirrors.map(fetchMirror));")], linked(1, 0, "errors[0]")),
			exc("AggregateError", "All promises were rejected", [nodeFrame("pickMirror", 9, "return Promise.any(mirrors.map(fetchMirror));")], root({ group: true })),
		)),
		b: fromNode(values(
			exc("TypeError", "a", [nodeFrame("pickMirror", 9, "return Promise.any(mirrors.map(fetchMirror));")], linked(2, 0, "errors[1]")),
			exc("RangeError", "b", [nodeFrame("pickMirror", 9, "return Promise.any(mirrors.map(fetchMirror));")], linked(1, 0, "errors[0]")),
			exc("AggregateError", "All promises were rejected", [nodeFrame("pickMirror", 9, "return Promise.any(mirrors.map(fetchMirror));")], root({ group: true })),
		)),
	},
	{
		name: "cause chain: the same wrapper around different causes is two issues",
		same: false,
		a: causeChain(dbDown),
		b: causeChain(badJson),
	},
	{
		name: "cause chain: the same chain on other lines and with other values",
		same: true,
		a: causeChain(dbDown),
		b: causeChain({ ...dbDown, value: "connect ECONNREFUSED 10.0.0.9:6432" }, 7),
	},
	{
		name: "cause chain vs its outermost exception alone",
		same: false,
		a: causeChain(dbDown),
		b: values(exc("Error", "Could not show the order page", [nodeFrame("loadOrders", 20, "throw new Error('Could not show the order page', { cause: err });")], root())),
	},
	...(
		[
			["a repeated id", [linked(1, 0, "InnerExceptions[0]"), linked(1, 0, "InnerExceptions[1]")]],
			["a missing parent", [linked(1, 0, "InnerExceptions[0]"), linked(2, 5, "InnerExceptions[1]")]],
			["a cycle", [linked(1, 2, "InnerExceptions[0]"), linked(2, 1, "InnerExceptions[1]")]],
			["its own parent", [linked(1, 0, "InnerExceptions[0]"), linked(2, 2, "InnerExceptions[1]")]],
			["no root", [linked(1, 0, "InnerExceptions[0]"), linked(2, 0, "InnerExceptions[1]")], { ...root({ group: true }), exception_id: 3 }],
		] as const
	).map(
		([broken, [first, second], top]): GroupingCase => ({
			name: `AggregateException whose ids have ${broken} counts whole, as a chain without ids does`,
			same: true,
			a: values(
				{ ...httpError(), mechanism: first },
				{ ...httpError(), mechanism: second },
				exc("System.AggregateException", "One or more errors occurred.", waitAllFrames, top ?? root({ group: true })),
			),
			b: values(httpError(), httpError(), exc("System.AggregateException", "One or more errors occurred.", waitAllFrames)),
		}),
	),
	{
		name: "AggregateException with broken ids is not the inner error alone",
		same: false,
		a: values(
			{ ...httpError(), mechanism: linked(1, 0, "InnerExceptions[0]") },
			{ ...httpError(), mechanism: linked(1, 0, "InnerExceptions[1]") },
			exc("System.AggregateException", "One or more errors occurred.", waitAllFrames, root({ group: true })),
		),
		b: values(exc("System.Net.Http.HttpRequestException", "Connection refused (api.example.com:443)", fetchPricesFrames, root())),
	},

	// ---- one Node bug from @sentry/node and from @svcapp/logger -------------------------------
	{
		name: "a Node crash from @sentry/node and from @svcapp/logger, with other data",
		same: true,
		a: emptyCart(7, { type: "auto.node.onuncaughtexception", handled: false }),
		b: emptyCart(8, { type: "onuncaughtexception", handled: false, exception_id: 0 }),
	},
	{
		name: "a message with its stack from @sentry/node and from @svcapp/logger: the stack decides, not the text",
		same: true,
		a: stockMessage("A-1", "restock"),
		b: stockMessage("B-7", "restock", { exception_id: 0 }),
	},
	{
		name: "the same message captured with its stack at two call sites",
		same: false,
		a: stockMessage("A-1", "restock"),
		b: stockMessage("A-1", "recount"),
	},
	{
		name: "two messages captured in one function, on two lines: the capturing line tells them apart, as in Sentry",
		same: false,
		a: stockMessage("A-1", "restock"),
		b: stockMessage("A-1", "restock", {}, 'sdk.captureMessage("stock gone for " + sku, "error");'),
	},
	{
		name: "two messages captured in one function of a page (no lines of source): the text tells them apart",
		same: false,
		a: pageMessage("Cart is empty at checkout", "HTMLButtonElement.onclick"),
		b: pageMessage("Expired coupon used", "HTMLButtonElement.onclick"),
	},
	{
		name: "one message captured in a page with other numbers in it: one issue",
		same: true,
		a: pageMessage("Checkout took 3120 ms", "HTMLButtonElement.onclick"),
		b: pageMessage("Checkout took 912 ms", "HTMLButtonElement.onclick"),
	},

	// ---- one bug in JavaScript shared by Node and a page -------------------------------------
	// A JavaScript frame counts by its source file and function name; its module never, and its
	// line of source only when it has no name and was not loaded from a URL, as in Sentry (which
	// also counts it beside a name, having read the page's scripts: see fingerprint.test.ts).
	{
		name: "shared code: Node (module, lines of source) and Chrome (neither)",
		same: true,
		a: nodeCrash(nodeOrders()),
		b: pageCrash(chromeOrders()),
	},
	{
		name: "shared code: Node and Firefox (the frame that set the timer, the page's module code)",
		same: true,
		a: nodeCrash(nodeOrders()),
		b: pageCrash(firefoxOrders),
	},
	{
		name: "shared code: Node and Safari",
		same: true,
		a: nodeCrash(nodeOrders()),
		b: pageCrash(safariOrders),
	},
	{
		name: "shared code: Node and Chrome through @sentry/browser's wrapped timer (sentryWrapped)",
		same: true,
		a: nodeCrash(nodeOrders()),
		b: pageCrash([bf("https://shop.example.com/assets/sentry-browser.js", "sentryWrapped", 1, 8000), ...chromeOrders()]),
	},
	{
		name: "shared code: Node frames with and without module and lines of source",
		same: true,
		a: nodeCrash(nodeOrders()),
		b: nodeCrash(nodeOrders({ module: false, source: false })),
	},
	{
		name: "shared code: page frames with a module (as Sentry derives one from the URL) and without",
		same: true,
		a: pageCrash(chromeOrders(ORDERS_JS, { module: "assets/orders" })),
		b: pageCrash(chromeOrders()),
	},
	{
		name: "shared code: Node running the TypeScript build (dist/orders.mjs) and a page's content-hashed bundle",
		same: true,
		a: nodeCrash(nodeOrders({ file: "/srv/shop/dist/orders.mjs" })),
		b: pageCrash(chromeOrders("https://shop.example.com/assets/orders-8f3a2c1d.js?v=3")),
	},
	{
		name: "shared code: Node and a page's source-mapped frames (after symbolication)",
		same: true,
		a: nodeCrash(nodeOrders({ file: "/srv/shop/dist/orders.js" })),
		b: pageCrash([mappedOrderFrame("checkout", 5, CHECKOUT_LINE), mappedOrderFrame("submitOrder", 11, SUBMIT_LINE)]),
	},
	{
		name: "anonymous timer callback: Node's Timeout._onTimeout and a nameless source-mapped frame, one line of source",
		same: true,
		a: nodeCrash([...timerFrames, nodeOrderFrame("Timeout._onTimeout", 5, CHECKOUT_LINE), nodeOrderFrame("submitOrder", 11, SUBMIT_LINE)]),
		b: pageCrash([mappedOrderFrame(null, 5, CHECKOUT_LINE), mappedOrderFrame("submitOrder", 11, SUBMIT_LINE)]),
	},
	{
		name: "anonymous functions: two route handlers in one Node file differ in their lines of source",
		same: false,
		a: nodeCrash([
			{ filename: "/srv/app/node_modules/express/lib/router/layer.js", function: "Layer.handle [as handle_request]", lineno: 95, in_app: false },
			{ filename: "/srv/app/src/routes.js", module: "src:routes", lineno: 12, colno: 20, in_app: true, context_line: "\tres.json(cart.total.toFixed(2));" },
		]),
		b: nodeCrash([
			{ filename: "/srv/app/node_modules/express/lib/router/layer.js", function: "Layer.handle [as handle_request]", lineno: 95, in_app: false },
			{ filename: "/srv/app/src/routes.js", module: "src:routes", lineno: 30, colno: 20, in_app: true, context_line: "\tres.json(cart.items.map(describe));" },
		]),
	},
	{
		name: "anonymous functions: a nameless page frame's line of source (an inline script) does not count",
		same: true,
		a: pageCrash([{ ...bf("https://shop.example.com/checkout", "", 30, 5), context_line: "cart.total.toFixed(2);" }, ...chromeOrders()]),
		b: pageCrash([bf("https://shop.example.com/checkout", "", 30, 5), ...chromeOrders()]),
	},
	{
		name: "anonymous functions: a minified line over 120 characters in a nameless Node frame does not count",
		same: true,
		a: nodeCrash([{ filename: "/srv/app/dist/cart.js", lineno: 1, colno: 900, in_app: true, context_line: `var a=${"b+".repeat(70)}c;` }]),
		b: nodeCrash([{ filename: "/srv/app/dist/cart.js", lineno: 1, colno: 950, in_app: true, context_line: `var d=${"e*".repeat(70)}f;` }]),
	},
	{
		name: "shared code: distinct functions in one file stay apart (Node's submitOrder, a page's cancelOrder)",
		same: false,
		a: nodeCrash(nodeOrders()),
		b: pageCrash(chromeOrders().map((frame) => (frame.function === "submitOrder" ? { ...frame, function: "cancelOrder" } : frame))),
	},
	{
		name: "JavaScript: one function name in two files stays apart",
		same: false,
		a: nodeCrash([nodeOrderFrame("load", 3, "return db.get(id);")]),
		b: nodeCrash([nodeOrderFrame("load", 3, "return db.get(id);", { file: "/srv/shop/src/invoices.js", module: false })]),
	},
	{
		// Frameworks that route by file name: one route.ts, page.tsx or index.js per folder.
		name: "JavaScript: GET in the route.js of two folders stays apart (Node, dispatched from one file)",
		same: false,
		a: nodeCrash([nodeOrderFrame("dispatch", 9, "return handler(req);", { file: "/srv/shop/.next/server/app/dispatch.js" }), nodeOrderFrame("GET", 4, "return user.name;", { file: "/srv/shop/.next/server/app/api/users/route.js", module: false })]),
		b: nodeCrash([nodeOrderFrame("dispatch", 9, "return handler(req);", { file: "/srv/shop/.next/server/app/dispatch.js" }), nodeOrderFrame("GET", 4, "return user.name;", { file: "/srv/shop/.next/server/app/api/orders/route.js", module: false })]),
	},
	{
		name: "JavaScript: a function in the index.js of two folders stays apart, by module alone too",
		same: false,
		a: nodeCrash([{ module: "components.cart:index", function: "render", lineno: 3, in_app: true }]),
		b: nodeCrash([{ module: "components.checkout:index", function: "render", lineno: 3, in_app: true }]),
	},
	{
		name: "JavaScript: a page's route chunk from Chrome and the same route run by Node, its folder named alike",
		same: true,
		a: pageCrash([bf("https://shop.example.com/_next/static/chunks/app/users/page-8f3a2c1d.js", "UsersPage", 1, 300)]),
		b: nodeCrash([nodeOrderFrame("UsersPage", 1, "return <Users />;", { file: "/srv/shop/.next/server/app/users/page.js", module: false })]),
	},
	{
		// @sentry/cloudflare under `wrangler dev`: the Worker's bundle runs from a folder wrangler makes
		// afresh each start (`.wrangler/tmp/dev-` and six random characters), the SDK's module `index`.
		name: "JavaScript: a Worker's index.js from two runs of wrangler dev, each in its own temporary folder",
		same: true,
		a: pageCrash([{ ...workerFrame("dev-FBPqyx", "Object.fetch", 14056), module: "index" }, { ...workerFrame("dev-FBPqyx", "loadOrder", 14028), module: "index" }]),
		b: pageCrash([{ ...workerFrame("dev-gSfEPI", "Object.fetch", 14061), module: "index" }, { ...workerFrame("dev-gSfEPI", "loadOrder", 14033), module: "index" }]),
	},

	// ---- low-quality JavaScript frames (Sentry: "ignored low quality javascript frame") ------
	{
		name: "one bug in Chrome and Safari: <anonymous>, [native code], eval and eval code frames",
		same: true,
		a: cartTypeError("Cannot read properties of undefined (reading 'price')", chromeStack()),
		b: cartTypeError("undefined is not an object (evaluating 'item.price')", safariStack),
	},
	{
		name: "one bug in Chrome and Firefox: Firefox shows no native frames, names eval'd code eval",
		same: true,
		a: cartTypeError("Cannot read properties of undefined (reading 'price')", chromeStack()),
		b: cartTypeError(`can't access property "price", item is undefined`, firefoxStack),
	},
	{
		name: "one bug served over https and from the app bundle of a desktop build (app:///)",
		same: true,
		a: cartTypeError("Cannot read properties of undefined (reading 'price')", chromeStack()),
		b: cartTypeError("Cannot read properties of undefined (reading 'price')", chromeStack("app:///assets/app-1b2c3d4e.js")),
	},
	{
		name: "an eval frame claiming a module does not count",
		same: true,
		a: fromBrowser(values(exc("Error", "template failed", [bf(APP_JS, "render", 1, 10), bf(APP_JS, "lineTotal", 1, 20)]))),
		b: fromBrowser(values(exc("Error", "template failed", [bf(APP_JS, "render", 1, 10), { ...bf(APP_JS, "eval", 4, 2), module: "assets/templates" }, bf(APP_JS, "lineTotal", 1, 20)]))),
	},
	{
		name: "stacks that differ in an app frame stay apart across browsers",
		same: false,
		a: cartTypeError("Cannot read properties of undefined (reading 'price')", chromeStack()),
		b: cartTypeError("undefined is not an object (evaluating 'item.price')", safariStack.map((frame) => (frame.function === "lineTotal" ? { ...frame, function: "shippingTotal" } : frame))),
	},

	// ---- built-in rules (Sentry: built-in fingerprinting rules, chunkload_errors) ------------
	{
		name: "ChunkLoadError: different chunks and stacks, and the client's own fingerprint, are one issue",
		same: true,
		a: {
			...values(exc("ChunkLoadError", "Loading chunk 123 failed.\n(error: https://shop.example.com/static/js/123.8f3a2c1d.chunk.js)", [bf(APP_JS, "loadCheckout", 1, 500)])),
			fingerprint: ["{{ default }}", "checkout"],
		},
		b: {
			...values(exc("ChunkLoadError", "Loading chunk 7 failed.\n(timeout: https://shop.example.com/static/js/7.0b7e44fa.chunk.js)", [bf(APP_JS, "openAccount", 1, 900)])),
			fingerprint: ["account-page"],
		},
	},
	{
		name: "Loading chunk failed with its type lost, as a rejection reason or an onerror message",
		same: true,
		a: values(exc("Error", "Loading chunk 42 failed.\n(missing: https://shop.example.com/static/js/42.js)", [bf(APP_JS, "n.e", 1, 77)])),
		b: { message: "Uncaught ChunkLoadError: Loading chunk 9 failed." },
	},
	{
		name: "Loading CSS chunk failed is in the same family",
		same: true,
		a: fromBrowser(values(exc("Error", "Loading CSS chunk 3 failed.\n(/static/css/3.a1b2c3d4.chunk.css)", []))),
		b: fromBrowser(values(exc("ChunkLoadError", "Loading chunk 3 failed.", []))),
	},
	{
		name: "a ChunkLoadError and a failed dynamic import are different issues",
		same: false,
		a: fromBrowser(values(exc("ChunkLoadError", "Loading chunk 7 failed.", [bf(APP_JS, "openAccount", 1, 900)]))),
		b: fromBrowser(values(exc("TypeError", "Failed to fetch dynamically imported module: https://shop.example.com/assets/Account-1a2b3c4d.js", [bf(APP_JS, "openAccount", 1, 900)]))),
	},

	// ---- frames that identify nothing --------------------------------------------------------
	{
		name: "the Sentry SDK's sentryWrapped frame around a listener does not count",
		same: true,
		a: fromBrowser(values(exc("Error", "save failed", [bf(APP_JS, "dispatch", 1, 300), bf(APP_JS, "sentryWrapped", 1, 8000), bf(APP_JS, "onSave", 1, 420)]))),
		b: fromBrowser(values(exc("Error", "save failed", [bf(APP_JS, "dispatch", 1, 300), bf(APP_JS, "onSave", 1, 420)]))),
	},
	{
		name: "with no in-app frames, the Sentry SDK's own frames do not count",
		same: true,
		a: fromNode(values(
			exc("Error", "socket hang up", [
				{ filename: "/srv/app/node_modules/@sentry/core/build/cjs/utils/handleCallbackErrors.js", function: "handleCallbackErrors", lineno: 26, in_app: false },
				{ filename: "/srv/app/node_modules/undici/lib/dispatcher/client-h1.js", function: "onHttpSocketClose", lineno: 1011, in_app: false },
			]),
		)),
		b: fromNode(values(exc("Error", "socket hang up", [{ filename: "/srv/app/node_modules/undici/lib/dispatcher/client-h1.js", function: "onHttpSocketClose", lineno: 1011, in_app: false }]))),
	},
	{
		name: "with no in-app frames, the logger's own Node build (linked from a workspace) does not count",
		same: true,
		a: fromNode(values(
			exc("Error", "socket hang up", [
				{ filename: "/srv/app/packages/logger/dist/svc-logger.node.js", module: "svc-logger.node", function: "post", lineno: 310, in_app: false },
				{ filename: "/srv/app/node_modules/undici/lib/dispatcher/client-h1.js", function: "onHttpSocketClose", lineno: 1011, in_app: false },
			]),
		)),
		b: fromNode(values(exc("Error", "socket hang up", [{ filename: "/srv/app/node_modules/undici/lib/dispatcher/client-h1.js", function: "onHttpSocketClose", lineno: 1011, in_app: false }]))),
	},
	{
		name: "a worker started from a blob: URL: a new URL every page load",
		same: true,
		a: fromBrowser(values(exc("RangeError", "Invalid array length", [bf("blob:https://shop.example.com/3f2b8c1e-9d4a-4b7e-8f21-0c9e5a7d6b13", "resize", 1, 88)]))),
		b: fromBrowser(values(exc("RangeError", "Invalid array length", [bf("blob:https://shop.example.com/a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d", "resize", 1, 88)]))),
	},
	{
		name: "an inline script reported as the bare page URL, on two host names",
		same: true,
		a: fromBrowser(values(exc("ReferenceError", "gtag is not defined", [bf("https://shop.example.com/", "?", 12, 5), bf(APP_JS, "trackPurchase", 1, 600)]))),
		b: fromBrowser(values(exc("ReferenceError", "gtag is not defined", [bf("https://www.shop.example.com", "?", 14, 5), bf(APP_JS, "trackPurchase", 1, 600)]))),
	},
	{
		name: "Flutter: other Dart SDK, Flutter framework and sentry_flutter frames around the same app frame",
		same: true,
		a: values(exc("NoSuchMethodError", "The getter 'price' was called on null.", flutterStack("StatelessElement.build", 1525))),
		b: values(exc("NoSuchMethodError", "The getter 'price' was called on null.", flutterStack("ComponentElement.performRebuild", 1391))),
	},
	{
		name: "Flutter: different app frames stay apart",
		same: false,
		a: values(exc("NoSuchMethodError", "The getter 'price' was called on null.", flutterStack("StatelessElement.build", 1525))),
		b: values(
			exc(
				"NoSuchMethodError",
				"The getter 'price' was called on null.",
				flutterStack("StatelessElement.build", 1525).map((frame) => (frame.function === "_CartPageState.build" ? { ...frame, function: "_CheckoutPageState.build", abs_path: "package:shop/checkout/checkout_page.dart" } : frame)),
			),
		),
	},
	{
		// The outer block of `with_options do after_commit do … end end` ran when the class loaded: only the label says it.
		name: "Ruby: a block is `block`, as in Sentry: a callback block before and after it moved into a `with_options` block",
		same: true,
		a: rubyDeclined(activeSupportCallback, rubyFrame("block in <class:Order>", 12, "charge!(total)")),
		b: rubyDeclined(activeSupportCallback, rubyFrame("block (2 levels) in <class:Order>", 12, "charge!(total)")),
	},
	{
		name: "Ruby: different lines in blocks of one method stay apart",
		same: false,
		a: rubyDeclined(rubyFrame("pay", 10, "items.each do |item|"), rubyFrame("block in pay", 12, "charge!(item.price)")),
		b: rubyDeclined(rubyFrame("pay", 10, "items.each do |item|"), rubyFrame("block in pay", 14, "refund!(item.price)")),
	},
];
