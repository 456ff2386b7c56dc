import { describe, it } from "vitest";
import { jsonArraysOf, packJsonArrays } from "../domain/jsonRows";

/**
 * Rows bound as one JSON array per statement stay under ~1 MB of UTF-8 each, far from the 2 MB a
 * bound value may hold in D1 and in a Durable Object's SQLite: the D1 batches and the site
 * collector's outbox both rely on it.
 */
const LIMIT = 1_000_000;
const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;
/** A JSON string object of exactly `bytes` bytes of UTF-8, written with `char`. */
const objectOf = (bytes: number, char = "a") => JSON.stringify(char.repeat((bytes - 2) / utf8Bytes(char)));

describe("packJsonArrays", () => {
	// An array's bytes: its brackets, each object and a comma after each (one more than it needs).
	it("keeps two objects in one array at the limit, and puts them in two one byte past it", ({ expect }) => {
		const first = objectOf(500_000);
		const atLimit = packJsonArrays([first, objectOf(LIMIT - 2 - 500_001 - 1)]);
		expect(atLimit).toHaveLength(1);
		expect(utf8Bytes(atLimit[0])).toBe(LIMIT - 1);
		expect(atLimit[0].startsWith(`[${first},`)).toBe(true);

		const past = packJsonArrays([first, objectOf(LIMIT - 2 - 500_001)]);
		expect(past).toHaveLength(2);
		expect(past.map((array) => JSON.parse(array).length)).toEqual([1, 1]);
	});

	it("counts UTF-8 bytes, not characters: two-byte characters fill an array at half the count", ({ expect }) => {
		const arrays = packJsonArrays(Array.from({ length: 4 }, () => objectOf(300_000, "é")));
		expect(arrays.map((array) => JSON.parse(array).length)).toEqual([3, 1]);
		for (const array of arrays) expect(utf8Bytes(array)).toBeLessThan(LIMIT);
	});

	it("never splits an object: one larger than the limit goes alone", ({ expect }) => {
		const arrays = packJsonArrays([objectOf(10), objectOf(LIMIT + 10), objectOf(10)]);
		expect(arrays.map((array) => JSON.parse(array).length)).toEqual([1, 1, 1]);
	});

	it("packs rows as they are and gives them back in order", ({ expect }) => {
		const rows = Array.from({ length: 5_000 }, (_, i) => ["event", `id-${i}`, { path: `/p/${"x".repeat(300)}`, i }]);
		const arrays = jsonArraysOf(rows);
		expect(arrays.length).toBeGreaterThan(1);
		expect(arrays.flatMap((array) => JSON.parse(array))).toEqual(rows);
		for (const array of arrays) expect(utf8Bytes(array)).toBeLessThan(LIMIT);
	});
});
