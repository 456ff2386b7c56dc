import { useEffect, useState } from "react";
import { api } from "../api";

/**
 * An attachment image as a thumbnail that opens the whole image: fetched with the session header,
 * since an <img> cannot send it.
 */
export function Attachment({ url, label }: { url: string; label: string }) {
	const [src, setSrc] = useState<string>();
	const [failed, setFailed] = useState(false);
	useEffect(() => {
		let objectUrl: string | undefined;
		let live = true;
		api.attachmentUrl(url).then(
			(u) => {
				objectUrl = u;
				if (live) setSrc(u);
				else URL.revokeObjectURL(u);
			},
			() => live && setFailed(true),
		);
		return () => {
			live = false;
			if (objectUrl) URL.revokeObjectURL(objectUrl);
		};
	}, [url]);
	if (failed) return <span className="error">Image could not be loaded</span>;
	if (!src) return <span className="muted">Loading image…</span>;
	return (
		<a href={src} target="_blank" rel="noreferrer" title="Open the whole image">
			<img className="thumb" src={src} alt={label} />
		</a>
	);
}
