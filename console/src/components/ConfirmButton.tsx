import { type ReactNode, type RefObject, useRef } from "react";
import { keepFocusThroughRemoval } from "../focus";

/**
 * A button for a destructive action that asks first, in a modal dialog: the platform's <dialog>
 * traps focus, puts it on Cancel (the first button) and closes on Escape. `removes`: the action
 * removes the item the button is in (or, for a selection, disables the button), and focus then
 * goes to the item in its place rather than to the body. `opener`: a ref to the button, for its
 * page to give focus back to.
 */
export function ConfirmButton({
	children,
	question,
	confirmLabel,
	onConfirm,
	disabled,
	className = "danger",
	removes = false,
	opener: given,
}: {
	children: ReactNode;
	question: ReactNode;
	confirmLabel: string;
	onConfirm: () => void;
	disabled?: boolean;
	className?: string;
	removes?: boolean;
	opener?: RefObject<HTMLButtonElement | null>;
}) {
	const dialog = useRef<HTMLDialogElement>(null);
	const own = useRef<HTMLButtonElement>(null);
	const opener = given ?? own;
	return (
		<>
			<button ref={opener} type="button" className={className} disabled={disabled} onClick={() => dialog.current?.showModal()}>
				{children}
			</button>
			<dialog ref={dialog} className="confirm" aria-label={confirmLabel}>
				<p>{question}</p>
				<form method="dialog" className="row end">
					<button type="submit">
						Cancel
					</button>
					<button
						type="button"
						className="danger solid"
						onClick={() => {
							dialog.current?.close();
							if (removes && opener.current) keepFocusThroughRemoval(opener.current);
							onConfirm();
						}}
					>
						{confirmLabel}
					</button>
				</form>
			</dialog>
		</>
	);
}
