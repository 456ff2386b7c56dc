import { CopyButton } from "./CopyButton";

/** Shown once after create or regenerate: the API never returns the raw key again. */
export function RawKeyNotice({ projectName, rawKey, onDone }: { projectName: string; rawKey: string; onDone: () => void }) {
	return (
		<div className="card notice" role="status">
			<p>
				New key for <strong>{projectName}</strong>. <strong>Copy it now: it will not be shown again.</strong> Anyone holding it can send
				feedback and logs as this project; keep it out of public repositories.
			</p>
			<code className="secret" data-testid="raw-key">
				{rawKey}
			</code>
			<div className="row">
				<CopyButton text={rawKey} label="Copy key" />
				<button type="button" onClick={onDone}>
					Done
				</button>
			</div>
		</div>
	);
}
