import { type FormEvent, useState } from "react";
import { EMAIL_MAX_CHARS } from "../../../domain/limits";
import { usePageTitle } from "../components/pageTitle";
import { describeError } from "../components/QueryState";
import { useSession } from "../session";

/**
 * The credentials' fields, as the form words them. The browser takes an address such as
 * ana@example, which the service does not, and one of any length.
 */
const CREDENTIAL_WORDS = {
	email: {
		name: "The email address",
		says: (message: string) =>
			message.startsWith("must be at most ") ? `An email address has at most ${EMAIL_MAX_CHARS} characters.` : "Enter a whole email address, such as ana@example.com.",
	},
	password: { name: "The password" },
};

export function SignInPage() {
	const { signIn, expired } = useSession();
	const [mode, setMode] = useState<"signin" | "signup">("signin");
	usePageTitle(mode === "signin" ? "Sign in" : "Create account");
	const [error, setError] = useState<string>();
	const [busy, setBusy] = useState(false);

	async function submit(event: FormEvent<HTMLFormElement>) {
		event.preventDefault();
		const form = new FormData(event.currentTarget);
		setBusy(true);
		setError(undefined);
		try {
			await signIn(mode, String(form.get("email")), String(form.get("password")));
		} catch (err) {
			setError(describeError(err, { action: true, fields: CREDENTIAL_WORDS }));
		} finally {
			setBusy(false);
		}
	}

	return (
		<form className="card narrow" onSubmit={submit} aria-label={mode === "signin" ? "Sign in" : "Create account"}>
			<h1>{mode === "signin" ? "Sign in to svc" : "Create your svc account"}</h1>
			{/* Why the page the owner was on gave way to this form; an answer to the form says more. */}
			{expired && mode === "signin" && !error && (
				<p className="notice" role="status">
					Your session has ended: it expired, or it was signed out from another device. Sign in again.
				</p>
			)}
			<label>
				Email
				<input name="email" type="email" autoComplete="email" required />
			</label>
			<label>
				Password
				<input
					name="password"
					type="password"
					minLength={8}
					autoComplete={mode === "signin" ? "current-password" : "new-password"}
					aria-describedby={mode === "signup" ? "password-rule" : undefined}
					required
				/>
			</label>
			{mode === "signup" && (
				<p id="password-rule" className="muted">
					At least 8 characters.
				</p>
			)}
			{error && <p className="error" role="alert">{error}</p>}
			<button type="submit" className="primary" disabled={busy}>
				{mode === "signin" ? "Sign in" : "Create account"}
			</button>
			<button
				type="button"
				className="link"
				onClick={() => {
					// The other form's answer is no answer to this one.
					setError(undefined);
					setMode(mode === "signin" ? "signup" : "signin");
				}}
			>
				{mode === "signin" ? "No account yet? Create one (14-day trial)" : "Have an account? Sign in"}
			</button>
		</form>
	);
}
