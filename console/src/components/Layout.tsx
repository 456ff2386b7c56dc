import { type ReactNode, Suspense, useEffect, useRef } from "react";
import { ErrorBoundary, type FallbackProps } from "react-error-boundary";
import { NavLink, useLocation, useNavigationType } from "react-router";
import type { User } from "../api";
import { focusPageHeading, keepFocusThroughPending } from "../focus";
import { utcDate, utcDateTime } from "../format";
import { useProjects, useSites } from "../queries";
import { useSession } from "../session";
import { lastUsed } from "./lastUsed";

/** "Pro", "trial until 3 Dec", or "trial ended". */
export function planLabel(user: User): string {
	if (user.plan === "pro") return "Pro";
	return user.access ? `trial until ${utcDate(user.trial_ends_at)}` : "trial ended";
}

/**
 * The project or site in the current URL, so every area's link keeps it; else the one last opened,
 * unless the lists pages last read no longer hold it (revoked or deleted, here or in another tab):
 * a link to it would open a page that is gone. The lists are not read for the links alone.
 */
function useCurrentScope() {
	const [, area, id] = useLocation().pathname.split("/").map(decodeURIComponent);
	const projects = useProjects({ read: false }).data;
	const sites = useSites({ read: false }).data;
	const lastProject = lastUsed.project.get();
	const lastSite = lastUsed.site.get();
	const project = ["projects", "feedback", "issues"].includes(area) && id ? id : projects?.some((k) => k.project_name === lastProject) === false ? null : lastProject;
	const site = ["analytics", "crawlers"].includes(area) && id ? id : sites?.some((s) => s.tracking_id === lastSite) === false ? null : lastSite;
	return { project, site };
}

/**
 * Focus on the new page's heading after each navigation the owner makes (a link, the picker, Back):
 * not on the first page loaded, where the browser starts at the top, nor on a redirect.
 */
function useFocusOnNavigation(pathname: string) {
	const navigationType = useNavigationType();
	const shown = useRef(pathname);
	useEffect(() => {
		if (shown.current === pathname) return;
		shown.current = pathname;
		if (navigationType !== "REPLACE") return focusPageHeading();
	}, [pathname, navigationType]);
}

const scoped = (area: string, id: string | null) => (id ? `/${area}/${encodeURIComponent(id)}` : `/${area}`);

export function Layout({ children }: { children: ReactNode }) {
	const { user, signOut } = useSession();
	const { project, site } = useCurrentScope();
	const { pathname } = useLocation();
	useFocusOnNavigation(pathname);
	useEffect(keepFocusThroughPending, []);
	if (!user) return null;
	const areas: Array<[string, string]> = [
		["Projects", "/projects"],
		["Feedback", scoped("feedback", project)],
		["Issues", scoped("issues", project)],
		["Analytics", scoped("analytics", site)],
		["Crawlers", scoped("crawlers", site)],
		["Account", "/account"],
	];
	return (
		<>
			<a className="skip" href="#main">
				Skip to content
			</a>
			<header className="topbar">
				<div className="bar">
					<NavLink to="/projects" className="brand" aria-label="svc home">
						svc
					</NavLink>
					<span className="muted who">
						{user.email} · <NavLink to="/account">{planLabel(user)}</NavLink>
					</span>
					<button type="button" onClick={signOut}>
						Sign out
					</button>
				</div>
				<nav aria-label="Areas">
					<ul>
						{areas.map(([label, to]) => (
							<li key={label}>
								<NavLink to={to} className={({ isActive }) => (isActive ? "active" : undefined)}>
									{label}
								</NavLink>
							</li>
						))}
					</ul>
				</nav>
			</header>
			{user.access && user.plan !== "pro" && Date.parse(user.trial_ends_at) - Date.now() < 3 * 86_400_000 && (
				<p className="banner" role="status">
					Your trial ends {utcDateTime(user.trial_ends_at)}. After that nothing is collected until the account is on Pro.
				</p>
			)}
			{!user.access && (
				<p className="banner error" role="alert">
					Your access has ended: the trial is over and this account is not on Pro. Nothing is collected and the owner views are closed until
					you upgrade; your data is kept. <NavLink to="/account">Account</NavLink>
				</p>
			)}
			<main id="main">
				{/* A page that fails to load or render says so here, and the navigation stays usable. */}
				<ErrorBoundary FallbackComponent={PageFailed} resetKeys={[pathname]}>
					<Suspense fallback={<p className="muted" role="status">Loading…</p>}>{children}</Suspense>
				</ErrorBoundary>
			</main>
		</>
	);
}

/** A failed page, in words; a reload fetches its code again (a failed import is not retried). */
function PageFailed({ error }: FallbackProps) {
	return (
		<div className="banner error" role="alert">
			<p>This page could not be shown: {error instanceof Error ? error.message : String(error)}</p>
			<button type="button" onClick={() => window.location.reload()}>
				Reload
			</button>
		</div>
	);
}
