/**
 * Every string the service stores is cut here. A lone surrogate (half of a UTF-16 pair, which
 * JSON can carry) becomes U+FFFD first, so what is measured is what is stored: written out as
 * UTF-8 it can neither grow past its limit nor be rejected. Cuts fall on whole code points, so an
 * emoji is kept or left out, never halved.
 */
export function cutText(text: string, max: number): string {
	const wellFormed = text.toWellFormed();
	if (wellFormed.length <= max) return wellFormed;
	const last = wellFormed.charCodeAt(max - 1);
	return wellFormed.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/**
 * Characters that reorder or hide text (bidirectional overrides and isolates, direction marks,
 * zero-width spaces, the word joiner, a byte order mark): in a name they make "invoice\u202Egnp.exe"
 * read as another name, or two names that look alike differ. The zero-width joiner and non-joiner
 * are left: emoji sequences and several scripts need them.
 */
const REORDERING_OR_INVISIBLE = /[\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/**
 * What an owner may name a project, site, field or option with: well-formed Unicode without
 * control characters, so the stored name is the name that was sent and every query string can
 * carry it back (a lone surrogate has no URL encoding at all), and without characters that
 * reorder or hide it, so the name shown is the name stored.
 */
export const isNameText = (text: string) => text.isWellFormed() && !/\p{Cc}/u.test(text) && !REORDERING_OR_INVISIBLE.test(text);

export const NAME_TEXT_RULE = "must be well-formed text without control, direction or zero-width characters";
