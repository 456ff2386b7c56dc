import { useState } from "react";

/** Copies text to the clipboard and says so. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
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
		</button>
	);
}
