/**
 * Where keyboard focus goes when what held it leaves the page: a browser drops it on the body, and
 * a keyboard or screen-reader user starts again from the top. After a navigation it goes to the
 * new page's heading; after a delete, to the item now in the deleted one's place.
 */

const FOCUSABLE = "a[href], button:not(:disabled), input:not(:disabled), select:not(:disabled), textarea:not(:disabled), summary";

/** Focus is nowhere: on the body, as after the focused element was removed or disabled. */
const focusLost = () => document.activeElement === null || document.activeElement === document.body;

/** Focuses a heading, made focusable by script only (tabindex -1), so Tab does not stop on it. */
function focusHeading(heading: HTMLElement) {
	heading.tabIndex = -1;
	heading.focus();
}

/** How long an action (a read, a save, a delete) may take before focus is left where the browser puts it. */
const ACTION_WAIT_MS = 30_000;

/**
 * Calls `settled` on each change `options` names under `node` until it answers true, within
 * ACTION_WAIT_MS; the answer stops waiting. Every wait for the page to change goes through here.
 */
function watch(node: Node, options: MutationObserverInit, settled: () => boolean): () => void {
	const observer = new MutationObserver(() => {
		if (settled()) stop();
	});
	const timer = setTimeout(stop, ACTION_WAIT_MS);
	function stop() {
		observer.disconnect();
		clearTimeout(timer);
	}
	observer.observe(node, options);
	return stop;
}

/**
 * Runs `found` with the first element under `root` matching `selector`, now or once it appears;
 * the answer stops waiting.
 */
function whenPresent(root: Element, selector: string, found: (element: HTMLElement) => void): () => void {
	const find = () => {
		const element = root.querySelector<HTMLElement>(selector);
		if (element) found(element);
		return element !== null;
	};
	return find() ? () => {} : watch(root, { childList: true, subtree: true }, find);
}

/** Runs `enabled` once `control`, disabled while its action runs, is enabled again on the page. */
function whenEnabled(control: HTMLElement, enabled: () => void) {
	watch(control, { attributes: true, attributeFilter: ["disabled"] }, () => {
		if (control.matches(":disabled")) return false;
		if (control.isConnected) enabled();
		return true;
	});
}

/**
 * After a navigation, focus goes to the new page's main heading (once the page shows it), unless
 * it is on a control that is still there, as the project picker that made the navigation: only
 * focus on the body, or on the link followed, is moved. The answer stops waiting.
 */
export function focusPageHeading(): () => void {
	const main = document.querySelector("main");
	if (!main) return () => {};
	return whenPresent(main, "h1", (heading) => {
		if (focusLost() || document.activeElement instanceof HTMLAnchorElement) focusHeading(heading);
	});
}

/** The heading of the section `element` is in (else of the page's main), or null. */
const sectionHeading = (element: Element) => (element.closest("section") ?? document.querySelector("main"))?.querySelector<HTMLElement>("h1, h2") ?? null;

/**
 * Call as `leaving`, the focused control, takes what holds it off the page (a new key's notice,
 * by its Done): focus goes to `control`, what made it, else to the heading of the section
 * `leaving` is in. A control still disabled while its action ends (the list it changed read
 * again) gets focus from the heading once enabled, unless focus moved on.
 */
export function focusInsteadOf(leaving: HTMLElement, control: HTMLElement | null) {
	const heading = sectionHeading(leaving);
	const usable = () => control?.isConnected && !control.matches(":disabled");
	if (usable()) return control?.focus();
	if (!heading) return;
	focusHeading(heading);
	if (!control?.isConnected) return;
	whenEnabled(control, () => {
		if (document.activeElement === heading) control.focus();
	});
}

/**
 * Focuses the first element under the page's main matching `selector`, now or once it shows
 * (within ACTION_WAIT_MS): what an action adds elsewhere on the page, such as the chip of a
 * filter picked from a row, which the pick may take off the page with focus on it.
 */
export function focusOnceShown(selector: string) {
	const main = document.querySelector("main");
	if (!main) return;
	whenPresent(main, selector, (element) => element.focus());
}

/**
 * Call as a delete starts from `control`. When the item holding it (its list item or table row)
 * is gone, or the control is removed or disabled, and focus fell to the body (or stays on the
 * disabled control), focus goes to the item now in its place (the next one, else the one before),
 * on its first control; for a control outside the items (a selection's), or once none is left, to
 * the heading of its section. A delete that fails leaves the item, and focus, where they were.
 */
export function keepFocusThroughRemoval(control: HTMLElement) {
	const item = control.closest("li, tr");
	const list = item?.parentElement ?? null;
	const index = item && list ? Array.from(list.children).indexOf(item) : -1;
	const heading = sectionHeading(control);
	const gone = () => (item ? !item.isConnected : !control.isConnected || control.matches(":disabled"));
	watch(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["disabled"] }, () => {
		if (!gone()) return false;
		// A disabled control may still hold focus for a moment, but nothing can be done from it.
		if (!focusLost() && document.activeElement !== control) return true;
		const items = list?.isConnected ? Array.from(list.children) : [];
		const next = index >= 0 ? items[Math.min(index, items.length - 1)]?.querySelector<HTMLElement>(FOCUSABLE) : null;
		if (next) next.focus();
		else if (heading?.isConnected) focusHeading(heading);
		else whenPresent(document.querySelector("main") ?? document.body, "h1", focusHeading);
		return true;
	});
}

/**
 * Keeps focus on a control disabled while its action runs (a save, a switch's change, the next
 * page's read): the browser drops focus to the body when the focused control is disabled, so a
 * keyboard or screen-reader user pressed Save and was sent back to the top. Once the control is
 * enabled again, and focus has gone nowhere else meanwhile, it goes back to the control.
 * Installed once; the answer uninstalls it.
 */
export function keepFocusThroughPending(): () => void {
	let focused: Element | null = null;
	const onFocusIn = (event: FocusEvent) => {
		focused = event.target as Element;
	};
	const observer = new MutationObserver((records) => {
		for (const { target } of records) {
			// The browser moves focus off a disabled control when it next draws, not yet.
			if (target !== focused || !(target instanceof HTMLElement) || !target.matches(":disabled")) continue;
			focused = null;
			whenEnabled(target, () => {
				if (focusLost()) target.focus();
			});
		}
	});
	document.addEventListener("focusin", onFocusIn);
	observer.observe(document.body, { subtree: true, attributes: true, attributeFilter: ["disabled"] });
	return () => {
		document.removeEventListener("focusin", onFocusIn);
		observer.disconnect();
	};
}
