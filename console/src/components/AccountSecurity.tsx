import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api } from "../api";
import { plural } from "../format";
import { describeError } from "./QueryState";

/** The password change's fields, as the form words them. */
const PASSWORD_WORDS = {
	current_password: { name: "The current password" },
	new_password: { name: "The new password", says: (message: string) => (message === "must differ from current_password" ? "The new password must differ from the current one." : undefined) },
};

/** "2 other sessions signed out", in words a person reads. */
function signedOutText(sessions: number): string {
	if (sessions === 0) return "No other session was signed in.";
	return `${plural(sessions, "other session")} signed out.`;
}

/**
 * Current, new and confirmed password. A password manager fills the current one and offers to
 * save the new one, for the account the hidden username field names.
 */
export function ChangePasswordForm({ email }: { email: string }) {
	const [mismatch, setMismatch] = useState(false);
	const change = useMutation({ mutationFn: ({ current, next }: { current: string; next: string }) => api.changePassword(current, next) });

	function submit(event: FormEvent<HTMLFormElement>) {
		event.preventDefault();
		const form = event.currentTarget;
		const fields = new FormData(form);
		const next = String(fields.get("new-password"));
		const matches = next === String(fields.get("confirm-password"));
		setMismatch(!matches);
		if (!matches) {
			change.reset();
			return;
		}
		change.mutate({ current: String(fields.get("current-password")), next }, { onSuccess: () => form.reset() });
	}

	const error = mismatch ? "The new password and its confirmation differ." : change.error && describeError(change.error, { action: true, fields: PASSWORD_WORDS });
	return (
		<form className="card" onSubmit={submit} aria-labelledby="change-password">
			<h2 id="change-password">Change password</h2>
			<input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
			<div className="field-column">
				<label>
					Current password
					<input name="current-password" type="password" autoComplete="current-password" maxLength={1024} required />
				</label>
				<label>
					New password
					<input name="new-password" type="password" autoComplete="new-password" minLength={8} maxLength={1024} aria-describedby="new-password-rule" required />
				</label>
				<label>
					Confirm new password
					<input name="confirm-password" type="password" autoComplete="new-password" minLength={8} maxLength={1024} required />
				</label>
			</div>
			<p id="new-password-rule" className="muted">
				At least 8 characters. Every other session of this account is signed out; this one stays signed in.
			</p>
			{error && (
				<p className="error" role="alert">
					{error}
				</p>
			)}
			{change.isSuccess && (
				<p className="ok" role="status">
					Password changed. {signedOutText(change.data.signed_out_sessions)}
				</p>
			)}
			<button type="submit" className="primary" disabled={change.isPending}>
				Change password
			</button>
		</form>
	);
}

/** Ends every session of the account but this one: a browser left signed in elsewhere, a lost laptop. */
export function SignOutOtherSessions() {
	const signOut = useMutation({ mutationFn: api.signOutOtherSessions });
	return (
		<div className="card">
			<h2>Other sessions</h2>
			<p className="muted">Signs this account out on every other browser and device; this one stays signed in.</p>
			{signOut.isError && (
				<p className="error" role="alert">
					{describeError(signOut.error, { action: true })}
				</p>
			)}
			{signOut.isSuccess && (
				<p className="ok" role="status">
					{signedOutText(signOut.data.signed_out_sessions)}
				</p>
			)}
			<button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
				Sign out other sessions
			</button>
		</div>
	);
}
