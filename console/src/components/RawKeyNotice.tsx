import type { RefObject } from "react";
import { focusInsteadOf } from "../focus";
import { CopyButton } from "./CopyButton";

/**
 * Shown once after create or regenerate: the API never returns the raw key, or the DSN holding it,
 * again. Done gives focus back to `opener`, the control that made the key.
 */
export function RawKeyNotice({
	projectName,
	rawKey,
	dsn,
	opener,
	onDone,
}: {
	projectName: string;
	rawKey: string;
	dsn: string | null;
	opener: RefObject<HTMLElement | null>;
	onDone: () => void;
}) {
	return (
		<div className="card notice" role="status">
			<p>
				New key for <strong>{projectName}</strong>. <strong>Copy it now: it will not be shown again.</strong> Anyone holding it can send
				feedback and logs as this project; keep it out of public repositories.
			</p>
			<code className="secret" data-testid="raw-key">
				{rawKey}
			</code>
			{dsn && (
				<>
					<p>Its Sentry DSN: an app already instrumented with a Sentry SDK changes only its DSN to this one.</p>
					<code className="secret" data-testid="dsn">
						{dsn}
					</code>
				</>
			)}
			<div className="row">
				<CopyButton text={rawKey} label="Copy key" />
				{dsn && <CopyButton text={dsn} label="Copy DSN" />}
				<button
					type="button"
					onClick={(event) => {
						focusInsteadOf(event.currentTarget, opener.current);
						onDone();
					}}
				>
					Done
				</button>
			</div>
		</div>
	);
}
