import { type ReactNode, useRef } from "react";

/**
 * A button for a destructive action that asks first, in a modal dialog: the platform's <dialog>
 * traps focus, puts it on Cancel (the first button) and closes on Escape.
 */
export function ConfirmButton({
	children,
	question,
	confirmLabel,
	onConfirm,
	disabled,
	className = "danger",
}: {
	children: ReactNode;
	question: ReactNode;
	confirmLabel: string;
	onConfirm: () => void;
	disabled?: boolean;
	className?: string;
}) {
	const dialog = useRef<HTMLDialogElement>(null);
	return (
		<>
			<button type="button" className={className} disabled={disabled} onClick={() => dialog.current?.showModal()}>
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
