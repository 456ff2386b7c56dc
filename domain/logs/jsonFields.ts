/**
 * Reading a JSON body field by field: own members only, the documented type or a 400 naming the
 * field, every string capped, and free-form values copied with bounded depth and width.
 */
import { InvalidInput } from "../errors";
import { LOG_STORAGE_BOUNDS } from "../limits";
import { cutText } from "../text";

export type Json = Record<string, unknown>;

/** A field of the wrong shape, by its path (`user.id`); the error names the body's member it is in. */
export function bad(path: string, problem: string): InvalidInput {
	const field = { member: path.split(".")[0], problem: `${path} ${problem}` };
	return new InvalidInput(`Invalid log event: ${field.problem}`, field);
}

export const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Own members only: a body's `constructor` or `__proto__` is data, never something inherited. */
export const member = (object: Json, key: string): unknown => (Object.hasOwn(object, key) ? object[key] : undefined);

/** A string field: absent/null → undefined, wrong type → 400, else capped. */
export function stringField(object: Json, key: string, path: string, max: number, opts: { numbers?: boolean } = {}): string | undefined {
	const value = member(object, key);
	if (value === undefined || value === null) return undefined;
	if (opts.numbers && (typeof value === "number" || typeof value === "boolean") && Number.isFinite(Number(value))) {
		return cutText(String(value), max);
	}
	if (typeof value !== "string") throw bad(`${path}${key}`, "must be a string");
	return cutText(value, max);
}

/** For entries of lists and maps: a string (numbers and booleans written as strings), else undefined. */
export function looseString(value: unknown, max: number): string | undefined {
	if (typeof value === "string") return cutText(value, max);
	if (typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value))) return String(value);
	return undefined;
}

export function objectField(object: Json, key: string, path: string): Json | undefined {
	const value = member(object, key);
	if (value === undefined || value === null) return undefined;
	if (!isObject(value)) throw bad(`${path}${key}`, "must be an object");
	return value;
}

export function arrayField(object: Json, key: string, path: string): unknown[] | undefined {
	const value = member(object, key);
	if (value === undefined || value === null) return undefined;
	if (!Array.isArray(value)) throw bad(`${path}${key}`, "must be an array");
	return value;
}

/** A copy of free-form JSON with bounded depth, width and string length; cut parts are dropped. */
export function boundedJson(value: unknown, depth = 0): unknown {
	if (typeof value === "string") return cutText(value, LOG_STORAGE_BOUNDS.jsonString);
	if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
	if (typeof value === "boolean" || value === null) return value;
	if (depth >= LOG_STORAGE_BOUNDS.jsonDepth) return undefined;
	if (Array.isArray(value)) {
		return value
			.slice(0, LOG_STORAGE_BOUNDS.jsonMembers)
			.map((item) => boundedJson(item, depth + 1))
			.filter((item) => item !== undefined);
	}
	if (isObject(value)) {
		const entries: [string, unknown][] = [];
		for (const [key, item] of Object.entries(value)) {
			if (entries.length >= LOG_STORAGE_BOUNDS.jsonMembers) break;
			if (key.length > LOG_STORAGE_BOUNDS.tagKey || !key.isWellFormed()) continue;
			const copy = boundedJson(item, depth + 1);
			if (copy !== undefined) entries.push([key, copy]);
		}
		// fromEntries defines own members, so a "__proto__" key stays plain data.
		return Object.fromEntries(entries);
	}
	return undefined;
}
