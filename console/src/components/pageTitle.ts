import { useEffect } from "react";

/**
 * Names the page in the browser's tab, its history (Back's list) and bookmarks: what the page is
 * about first, then where it is, then the product ("Checkout failed · Issues · shop · svc"), so
 * tabs opened on several projects, sites or issues tell apart, and a screen reader announces the
 * page after a navigation. Parts not known yet (still loading) are left out. Called with no parts
 * at all, it leaves the title to a part of the page that names it (effects run child first, so a
 * page's own call would otherwise overwrite its child's).
 */
export function usePageTitle(...parts: Array<string | null | undefined>) {
	const named = parts.length > 0;
	const title = [...parts.filter((part): part is string => Boolean(part)), "svc"].join(" · ");
	useEffect(() => {
		if (named) document.title = title;
	}, [named, title]);
}
