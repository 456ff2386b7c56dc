/**
 * Sentry's inbound filter "browser extensions" (docs/api.md#inbound-filter-browser-extensions):
 * errors a visitor's browser extension raised in the app's page, which the app's owner can do
 * nothing about. The rules are Sentry's (its Relay's `browser_extensions` filter), as data:
 *
 * - the event's first exception (`exception.values[0]`: the oldest of a chain, or the only one)
 *   has a value holding one of EXTENSION_MESSAGES, or
 * - that exception's crash site comes from an extension: its last frame with a source (its
 *   `abs_path`, else its `filename`) other than `<anonymous>` or `[native code]` starts with one of
 *   EXTENSION_URL_SCHEMES or holds one of EXTENSION_SOURCES. Only that frame counts: an extension's
 *   frame further up an app's stack (an extension wrapping `addEventListener`) drops nothing, and a
 *   crash site without a source drops nothing.
 *
 * Every comparison ignores letter case, and any whitespace in a value counts as a space.
 */
import type { LogEvent, StackFrame } from "./logEvent";

/** Texts of errors known to come from extensions, toolbars and injecting proxies. */
const EXTENSION_MESSAGES = [
	"top.GLOBALS",
	"originalCreateNotification",
	"canvas.contentDocument",
	"MyApp_RemoveAllHighlights",
	"http://tt.epicplay.com",
	"Can't find variable: ZiteReader",
	"jigsaw is not defined",
	"ComboSearch is not defined",
	"http://loading.retry.widdit.com/",
	"atomicFindClose",
	// Facebook's cross-domain fragment.
	"fb_xd_fragment",
	// An ISP's "optimizing" proxy.
	"bmi_SafeAddOnload",
	"EBCallBackMessageReceived",
	// Chrome on iOS.
	"_gCrWeb",
	// Conduit toolbars.
	"conduitPage",
	// The Google Search app on iOS.
	"null is not an object (evaluating 'elt.parentNode')",
	// Nuance's Dragon extension.
	"plugin.setSuspendState is not a function",
	// Chrome: an extension reloaded while the page lived on.
	"Extension context invalidated",
	// Safari hides an extension's URL behind this.
	"webkit-masked-url:",
	// Firefox: an extension touched a node of a page that is gone.
	"can't access dead object",
];

/** Where extensions' own scripts are served from. */
const EXTENSION_URL_SCHEMES = ["chrome://", "chrome-extension://", "moz-extension://", "safari-extension://", "safari-web-extension://"];

/** Scripts that extensions and desktop software inject into pages, and third parties known to fail there. */
const EXTENSION_SOURCES = [
	"graph.facebook.com",
	"connect.facebook.net",
	"eatdifferent.com.woopra-ns.com",
	"static.woopra.com/js/woopra.js",
	"webkit-masked-url",
	// Cacaoweb.
	"127.0.0.1:4001/isrunning",
	"webappstoolbarba.texthelp.com/",
	"metrics.itunes.apple.com.edgesuite.net/",
	// Kaspersky's protection extension.
	"kaspersky-labs.com",
];

/** Frames that name no source: skipped on the way to the crash site's. */
const NAMELESS_SOURCES = ["<anonymous>", "[native code]"];

const comparable = (text: string) => text.toLowerCase().replace(/\s/g, " ");
const MESSAGES = EXTENSION_MESSAGES.map(comparable);
const SCHEMES = EXTENSION_URL_SCHEMES.map(comparable);
const SOURCES = EXTENSION_SOURCES.map(comparable);

/** The source of the last frame that names one; null when that frame names none. */
function crashSiteSource(frames: StackFrame[]): string | null {
	for (let i = frames.length - 1; i >= 0; i--) {
		const source = frames[i].abs_path ?? frames[i].filename;
		if (source === undefined) return null;
		if (!NAMELESS_SOURCES.includes(source)) return source;
	}
	return null;
}

/** Whether the browser-extensions filter drops the event. */
export function fromBrowserExtension(event: Pick<LogEvent, "exception" | "chained_exceptions">): boolean {
	const first = event.chained_exceptions[0] ?? event.exception;
	if (!first) return false;
	if (first.value !== null) {
		const value = comparable(first.value);
		if (MESSAGES.some((message) => value.includes(message))) return true;
	}
	const source = crashSiteSource(first.stacktrace?.frames ?? []);
	if (source === null) return false;
	const url = comparable(source);
	return SCHEMES.some((scheme) => url.startsWith(scheme)) || SOURCES.some((part) => url.includes(part));
}
