import { type FormEvent, useEffect, useId, useState } from "react";
import { FIELD_TYPES, type FieldDefinition, type FieldType, type ProjectKey } from "../api";
import { useUpdateKey } from "../queries";
import { type FieldWords, type Problem, problemAsSent, problemsOf, problemText } from "../refusals";
import { describeError } from "./QueryState";

type ConfigName = "issue_field_config" | "feature_field_config";

/** A field being edited: options as typed (one per line), and a stable id for React. */
interface Draft {
	id: number;
	key: string;
	label: string;
	type: FieldType;
	required: boolean;
	options: string;
}

const TYPE_LABELS: Record<FieldType, string> = {
	text: "Text (500)",
	long_text: "Long text (10,000)",
	email: "Email",
	url: "URL",
	number: "Number",
	boolean: "Yes / no",
	select: "Choice",
	attachment: "Images",
};

let nextId = 1;
const toDraft = (field: FieldDefinition): Draft => ({ ...field, id: nextId++, options: (field.options ?? []).join("\n") });
const fromDraft = (draft: Draft): FieldDefinition => ({
	key: draft.key.trim(),
	label: draft.label.trim(),
	type: draft.type,
	required: draft.required,
	...(draft.type === "select"
		? {
				options: draft.options
					.split("\n")
					.map((o) => o.trim())
					.filter(Boolean),
			}
		: {}),
});

/** A field's members, as the editor labels them. */
const MEMBER_WORDS: Readonly<Record<string, FieldWords>> = {
	key: {
		name: "The key",
		says: (message) => (message === "is reserved" ? "This key is reserved: choose another." : message.startsWith("duplicate key ") ? "Another field has this key: give each its own." : undefined),
	},
	label: { name: "The label", missing: "Give the field a label." },
	type: { name: "The type" },
	options: {
		name: "The options",
		says: (message) =>
			message === "a select field needs options"
				? "A choice needs options, one per line."
				: message.startsWith("at most ")
					? `A choice has ${message}.`
					: message === "only select fields take options"
						? "Only a choice takes options."
						: undefined,
	},
};
/** A key left empty, which the API holds to its rule as any other (`must start with a letter…`). */
const EMPTY_KEY = "Give the field a key.";
/** One of a choice's options (`options.3`). */
const OPTION_WORDS: FieldWords = { name: "Each option", missing: "Leave no option empty." };
/** The form as a whole. */
const FORM_WORDS: FieldWords = { name: "The form", says: (message) => (message.startsWith("at most ") ? `A form has ${message}.` : undefined) };

/**
 * The API's refusal of the form (`issue_field_config.2.key: must start…`) in the editor's words: by
 * field and member ("2.key"; "2." for the field as a whole), and about the form as a whole. `sent`:
 * the fields as they were sent.
 */
function splitProblems(problems: Problem[], config: ConfigName, sent: FieldDefinition[] | undefined) {
	const byField = new Map<string, string>();
	const general: string[] = [];
	for (const problem of problems) {
		const [, index, member = "", option] = new RegExp(`^${config}\\.(\\d+)(?:\\.(\\w+)(\\.\\d+)?)?$`).exec(problem.path) ?? [];
		const words = option ? OPTION_WORDS : MEMBER_WORDS[member];
		if (index === undefined) general.push(problem.path === config ? problemText(problem, FORM_WORDS) : problemAsSent(problem));
		else if (member === "key" && sent?.[Number(index)]?.key === "") byField.set(`${index}.key`, EMPTY_KEY);
		else byField.set(`${index}.${member}`, words ? problemText(problem, words) : problemAsSent(problem));
	}
	return { byField, general };
}

/** Adds, removes, reorders and edits one of a project's feedback forms, saved whole. */
export function FieldEditor({ projectKey, config, title }: { projectKey: ProjectKey; config: ConfigName; title: string }) {
	const saved = projectKey[config];
	const [drafts, setDrafts] = useState(() => saved.map(toDraft));
	const update = useUpdateKey(projectKey.project_name);
	const baseId = useId();
	// A save elsewhere (or a refetch) replaces the form only when nothing is being edited here.
	const savedJson = JSON.stringify(saved);
	const dirty = JSON.stringify(drafts.map(fromDraft)) !== savedJson;
	// biome-ignore lint/correctness/useExhaustiveDependencies: follows the saved configuration by value
	useEffect(() => {
		if (!dirty) setDrafts(saved.map(toDraft));
	}, [savedJson]);

	const refused = problemsOf(update.error);
	const problems = splitProblems(refused ?? [], config, update.variables?.[config]);
	const change = (index: number, patch: Partial<Draft>) => setDrafts((list) => list.map((d, i) => (i === index ? { ...d, ...patch } : d)));
	const move = (index: number, by: number) =>
		setDrafts((list) => {
			const next = [...list];
			const [field] = next.splice(index, 1);
			next.splice(index + by, 0, field);
			return next;
		});

	function save(event: FormEvent) {
		event.preventDefault();
		update.mutate({ [config]: drafts.map(fromDraft) });
	}

	const errorOf = (index: number, member: string) => problems.byField.get(`${index}.${member}`);
	const input = (index: number, member: string) => {
		const error = errorOf(index, member);
		const id = `${baseId}-${index}-${member}`;
		return { id, error, props: { "aria-invalid": error ? true : undefined, "aria-describedby": error ? `${id}-error` : undefined } };
	};
	const fieldError = (index: number, member: string) => {
		const { id, error } = input(index, member);
		return error ? (
			<span className="error" id={`${id}-error`}>
				{error}
			</span>
		) : null;
	};

	return (
		<form className="card" onSubmit={save} noValidate aria-label={title}>
			<h2>{title}</h2>
			{drafts.length === 0 && <p className="muted">No fields: submissions keep only extra fields.</p>}
			{drafts.map((draft, index) => (
				<fieldset className="field-row" key={draft.id} aria-label={`Field ${index + 1}`}>
					<label>
						Key
						<input value={draft.key} onChange={(e) => change(index, { key: e.target.value })} {...input(index, "key").props} />
						{fieldError(index, "key")}
					</label>
					<label>
						Label
						<input value={draft.label} onChange={(e) => change(index, { label: e.target.value })} {...input(index, "label").props} />
						{fieldError(index, "label")}
					</label>
					<label>
						Type
						<select value={draft.type} onChange={(e) => change(index, { type: e.target.value as FieldType })} {...input(index, "type").props}>
							{FIELD_TYPES.map((type) => (
								<option key={type} value={type}>
									{TYPE_LABELS[type]}
								</option>
							))}
						</select>
						{fieldError(index, "type")}
					</label>
					<label className="switch">
						<input type="checkbox" checked={draft.required} onChange={(e) => change(index, { required: e.target.checked })} />
						Required
					</label>
					{draft.type === "select" && (
						<label>
							Options, one per line
							<textarea rows={3} value={draft.options} onChange={(e) => change(index, { options: e.target.value })} {...input(index, "options").props} />
							{fieldError(index, "options")}
						</label>
					)}
					<div className="moves">
						<button type="button" onClick={() => move(index, -1)} disabled={index === 0} aria-label={`Move ${draft.key || "field"} up`}>
							↑
						</button>
						<button type="button" onClick={() => move(index, 1)} disabled={index === drafts.length - 1} aria-label={`Move ${draft.key || "field"} down`}>
							↓
						</button>
						<button type="button" className="danger" onClick={() => setDrafts((list) => list.filter((_, i) => i !== index))} aria-label={`Remove ${draft.key || "field"}`}>
							Remove
						</button>
					</div>
					{fieldError(index, "")}
				</fieldset>
			))}
			<div className="row">
				<button type="button" onClick={() => setDrafts((list) => [...list, toDraft({ key: "", label: "", type: "text", required: false })])}>
					Add field
				</button>
				<button type="submit" className="primary" disabled={!dirty || update.isPending}>
					Save {title.toLowerCase()}
				</button>
				<button type="button" disabled={!dirty} onClick={() => setDrafts(saved.map(toDraft))}>
					Discard changes
				</button>
			</div>
			<div aria-live="polite">
				{problems.general.map((p) => (
					<p key={p} className="error">
						{p}
					</p>
				))}
				{update.error && !refused && <p className="error">{describeError(update.error, { action: true })}</p>}
				{update.isError && problems.byField.size > 0 && <p className="error">Not saved: see the fields marked above.</p>}
				{update.isSuccess && !dirty && <p className="ok">Saved.</p>}
			</div>
		</form>
	);
}
