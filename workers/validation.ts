import type { z } from "zod";
import { HttpError } from "./http";

/** Validates at the edge: a zod failure becomes a 400 naming each offending field. */
export function parseBody<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
	const result = schema.safeParse(data);
	if (result.success) return result.data;
	const problems = result.error.issues.map((issue) => {
		const path = issue.path.join(".");
		return path ? `${path}: ${issue.message}` : issue.message;
	});
	throw new HttpError(400, `Invalid request: ${problems.slice(0, 10).join("; ")}`);
}
