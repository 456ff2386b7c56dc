import type { ReactNode } from "react";

/** One headline number with what it counts, and optionally a line below (a change, a date). */
export function Figure({ label, value, note, testId }: { label: string; value: ReactNode; note?: ReactNode; testId?: string }) {
	return (
		<div className="figure" data-testid={testId}>
			<div className="label">{label}</div>
			<div className="value">{value}</div>
			{note !== undefined && <div className="note">{note}</div>}
		</div>
	);
}
