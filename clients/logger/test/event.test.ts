import { runInNewContext } from "node:vm";
import { describe, it } from "vitest";
import { cut, debugImages, exceptionChain, MAX_TEXT } from "../src/event";

const uncaught = { type: "onerror", handled: false };

describe("the exception part of an event", () => {
	it("sends a cause chain as a chain: the reported error last, each link pointing at its holder", ({ expect }) => {
		const root = new Error("connect ECONNREFUSED 127.0.0.1:5432");
		const middle = new Error("query failed", { cause: root });
		const outer = new TypeError("could not load the order", { cause: middle });
		const chain = exceptionChain(outer, uncaught);
		expect(chain.map(({ type, value }) => `${type}: ${value}`)).toEqual([
			"Error: connect ECONNREFUSED 127.0.0.1:5432",
			"Error: query failed",
			"TypeError: could not load the order",
		]);
		expect(chain.map((e) => e.mechanism)).toEqual([
			{ type: "chained", handled: false, exception_id: 2, parent_id: 1, source: "cause" },
			{ type: "chained", handled: false, exception_id: 1, parent_id: 0, source: "cause" },
			{ type: "onerror", handled: false, exception_id: 0 },
		]);
		expect(chain.at(-1)?.stacktrace?.frames.at(-1)?.filename).toMatch(/event\.test\.ts$/);
	});

	it("sends an AggregateError as a group with its members", ({ expect }) => {
		const group = new AggregateError([new RangeError("quantity -1"), "not an error"], "2 line items are invalid");
		const chain = exceptionChain(group, uncaught);
		expect(chain.map((e) => [e.type, e.mechanism.exception_id, e.mechanism.parent_id, e.mechanism.source])).toEqual([
			["Error", 2, 0, "errors[1]"],
			["RangeError", 1, 0, "errors[0]"],
			["AggregateError", 0, undefined, undefined],
		]);
		expect(chain.at(-1)?.mechanism.is_exception_group).toBe(true);
	});

	it("stops at a cycle, and after 10 links", ({ expect }) => {
		const a = new Error("a");
		const b = new Error("b", { cause: a });
		(a as Error & { cause: unknown }).cause = b;
		expect(exceptionChain(a, uncaught).map((e) => e.value)).toEqual(["b", "a"]);

		let error = new Error("link 0");
		for (let i = 1; i <= 10; i++) error = new Error(`link ${i}`, { cause: error });
		const chain = exceptionChain(error, uncaught);
		expect(chain).toHaveLength(10);
		expect(chain.at(-1)?.value).toBe("link 10");
		expect(chain.at(0)?.value).toBe("link 1");
	});

	it("reads errors from another realm (an iframe, node:vm), which are not instanceof Error", ({ expect }) => {
		const foreign = runInNewContext("(() => { try { null.total } catch (e) { return e } })()", {}, { filename: "/srv/app/sandbox.js" });
		expect(foreign instanceof Error).toBe(false);
		const [exception] = exceptionChain(foreign, uncaught);
		expect(exception.type).toBe("TypeError");
		expect(exception.value).toBe("Cannot read properties of null (reading 'total')");
		expect(exception.stacktrace?.frames.at(-1)).toMatchObject({ filename: "/srv/app/sandbox.js", lineno: 1, in_app: true });
	});

	it("takes the error's own name, as subclasses set it", ({ expect }) => {
		class ValidationError extends Error {
			override name = "ValidationError";
		}
		expect(exceptionChain(new ValidationError("email is required"), uncaught)[0]).toMatchObject({ type: "ValidationError", value: "email is required" });
	});

	it("describes thrown values that are not errors", ({ expect }) => {
		const circular: Record<string, unknown> = { code: 42 };
		circular.self = circular;
		const values = ["plain text", { code: 42 }, circular, undefined, null, 7].map((thrown) => exceptionChain(thrown, uncaught)[0]);
		expect(values.map(({ type, value, stacktrace }) => [type, value, stacktrace])).toEqual([
			["Error", "plain text", undefined],
			["Error", '{"code":42}', undefined],
			["Error", "[object Object]", undefined],
			["Error", "undefined", undefined],
			["Error", "null", undefined],
			["Error", "7", undefined],
		]);
	});

	it("cuts values to the endpoint's 8,192 characters", ({ expect }) => {
		expect(exceptionChain(new Error("x".repeat(MAX_TEXT)), uncaught)[0].value).toHaveLength(MAX_TEXT);
		expect(exceptionChain(new Error("x".repeat(MAX_TEXT + 1)), uncaught)[0].value).toHaveLength(MAX_TEXT);
	});
});

describe("debug ids", () => {
	const registry = globalThis as { _sentryDebugIds?: Record<string, string> };

	it("names the debug ids `sentry-cli sourcemaps inject` recorded for the scripts the exception ran in", ({ expect }) => {
		const error = new TypeError("cannot submit an empty cart");
		// What an injected script records: a stack taken inside it, and its id.
		registry._sentryDebugIds = {
			[new Error().stack ?? ""]: "e1e8570f-7c42-515d-a5d5-d407b0da4295",
			"Error\n    at https://cdn.example/other.js:1:99": "3f2b8c1e-0d4a-4c5e-9a7b-1c2d3e4f5a6b",
		};
		try {
			const values = exceptionChain(error, uncaught);
			const file = values.at(-1)?.stacktrace?.frames.at(-1)?.filename;
			expect(file).toMatch(/event\.test\.ts$/);
			// The other script is not in the stack: it is not named.
			expect(debugImages(values)).toEqual([{ type: "sourcemap", code_file: file, debug_id: "e1e8570f-7c42-515d-a5d5-d407b0da4295" }]);
		} finally {
			delete registry._sentryDebugIds;
		}
	});

	it("names none without injected scripts", ({ expect }) => {
		expect(debugImages(exceptionChain(new Error("x"), uncaught))).toEqual([]);
	});
});

describe("cut", () => {
	it.for([
		["at the limit", "a".repeat(5), 5, "a".repeat(5)],
		["one past", "a".repeat(6), 5, "a".repeat(5)],
		["an emoji across the cut is left out whole", "aaaa😀", 5, "aaaa"],
		["an emoji that fits is kept", "aaa😀b", 5, "aaa😀"],
	] as const)("%s", ([, text, max, expected], { expect }) => {
		expect(cut(text, max)).toBe(expected);
	});
});
