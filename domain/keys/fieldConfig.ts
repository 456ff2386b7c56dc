import { z } from "zod";
import { FIELD_TYPES, type FieldDefinition } from "../api/keys";
import { isNameText, NAME_TEXT_RULE } from "../text";

/** Names that submissions use for other things and so cannot be configured fields. */
const RESERVED_KEYS = new Set(["type", "__proto__", "constructor", "prototype"]);

const fieldDefinitionSchema = z
	.strictObject({
		key: z
			.string()
			.regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, "must start with a letter and hold at most 64 letters, digits, _ or -")
			.refine((key) => !RESERVED_KEYS.has(key), "is reserved"),
		label: z.string().trim().min(1, "must not be empty").max(200, "at most 200 characters").refine(isNameText, NAME_TEXT_RULE),
		type: z.enum(FIELD_TYPES),
		required: z.boolean().default(false),
		options: z
			.array(z.string().trim().min(1, "must not be empty").max(200, "at most 200 characters").refine(isNameText, NAME_TEXT_RULE))
			.min(1, "a select field needs options")
			.max(100, "at most 100 options")
			.optional(),
	})
	.superRefine((field, ctx) => {
		if (field.type === "select" && !field.options) {
			ctx.addIssue({ code: "custom", path: ["options"], message: "a select field needs options" });
		}
		if (field.type !== "select" && field.options) {
			ctx.addIssue({ code: "custom", path: ["options"], message: "only select fields take options" });
		}
	});

export const fieldConfigSchema = z
	.array(fieldDefinitionSchema)
	.max(50, "at most 50 fields")
	.superRefine((fields, ctx) => {
		const seen = new Set<string>();
		fields.forEach((field, index) => {
			if (seen.has(field.key)) ctx.addIssue({ code: "custom", path: [index, "key"], message: `duplicate key ${field.key}` });
			seen.add(field.key);
		});
	}) satisfies z.ZodType<FieldDefinition[]>;

export const DEFAULT_ISSUE_FIELDS: FieldDefinition[] = [
	{ key: "title", label: "Title", type: "text", required: true },
	{ key: "description", label: "Description", type: "long_text", required: true },
	{ key: "email", label: "Email", type: "email", required: false },
	{ key: "screenshots", label: "Screenshots", type: "attachment", required: false },
];

export const DEFAULT_FEATURE_FIELDS: FieldDefinition[] = [
	{ key: "title", label: "Title", type: "text", required: true },
	{ key: "description", label: "Description", type: "long_text", required: false },
	{ key: "email", label: "Email", type: "email", required: false },
];
