import { parseIssueSearch } from "../api";

/**
 * The release `latest` stood for in the list's search (`release:latest`, `firstRelease:latest`),
 * as the list answered it: the newest can change between two searches, so the reader sees which
 * one the issues below are of. Nothing when the search does not name it.
 */
export function LatestRelease({ q, release }: { q?: string; release?: string | null }) {
	if (release === undefined) return null;
	const keyword = q && !parseIssueSearch(q).release_latest ? "firstRelease:latest" : "release:latest";
	return (
		<p className="muted small" data-testid="latest-release">
			<code>{keyword}</code> {release === null ? "names no release: this project has sent none." : <>is {release}</>}
		</p>
	);
}
