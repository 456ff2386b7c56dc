/**
 * The API's refusal of what a form sent (a 400 `Invalid request: <member>: <problem>; …`) in the
 * form's words. The API names each member as it is sent (`project_name`, `issue_field_config.2.key`)
 * and words the problem to follow that name (`is required`); a form names the field as its label
 * does, and says what to do.
 */
import { ApiError } from "./api";

/** One problem the API found: the member it is about ("" for the request as a whole) and the API's words. */
export interface Problem {
	path: string;
	message: string;
}

const INVALID = "Invalid request: ";

/** The problems of a refusal of what was sent, as the API lists them; null for any other error. */
export function problemsOf(error: unknown): Problem[] | null {
	if (!(error instanceof ApiError) || error.status !== 400 || !error.message.startsWith(INVALID)) return null;
	return error.message
		.slice(INVALID.length)
		.split("; ")
		.map((problem) => {
			const named = /^([\w.]+): (.*)$/s.exec(problem);
			return named ? { path: named[1], message: named[2] } : { path: "", message: problem };
		});
}

/** How a form words one member it sends. */
export interface FieldWords {
	/** The field as a sentence starts with it: "The project name". */
	name: string;
	/** What to do when it was sent empty: "Give the project a name." */
	missing?: string;
	/** The form's own words for one of the API's messages, where it has better ones. */
	says?: (message: string) => string | undefined;
}

/** The API's words for a member sent empty. */
const MISSING: ReadonlySet<string> = new Set(["is required", "must not be empty"]);
/**
 * The start of the API's words for a name with characters it refuses (NAME_TEXT_RULE of
 * domain/text.ts, which the console does not import: that module's checks use string methods
 * newer than the console's TypeScript library).
 */
const NAME_TEXT = "must be well-formed text without";

/** One problem in the words of the field it is about. */
export function problemText({ message }: Problem, field: FieldWords): string {
	const own = field.says?.(message);
	if (own) return own;
	if (field.missing && MISSING.has(message)) return field.missing;
	if (message.startsWith(NAME_TEXT)) return `${field.name} cannot hold control characters, or characters that are invisible or change the direction of the text.`;
	// zod's own messages (`Invalid input` where no choice of a union fits; the API words types, bounds
	// and missing fields itself, lower-case to follow the name) stand alone, in a developer's words;
	// a form whose field can meet one words it with `says`.
	if (/^[A-Z]/.test(message)) return `${field.name} is not valid.`;
	// The API's own follow the name: "must be at most 100 characters", "at most 200 characters".
	return `${field.name} ${message.startsWith("at most ") ? "can hold " : ""}${message}.`;
}

/** A problem about a member the form does not word (which the console should not have sent): as the API says it. */
export const problemAsSent = ({ path, message }: Problem) => `The service refused ${path ? `${path}: ` : "the request: "}${message}.`;

/** A refusal of what a form sent, a sentence a problem in the form's words (`fields` by member); null for any other error. */
export function refusalText(error: unknown, fields: Readonly<Record<string, FieldWords>>): string | null {
	const problems = problemsOf(error);
	if (!problems) return null;
	const sentences = problems.map((problem) => (Object.hasOwn(fields, problem.path) ? problemText(problem, fields[problem.path]) : problemAsSent(problem)));
	return [...new Set(sentences)].join(" ");
}
