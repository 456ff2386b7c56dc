/**
 * The `cursor` of an owner list (feedback, issues): the position of a page's last record, opaque to
 * clients. It is that record's sort values joined by ":" in URL-safe base64 without padding, so
 * it goes in a query string as it is.
 */
import { z } from "zod";

export const encodeCursor = (parts: Array<string | number>) =>
	btoa(parts.join(":")).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

function decodeCursor(cursor: string): string | null {
	try {
		return atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
	} catch {
		return null;
	}
}

/**
 * The `cursor` parameter, read into a position by `read` from the match of `pattern` on its
 * decoded text; anything not of the form this API gives out is a 400 that names the cursor. A
 * cursor of that form is only a position, so one the API never gave out reads the page after it.
 */
export function cursorSchema<T>(pattern: RegExp, read: (match: RegExpExecArray) => T) {
	return z
		.string()
		.max(200)
		.transform((cursor, ctx) => {
			const text = decodeCursor(cursor);
			const match = text === null ? null : pattern.exec(text);
			if (match) return read(match);
			ctx.addIssue({ code: "custom", message: "is not a cursor of this list" });
			return z.NEVER;
		});
}
