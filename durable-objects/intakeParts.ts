import type { RateWindow } from "../domain/limits";
import type { HeldWindows } from "./heldWindows";
import type { ProjectAlerts } from "./projectAlerts";

/** What both of a ProjectCollector's intakes (LogIntake, FeedbackIntake) work with of their object. */
export interface IntakeCommon {
	windows: HeldWindows;
	alerts: ProjectAlerts;
	/** Keeps the windows' hits until they expire (the object's alarm). */
	tookHits: (now: number, windows: RateWindow[]) => Promise<void>;
	/** Moves what was accepted to D1 soon (the object's alarm). */
	flushSoon: () => Promise<void>;
}
