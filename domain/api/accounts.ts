/**
 * Answer types of the HTTP API (docs/api.md), shared by the Worker's handlers and the console.
 * Like every module under domain/api/, dependency-free: the console bundles it.
 */

/** The signed-in owner (docs/api.md#accounts). */
export interface UserView {
	id: string;
	email: string;
	plan: "free" | "pro";
	trial_ends_at: string;
	/** Pro, or a trial that has not ended: what every owner endpoint but /api/auth/* requires (else 402). */
	access: boolean;
}

export interface SessionView {
	token: string;
	user: UserView;
}

/** How many of the owner's other sessions a password change or "sign out other sessions" ended. */
export interface SignedOutView {
	signed_out_sessions: number;
}

export interface PasswordChangedView extends SignedOutView {
	user: UserView;
}
