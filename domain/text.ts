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
 * What an owner may name a project, site, field or option with: well-formed Unicode without
 * control characters, so the stored name is the name that was sent and every query string can
 * carry it back (a lone surrogate has no URL encoding at all).
 */
export const isNameText = (text: string) => text.isWellFormed() && !/\p{Cc}/u.test(text);

export const NAME_TEXT_RULE = "must be well-formed text without control characters";
