/**
 * A page's path as people read it, the one name a page goes by in the tracker's page views and in
 * crawler visits, so the two meet: percent-decoding undone where it spells characters (`/größe`,
 * not `/gr%C3%B6%C3%9Fe`); an encoded `/`, `?` or `#` stays encoded, and a path with a malformed
 * escape stays as it came. The tracker bundles this module (an arrow costs it the fewest bytes).
 */
export const readablePath = (path: string): string => {
	try {
		return decodeURI(path);
	} catch {
		return path;
	}
};
