/** The project and site last opened, so an area's link opens where the owner left off. */
function remembered(name: string) {
	const key = `svc.last.${name}`;
	return {
		get: () => localStorage.getItem(key),
		set: (value: string) => localStorage.setItem(key, value),
		clear: () => localStorage.removeItem(key),
	};
}

export const lastUsed = { project: remembered("project"), site: remembered("site") };
