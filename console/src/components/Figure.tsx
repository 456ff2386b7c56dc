import type { ReactNode } from "react";

/**
 * One headline number with what it counts, and optionally a line below (a change, a date). With
 * `onPress` it is a toggle button (a dashboard's top figure that picks what the chart draws),
 * `pressed` while chosen; its parts are then spans, as a button holds only phrasing content.
 */
export function Figure({
	label,
	value,
	note,
	testId,
	pressed,
	onPress,
}: {
	label: string;
	value: ReactNode;
	note?: ReactNode;
	testId?: string;
	pressed?: boolean;
	onPress?: () => void;
}) {
	const Part = onPress ? "span" : "div";
	const parts = (
		<>
			<Part className="label">{label}</Part>
			<Part className="value">{value}</Part>
			{note !== undefined && <Part className="note">{note}</Part>}
		</>
	);
	if (!onPress)
		return (
			<div className="figure" data-testid={testId}>
				{parts}
			</div>
		);
	return (
		<button type="button" className="figure" data-testid={testId} aria-pressed={pressed ?? false} onClick={onPress}>
			{parts}
		</button>
	);
}
