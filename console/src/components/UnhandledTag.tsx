/**
 * Sentry's "Unhandled": on an event, its error was not caught by the app (an exception of its chain
 * says `mechanism.handled: false`); on an issue, that was so of at least one of its events.
 */
export function UnhandledTag({ issue = false }: { issue?: boolean }) {
	const title = issue
		? "The app did not catch this error in at least one of its events: the SDK's global handler reported it"
		: "The app did not catch this error: the SDK's global handler reported it";
	return (
		<span className="tag unhandled" title={title}>
			Unhandled
		</span>
	);
}
