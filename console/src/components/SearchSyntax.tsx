/** What the issue search understands, as Sentry users type it (docs/api.md#list-issues). */
const EXAMPLES: ReadonlyArray<[example: string, meaning: string]> = [
	["checkout failed", "text in the title or culprit (also as message:); an issue's short id (MY-APP-1A) or hash; an event's id as its SDK gave it"],
	["is:unresolved is:unhandled", "status (unresolved, resolved, ignored), issues with an unhandled event"],
	["is:regressed is:escalating", "open again after being resolved; reopened by an escalation in the last 7 days"],
	["level:error release:1.4.2", "the issue's level; a release or environment it was seen in"],
	["level:[error, fatal] error.unhandled:true", "any of several values (level:, environment:, release: and tags); an event the app did not catch"],
	["user:ana@example.com", "issues one person ran into, by user id or email (user.id:, user.email:)"],
	["lastSeen:-24h firstSeen:-7d", "seen in, or new in, the last 1h, 24h, 7d, 14d, 30d or 90d (the filters above)"],
	["lastSeen:-30m age:+2w", "seen in the last 30 minutes (m, h, d, w); first seen more than 2 weeks ago"],
	["lastSeen:>=2026-11-01 firstSeen:2026-11-02", "seen since a date or time (UTC unless it says: <2026-11-01T12:00:00+01:00); new on a day"],
	["firstRelease:2.0.0", "new in a release: its earliest event came from it"],
	["release:latest firstRelease:latest", `seen in, or new in, the project's newest release (release:"latest": one named so)`],
	["browser.name:Chrome", "a tag's value on any event of the issue: drawn ones (browser, os, device, url, user…) or your own"],
	['url:*checkout* plan:"pro team"', "* for any text; quotes around a value with spaces"],
	["has:user tags[level]:error", "a tag with any value; a tag named like one of the keys above"],
	["!browser.name:Chrome !has:user", "issues with an event not in Chrome; with an event without a user"],
];

export function SearchSyntax() {
	return (
		<details className="search-syntax">
			<summary className="small">Search syntax</summary>
			<table className="small">
				<tbody>
					{EXAMPLES.map(([example, meaning]) => (
						<tr key={example}>
							<th scope="row">
								<code>{example}</code>
							</th>
							<td>{meaning}</td>
						</tr>
					))}
				</tbody>
			</table>
		</details>
	);
}
