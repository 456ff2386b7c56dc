import { ChangePasswordForm, SignOutOtherSessions } from "../components/AccountSecurity";
import { planLabel } from "../components/Layout";
import { utcDateTime } from "../format";
import { usePageTitle } from "../components/pageTitle";
import { useSession } from "../session";

export function AccountPage() {
	const { user, signOut } = useSession();
	usePageTitle("Account");
	if (!user) return null;
	return (
		<section>
			<h1>Account</h1>
			<div className="card">
				<dl className="fields">
					<div>
						<dt>Email</dt>
						<dd>{user.email}</dd>
					</div>
					<div>
						<dt>Plan</dt>
						<dd>{user.plan === "pro" ? "Pro" : user.access ? "Trial (every feature, until the trial ends)" : "Free (the trial has ended)"}</dd>
					</div>
					<div>
						<dt>Trial</dt>
						<dd>
							{user.plan === "pro"
								? "Not needed on Pro"
								: `${user.access ? "ends" : "ended"} ${utcDateTime(user.trial_ends_at)}`}
						</dd>
					</div>
					<div>
						<dt>Access</dt>
						<dd data-testid="access">{user.access ? `Active (${planLabel(user)})` : "Ended: ingestion and the owner views answer 402 until you upgrade"}</dd>
					</div>
				</dl>
				{!user.access && (
					<p>
						Your data is kept. To upgrade a self-hosted service, its operator sets the plan with <code>POST /api/admin/users/plan</code> (see
						docs/api.md).
					</p>
				)}
				<button type="button" onClick={signOut}>
					Sign out
				</button>
			</div>
			<ChangePasswordForm email={user.email} />
			<SignOutOtherSessions />
		</section>
	);
}
