/**
 * Many rows per D1 statement. D1 binds at most 100 parameters per statement, so a multi-row
 * VALUES list holds only a few rows; instead a statement binds one JSON array and unpacks it with
 * `json_each`, and one statement of fifty rows costs what one row does. Each array stays under
 * ~1 MB of UTF-8, far from D1's 2 MB limit on a bound value and on a statement.
 */
const MAX_ARRAY_BYTES = 1_000_000;

function utf8Length(text: string): number {
	let bytes = 0;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : 3; // a surrogate pair counts 3 + 3 ≥ its 4
	}
	return bytes;
}

/** JSON objects (as text) packed into JSON arrays of at most `maxBytes` each; an object is never split. */
export function packJsonArrays(objects: string[], maxBytes = MAX_ARRAY_BYTES): string[] {
	const arrays: string[] = [];
	let current: string[] = [];
	let bytes = 2;
	for (const object of objects) {
		const size = utf8Length(object) + 1;
		if (current.length > 0 && bytes + size > maxBytes) {
			arrays.push(`[${current.join(",")}]`);
			current = [];
			bytes = 2;
		}
		current.push(object);
		bytes += size;
	}
	if (current.length > 0) arrays.push(`[${current.join(",")}]`);
	return arrays;
}

/** Rows as JSON arrays for `json_each`, packed as above. */
export const jsonArraysOf = (rows: unknown[]) => packJsonArrays(rows.map((row) => JSON.stringify(row)));

/**
 * A field of a row packed as an array of its columns in order (faster for SQLite to read than an
 * object's member, and a smaller batch): `value ->> <its index>`, `from` naming the json_each alias.
 */
export function columnField<K>(columns: ReadonlyArray<readonly [column: string, key: K]>, key: K, from = ""): string {
	return `${from ? `${from}.` : ""}value ->> ${columns.findIndex(([, k]) => k === key)}`;
}
