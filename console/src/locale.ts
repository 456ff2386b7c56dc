/**
 * Makes `navigator.language` a tag Intl accepts, before anything reads it. A browser started
 * without a locale may report a POSIX one ("en-US@posix", "de_DE.UTF-8"), and Intl refuses those
 * with a RangeError; uPlot builds `new Intl.NumberFormat(navigator.language)` as it loads, so such
 * a tag would break every chart. Imported first by main.tsx.
 */

const accepted = (tag: string): string | undefined => {
	try {
		return Intl.getCanonicalLocales(tag)[0];
	} catch {
		return undefined;
	}
};

/** The tag itself when valid, else its POSIX form read as BCP 47 ("de_DE.UTF-8@euro" → "de-DE"), else the runtime's own locale. */
const validLocale = (tag: string): string =>
	accepted(tag) ?? accepted(tag.replace(/[.@].*$/, "").replaceAll("_", "-")) ?? new Intl.NumberFormat().resolvedOptions().locale;

if (typeof navigator !== "undefined" && accepted(navigator.language) === undefined) {
	const language = validLocale(navigator.language);
	const languages = navigator.languages.map(validLocale);
	Object.defineProperties(navigator, {
		language: { get: () => language, configurable: true },
		languages: { get: () => languages, configurable: true },
	});
}
