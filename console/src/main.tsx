import "./locale";
import { QueryClientProvider } from "@tanstack/react-query";
import { type ComponentType, lazy, StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter, Navigate, Route, Routes } from "react-router";
import { ChooseProject, ChooseSite } from "./components/Choose";
import { Layout } from "./components/Layout";
import { SignInPage } from "./pages/SignInPage";
import { queryClient } from "./queryClient";
import { SessionProvider, useSession } from "./session";
import "./styles.css";

/** A page loaded with its route, so the first load carries only the page it shows. */
function page<M>(load: () => Promise<M>, name: keyof M) {
	return lazy(() => load().then((module) => ({ default: module[name] as ComponentType })));
}

const ProjectsPage = page(() => import("./pages/ProjectsPage"), "ProjectsPage");
const ProjectPage = page(() => import("./pages/ProjectPage"), "ProjectPage");
const SourceMapsPage = page(() => import("./pages/SourceMapsPage"), "SourceMapsPage");
const FeedbackPage = page(() => import("./pages/FeedbackPage"), "FeedbackPage");
const IssuesPage = page(() => import("./pages/IssuesPage"), "IssuesPage");
const IssuePage = page(() => import("./pages/IssuePage"), "IssuePage");
const AnalyticsPage = page(() => import("./pages/AnalyticsPage"), "AnalyticsPage");
const DashboardPage = page(() => import("./pages/DashboardPage"), "DashboardPage");
const CrawlersPage = page(() => import("./pages/CrawlersPage"), "CrawlersPage");
const AccountPage = page(() => import("./pages/AccountPage"), "AccountPage");

function Shell() {
	const { user, loading } = useSession();
	if (loading) return <p className="muted centered" role="status">Loading…</p>;
	if (!user) return <SignInPage />;
	return (
		<Layout>
			<Routes>
				<Route path="/" element={<Navigate to="/projects" replace />} />
				<Route path="/projects" element={<ProjectsPage />} />
				<Route path="/projects/:project" element={<ProjectPage />} />
				<Route path="/projects/:project/sourcemaps" element={<SourceMapsPage />} />
				<Route path="/feedback" element={<ChooseProject area="feedback" title="Feedback" />} />
				<Route path="/feedback/:project" element={<FeedbackPage />} />
				<Route path="/feedback/:project/:id" element={<FeedbackPage />} />
				<Route path="/issues" element={<ChooseProject area="issues" title="Issues" />} />
				<Route path="/issues/:project" element={<IssuesPage />} />
				<Route path="/issues/:project/:hash" element={<IssuePage />} />
				<Route path="/analytics" element={<AnalyticsPage />} />
				<Route path="/analytics/:site" element={<DashboardPage />} />
				<Route path="/crawlers" element={<ChooseSite area="crawlers" title="Crawlers" />} />
				<Route path="/crawlers/:site" element={<CrawlersPage />} />
				<Route path="/account" element={<AccountPage />} />
				<Route path="*" element={<Navigate to="/projects" replace />} />
			</Routes>
		</Layout>
	);
}

/**
 * A tab opened before the console was updated asks for its other pages' files by the old build's
 * names, which the update removed: the page is loaded again, from the new build. Once a minute at
 * most, so that a file missing for another reason cannot reload it for ever; the page then says it
 * could not be shown, with a Reload button.
 */
const RELOADED_AT = "svc.reloadedForUpdate";
window.addEventListener("vite:preloadError", () => {
	if (Date.now() - Number(sessionStorage.getItem(RELOADED_AT)) < 60_000) return;
	sessionStorage.setItem(RELOADED_AT, String(Date.now()));
	window.location.reload();
});

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
createRoot(root).render(
	<StrictMode>
		<QueryClientProvider client={queryClient}>
			<BrowserRouter>
				<SessionProvider>
					<Shell />
				</SessionProvider>
			</BrowserRouter>
		</QueryClientProvider>
	</StrictMode>,
);
