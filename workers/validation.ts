import { z } from "zod";
import { HttpError } from "./http";

/**
 * A value of the wrong type, by the type its field expects (zod's `expected`), in words that follow
 * the field's name. `int` is a number with a fraction where a whole number is expected: "must be a
 * number" would not say what is wrong with 1.5. A type not here keeps zod's words.
 */
const TYPE_WORDS: ReadonlyMap<string, string> = new Map([
	["string", "must be text"],
	["boolean", "must be true or false"],
	["number", "must be a number"],
	["int", "must be a whole number"],
	["object", "must be an object"],
	["array", "must be a list"],
]);

/**
 * The API's words where zod's own are about types and symbols: a field left out `is required`
 * (not `expected string, received undefined`), a value of the wrong type `must be text` (not
 * `Invalid input: expected string, received number`), a bound `must be at most 200 characters`
 * (not `Too big: expected string to have <=200 characters`). A schema's own message comes first:
 * zod asks the schema's `error` before this map, given at the parse.
 */
const plainWords: z.core.$ZodErrorMap = (issue) => {
	if ((issue.code === "invalid_type" || issue.code === "invalid_value") && issue.input === undefined) return "is required";
	if (issue.code === "invalid_type") return TYPE_WORDS.get(issue.expected);
	if (issue.code === "invalid_value" && issue.values.length > 1) return `must be one of ${issue.values.join(", ")}`;
	if (issue.code !== "too_big" && issue.code !== "too_small") return undefined;
	const big = issue.code === "too_big";
	const bound = Number(big ? issue.maximum : issue.minimum);
	if (issue.origin === "string") return !big && bound === 1 ? "must not be empty" : `must be ${big ? "at most" : "at least"} ${bound} characters`;
	if (issue.origin === "array" || issue.origin === "set") return `must hold ${big ? "at most" : "at least"} ${bound} ${bound === 1 ? "item" : "items"}`;
	if (issue.origin === "number" || issue.origin === "int") {
		return issue.inclusive === false ? `must be ${big ? "less" : "greater"} than ${bound}` : `must be ${big ? "at most" : "at least"} ${bound}`;
	}
	return undefined;
};

/** Validates at the edge: a zod failure becomes a 400 naming each offending field. */
export function parseBody<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
	const result = schema.safeParse(data, { error: plainWords });
	if (result.success) return result.data;
	const problems = result.error.issues.map((issue) => {
		const path = issue.path.join(".");
		return path ? `${path}: ${issue.message}` : issue.message;
	});
	throw new HttpError(400, `Invalid request: ${problems.slice(0, 10).join("; ")}`);
}

function namedFields<Shape extends z.ZodRawShape>(shape: Shape, what: "parameter" | "member") {
	return z.strictObject(shape, { error: (issue) => (issue.code === "unrecognized_keys" ? `unknown ${what} ${issue.keys.join(", ")}` : undefined) });
}

/** A query's parameters: any other parameter (a misspelt filter) is a 400 that names it, not silently ignored. */
export const queryParams = <Shape extends z.ZodRawShape>(shape: Shape) => namedFields(shape, "parameter");

/** A JSON body's members: any other member (a misspelt option, `ignore_for_minute`) is a 400 that names it, not silently ignored. */
export const bodyMembers = <Shape extends z.ZodRawShape>(shape: Shape) => namedFields(shape, "member");

/** One text parameter: given twice (`?page=/a&page=/b`) it is a 400 that says so. */
export const queryText = () =>
	z.string({ error: (issue) => (issue.input === undefined ? "is required" : Array.isArray(issue.input) ? "must be given once" : "must be text") });

/** One of `values`: given twice, or anything else, is a 400 that says which. */
export const queryChoice = <T extends readonly [string, ...string[]]>(values: T) =>
	z.enum(values, { error: (issue) => (Array.isArray(issue.input) ? "must be given once" : `must be one of ${values.join(", ")}`) });

/** A path parameter as its client URL-encoded it (`web%401.2.0`): a 400 naming it when it is not valid encoding. */
export function decodedParam(value: string, name: string): string {
	try {
		return decodeURIComponent(value);
	} catch {
		throw new HttpError(400, `Invalid request: ${name}: is not valid URL encoding`);
	}
}

/** `?limit=`: a whole number from 1 to `max`, written in digits. */
export const limitParam = (max: number) => {
	const message = `must be a whole number from 1 to ${max}`;
	return queryText()
		.regex(/^\d{1,9}$/, message)
		.transform(Number)
		.refine((n) => n >= 1 && n <= max, message);
};
