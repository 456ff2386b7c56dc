import { useState } from "react";

/**
 * Copies text to the clipboard and says so. `what` names the text for screen readers when the
 * label alone does not. Where the browser refuses the clipboard (no permission, not a secure
 * page), it says so, and the text stays on the page to select by hand.
 */
export function CopyButton({ text, label = "Copy", what }: { text: string; label?: string; what?: string }) {
	const [said, setSaid] = useState<string | null>(null);
	const say = (words: string) => {
		setSaid(words);
		setTimeout(() => setSaid(null), 3000);
	};
	return (
		<button
			type="button"
			onClick={() => {
				if (!navigator.clipboard) return say("Copying is blocked here: select the text");
				navigator.clipboard.writeText(text).then(
					() => say("Copied"),
					() => say("Copying is blocked here: select the text"),
				);
			}}
		>
			<span aria-live="polite">{said ?? label}</span>
			{what && <span className="visually-hidden"> {what}</span>}
		</button>
	);
}
