import striptags from "striptags";
import { z } from "zod";
import type { FieldDefinition } from "../api/keys";
import { EMAIL_MAX_CHARS, FEEDBACK_LIMITS } from "../limits";
import { cutText } from "../text";
import type { FeedbackType } from "./typesAndStatuses";

interface Image {
	field: string;
	contentType: string;
	bytes: Uint8Array;
}

export type Submission =
	| { ok: true; type: FeedbackType; data: Record<string, unknown>; images: Image[] }
	| { ok: false; error: string; fields: string[] };

const isBlank = (value: unknown) =>
	value === undefined ||
	value === null ||
	(typeof value === "string" && value.trim() === "") ||
	(Array.isArray(value) && value.length === 0);

/** Strings, booleans and finite numbers: JSON's 1e999 is Infinity, which storage would turn into null. */
const isScalar = (value: unknown): value is string | number | boolean =>
	typeof value === "string" || (typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean";

const emailSchema = z.email();

/** Why a configured value is unusable, or its stored form. */
type Coerced = { value: unknown } | { invalid: string };

function coerceConfigured(field: FieldDefinition, value: unknown): Coerced {
	switch (field.type) {
		case "text":
		case "long_text": {
			if (!isScalar(value)) return { invalid: "must be text" };
			const limit = field.type === "text" ? FEEDBACK_LIMITS.text : FEEDBACK_LIMITS.longText;
			return { value: cutText(String(value), limit) };
		}
		case "email": {
			const email = typeof value === "string" ? value.trim() : "";
			return email.length <= EMAIL_MAX_CHARS && emailSchema.safeParse(email).success ? { value: email } : { invalid: "must be a valid email address" };
		}
		case "url": {
			const url = typeof value === "string" ? value.trim() : "";
			const parsed = url.length <= FEEDBACK_LIMITS.url && url.isWellFormed() ? URL.parse(url) : null;
			return parsed && (parsed.protocol === "http:" || parsed.protocol === "https:")
				? { value: url }
				: { invalid: "must be a valid http(s) URL" };
		}
		case "number": {
			const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
			return typeof number === "number" && Number.isFinite(number) ? { value: number } : { invalid: "must be a number" };
		}
		case "boolean": {
			if (typeof value === "boolean") return { value };
			if (value === "true" || value === "false") return { value: value === "true" };
			return { invalid: "must be true or false" };
		}
		case "select": {
			const options = field.options ?? [];
			const chosen = Array.isArray(value) ? value : [value];
			return chosen.every((option) => typeof option === "string" && options.includes(option))
				? { value }
				: { invalid: `must be one of: ${options.join(", ")}` };
		}
		case "attachment":
			throw new Error("attachments are decoded by decodeImages");
	}
}

const IMAGE_TYPES = ["png", "jpeg", "webp"] as const;
type ImageType = (typeof IMAGE_TYPES)[number];

const DATA_URI = new RegExp(`^data:image/(${IMAGE_TYPES.join("|")});base64,([A-Za-z0-9+/]*={0,2})$`);

/** Magic numbers: a data URI that claims PNG must hold a PNG. */
const looksLike: Record<ImageType, (b: Uint8Array) => boolean> = {
	png: (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47,
	jpeg: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
	webp: (b) =>
		String.fromCharCode(b[0], b[1], b[2], b[3]) === "RIFF" && String.fromCharCode(b[8], b[9], b[10], b[11]) === "WEBP",
};

/** The accepted image type the bytes are, by their magic number; undefined for anything else. */
const imageTypeOf = (bytes: Uint8Array) => IMAGE_TYPES.find((type) => looksLike[type](bytes));

/**
 * Up to 5 images from an attachment field's values. Values that are not image data URIs of an
 * accepted type, whose base64 is too long, malformed, or whose bytes are not that image type
 * are skipped, not refused: a broken screenshot should not lose the report.
 */
function decodeImages(field: string, value: unknown): Image[] {
	const images: Image[] = [];
	for (const candidate of Array.isArray(value) ? value : [value]) {
		if (images.length === FEEDBACK_LIMITS.imagesPerField) break;
		if (typeof candidate !== "string") continue;
		const base64Start = candidate.indexOf(",") + 1;
		if (candidate.length - base64Start > FEEDBACK_LIMITS.imageBase64Chars) continue;
		const match = DATA_URI.exec(candidate);
		if (!match || match[2].length === 0) continue;
		let bytes: Uint8Array;
		try {
			bytes = Uint8Array.from(atob(match[2]), (c) => c.charCodeAt(0));
		} catch {
			continue;
		}
		if (imageTypeOf(bytes) !== match[1]) continue;
		images.push({ field, contentType: `image/${match[1]}`, bytes });
	}
	return images;
}

/**
 * Up to 5 images from files sent as they are (a Sentry feedback widget's screenshot), their type
 * told by their bytes; files of another kind are skipped. The Worker bounds their bytes.
 */
function imagesOfFiles(field: string, files: Uint8Array[]): Image[] {
	const images: Image[] = [];
	for (const bytes of files) {
		if (images.length === FEEDBACK_LIMITS.imagesPerField) break;
		const type = imageTypeOf(bytes);
		if (type) images.push({ field, contentType: `image/${type}`, bytes });
	}
	return images;
}

/**
 * What of a parsed body `readSubmission` reads: its values, and the elements of its arrays (a
 * select's choices, an attachment's images), with every object or array below them as `{}`.
 * Nothing deeper is ever stored, and `{}` gets the answer any object there gets (refused where a
 * configured value belongs, skipped as an image, dropped as an extra field), so every answer is
 * the same. The Worker hands this to the key's object: a body nested thousands deep overflowed
 * the stack of the call that carries it.
 */
export function readableBody(body: Record<string, unknown>): Record<string, unknown> {
	const shallow = (value: unknown) => (value !== null && typeof value === "object" ? {} : value);
	// fromEntries defines each key as the body's own, __proto__ included, as JSON.parse did.
	return Object.fromEntries(Object.entries(body).map(([key, value]) => [key, Array.isArray(value) ? value.map(shallow) : shallow(value)]));
}

/**
 * Applies the key's field configuration to a parsed submission (docs/api.md#submit-feedback): configured fields
 * checked and coerced, up to 20 extra scalars kept with HTML stripped, arrays and objects that
 * are not configured dropped, images decoded.
 */
export function readSubmission(
	body: Record<string, unknown>,
	config: { issueFieldConfig: FieldDefinition[]; featureFieldConfig: FieldDefinition[] },
	files: Uint8Array[] = [],
): Submission {
	const type: FeedbackType = body.type === "feature_request" ? "feature_request" : "issue";
	const fields = type === "issue" ? config.issueFieldConfig : config.featureFieldConfig;
	const configuredKeys = new Set(fields.map((field) => field.key));
	// Files sent beside the body are the images of the form's first attachment field.
	const filesField = files.length > 0 ? fields.find((field) => field.type === "attachment") : undefined;

	const data: Record<string, unknown> = {};
	const images: Image[] = [];
	const problems: Array<{ key: string; reason: string }> = [];

	for (const field of fields) {
		const value = Object.hasOwn(body, field.key) ? body[field.key] : undefined;
		if (field.type === "attachment") {
			const decoded = field === filesField ? imagesOfFiles(field.key, files) : isBlank(value) ? [] : decodeImages(field.key, value);
			if (field.required && decoded.length === 0) problems.push({ key: field.key, reason: "needs at least one PNG, JPEG or WebP image" });
			images.push(...decoded);
			continue;
		}
		if (isBlank(value)) {
			if (field.required) problems.push({ key: field.key, reason: "is required" });
			continue;
		}
		const coerced = coerceConfigured(field, value);
		if ("invalid" in coerced) problems.push({ key: field.key, reason: coerced.invalid });
		else data[field.key] = coerced.value;
	}

	if (problems.length > 0) {
		return {
			ok: false,
			error: `Invalid submission: ${problems.map(({ key, reason }) => `${key} ${reason}`).join("; ")}`,
			fields: problems.map(({ key }) => key),
		};
	}

	let extras = 0;
	for (const [key, value] of Object.entries(body)) {
		if (extras === FEEDBACK_LIMITS.extraFields) break;
		if (key === "type" || key === "__proto__" || configuredKeys.has(key) || key.length > FEEDBACK_LIMITS.extraKeyChars || !key.isWellFormed()) continue;
		if (!isScalar(value)) continue; // unknown arrays and objects are not stored
		data[key] = typeof value === "string" ? cutText(striptags(value), FEEDBACK_LIMITS.extraString) : value;
		extras++;
	}

	return { ok: true, type, data, images };
}
