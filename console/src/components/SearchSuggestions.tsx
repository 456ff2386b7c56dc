/**
 * The issue list's search box (and an issue's events' search box), suggesting as Sentry's search bar does: the word at the cursor
 * completed to one of the list's keys or a tag's, then that key's values (a tag's most common
 * ones from the API). An ARIA combobox: arrows move through the suggestions, Enter or a click
 * takes one, Escape closes them; Enter with none chosen searches, as the box always did.
 */
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import {
	applySuggestion,
	keySuggestions,
	type SearchScope,
	type SearchTokenAt,
	type Suggestion,
	tokenAt,
	valueSource,
	valueSuggestions,
} from "../../../domain/api/issueSearchSuggestions";
import { plural } from "../format";
import { useIssueTagKeys, useIssueTagValues } from "../queries";

/** How long typing pauses before a tag's values are asked for the prefix typed. */
const TYPING_PAUSE_MS = 200;
/** Suggestions shown at once: the list scrolls past about half of them. */
const SHOWN = 20;

/** `value`, once it has stayed the same for `ms`. */
function useSettled<T>(value: T, ms: number): T {
	const [settled, setSettled] = useState(value);
	useEffect(() => {
		const timer = setTimeout(() => setSettled(value), ms);
		return () => clearTimeout(timer);
	}, [value, ms]);
	return settled;
}

/** The suggestions for the token at the cursor, from the API where its key's values are the project's. */
function useSuggestions(project: string, environment: string | undefined, scope: SearchScope, token: SearchTokenAt | null, open: boolean): Suggestion[] {
	const source = token?.kind === "value" ? valueSource(token.key, scope) : null;
	const tag = source && "tag" in source ? source.tag : "";
	const typed = token?.kind === "value" ? token.typed : "";
	// `environment:`'s values are every environment's, whichever the list is filtered by.
	const within = tag === "environment" ? undefined : environment;
	const prefix = useSettled(typed, TYPING_PAUSE_MS);
	const wantsKeys = open && (token?.kind === "key" || (source !== null && "tagKeys" in source));
	// A value with `*` is a pattern: no value starts with it.
	const wantsValues = open && tag !== "" && !typed.includes("*");
	const keys = useIssueTagKeys(project, environment, wantsKeys);
	const values = useIssueTagValues(project, tag, prefix, within, wantsValues);
	if (!open || !token) return [];
	if (token.kind === "key") return keySuggestions(token, keys.data?.keys ?? [], scope);
	if (source && "tagKeys" in source) return valueSuggestions(token, (keys.data?.keys ?? []).map((value) => ({ value })), scope);
	// The previous key's values stay shown while the next key's are read: never offered for it.
	const read = values.data?.key === tag ? values.data.values : [];
	return valueSuggestions(token, wantsValues ? read : [], scope);
}

interface SearchSuggestionsProps {
	project: string;
	/** The list's environment filter: tags' values are counted there. */
	environment?: string;
	/** The issue list's keys, or those of a search of one issue's events (the project's tags either way). */
	scope?: SearchScope;
	label: string;
	name: string;
	placeholder: string;
	defaultValue?: string;
	maxLength: number;
	size: number;
	/** Set, with the id of what says why, while what was searched cannot be. */
	"aria-invalid"?: boolean;
	"aria-describedby"?: string;
}

export function SearchSuggestions({ project, environment, scope = "issues", label, ...input }: SearchSuggestionsProps) {
	const id = useId();
	const box = useRef<HTMLInputElement>(null);
	const [text, setText] = useState(input.defaultValue ?? "");
	const [cursor, setCursor] = useState(0);
	const [open, setOpen] = useState(false);
	const [active, setActive] = useState(-1);
	const token = tokenAt(text, cursor);
	const typedToken = token ? text.slice(token.start, token.end) : "";
	const offered = useSuggestions(project, environment, scope, token, open).slice(0, SHOWN);
	// A list of only what is typed in full already suggests nothing.
	const suggestions = offered.length === 1 && offered[0].token === typedToken ? [] : offered;
	const expanded = suggestions.length > 0;
	const optionId = (i: number) => `${id}-option-${i}`;
	// The option the arrows reach stays in view in a list that scrolls.
	useEffect(() => {
		if (active >= 0) document.getElementById(`${id}-option-${active}`)?.scrollIntoView({ block: "nearest" });
	}, [active, id]);

	/** Reads the box as it is now: its text and where the cursor is. */
	function follow(reopen: boolean) {
		const element = box.current;
		if (!element) return;
		setText(element.value);
		setCursor(element.selectionStart ?? element.value.length);
		setActive(-1);
		if (reopen) setOpen(true);
	}

	function choose(suggestion: Suggestion) {
		const element = box.current;
		if (!element || !token) return;
		const next = applySuggestion(element.value, token, suggestion);
		element.value = next.text;
		element.setSelectionRange(next.cursor, next.cursor);
		element.focus();
		setText(next.text);
		setCursor(next.cursor);
		setActive(-1);
		// A key waits for its value: the list stays open with the key's values.
		setOpen(!suggestion.whole);
	}

	function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
		const count = suggestions.length;
		if (event.key === "ArrowDown" || event.key === "ArrowUp") {
			event.preventDefault();
			if (!open) {
				follow(true);
				return;
			}
			if (count === 0) return;
			const step = event.key === "ArrowDown" ? 1 : -1;
			setActive((current) => (current < 0 && step < 0 ? count - 1 : (current + step + count) % count));
		} else if (event.key === "Enter" && expanded && active >= 0 && active < count) {
			// Takes the suggestion instead of searching.
			event.preventDefault();
			choose(suggestions[active]);
		} else if (event.key === "Escape" && expanded) {
			// Closes the list rather than clearing the box, as a search box's Escape would.
			event.preventDefault();
			setOpen(false);
		} else if (event.key === "Enter" || event.key === "Tab") {
			setOpen(false);
		}
	}

	return (
		<div className="search-suggest">
			<label className="inline">
				<span className="visually-hidden">{label}</span>
				<input
					{...input}
					ref={box}
					type="search"
					role="combobox"
					autoComplete="off"
					aria-autocomplete="list"
					aria-controls={`${id}-list`}
					aria-expanded={expanded}
					aria-activedescendant={expanded && active >= 0 ? optionId(active) : undefined}
					onInput={() => follow(true)}
					// A click or the arrow keys move the cursor to another token.
					onSelect={() => follow(false)}
					onKeyDown={onKeyDown}
					onBlur={() => setOpen(false)}
				/>
			</label>
			<div id={`${id}-list`} role="listbox" aria-label="Search suggestions" className="suggestions" hidden={!expanded}>
				{suggestions.map((suggestion, i) => (
					// biome-ignore lint/a11y/useKeyWithClickEvents: the keys are the box's (aria-activedescendant): the focus never leaves it
					<div
						key={suggestion.token}
						id={optionId(i)}
						role="option"
						tabIndex={-1}
						aria-selected={i === active}
						className="suggestion"
						// Keeps the focus in the box, so the click completes it.
						onMouseDown={(event) => event.preventDefault()}
						onClick={() => choose(suggestion)}
					>
						<span className="suggestion-label">{suggestion.label}</span>
						{(suggestion.detail || suggestion.count !== undefined) && (
							<span className="muted small">{suggestion.detail ?? plural(suggestion.count ?? 0, "event")}</span>
						)}
					</div>
				))}
			</div>
		</div>
	);
}
