import { useState } from "react";

/** Copies text to the clipboard and says so. `what` names the text for screen readers when the label alone does not. */
export function CopyButton({ text, label = "Copy", what }: { text: string; label?: string; what?: string }) {
	const [copied, setCopied] = useState(false);
	return (
		<button
			type="button"
			onClick={() =>
				navigator.clipboard?.writeText(text).then(() => {
					setCopied(true);
					setTimeout(() => setCopied(false), 2000);
				})
			}
		>
			<span aria-live="polite">{copied ? "Copied" : label}</span>
			{what && <span className="visually-hidden"> {what}</span>}
		</button>
	);
}
