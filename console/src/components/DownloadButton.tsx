import { useState } from "react";

/**
 * A CSV the API makes, downloaded on a click (a link cannot carry the session); a failure is said
 * beside the button. `what` names the download for a screen reader ("of Top pages").
 */
export function DownloadButton({ what, download }: { what: string; download: () => Promise<void> }) {
	const [failed, setFailed] = useState<string>();
	return (
		<p className="breakdown-foot">
			{failed && (
				<span className="error" role="alert">
					{failed}
				</span>
			)}
			<button type="button" className="link" onClick={() => download().then(() => setFailed(undefined), (error: Error) => setFailed(error.message))}>
				Download CSV<span className="visually-hidden"> of {what}</span>
			</button>
		</p>
	);
}
