import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter, Link, Navigate, Route, Routes } from "react-router";
import { FeedbackPage } from "./pages/FeedbackPage";
import { ProjectsPage } from "./pages/ProjectsPage";
import { SignInPage } from "./pages/SignInPage";
import { SourceMapsPage } from "./pages/SourceMapsPage";
import { SessionProvider, useSession } from "./session";
import "./styles.css";

function Shell() {
	const { user, loading, signOut } = useSession();
	if (loading) return <p className="muted centered">Loading…</p>;
	if (!user) return <SignInPage />;
	return (
		<>
			<header className="topbar">
				<Link to="/" className="brand">
					svc
				</Link>
				<span className="muted">
					{user.email} · {user.plan === "pro" ? "Pro" : user.access ? `trial until ${new Date(user.trial_ends_at).toLocaleDateString()}` : "trial ended"}
				</span>
				<button type="button" onClick={signOut}>
					Sign out
				</button>
			</header>
			{!user.access && <p className="banner error">Your trial has ended: ingestion and the owner views need Pro.</p>}
			<main>
				<Routes>
					<Route path="/" element={<ProjectsPage />} />
					<Route path="/projects/:projectName/feedback" element={<FeedbackPage />} />
					<Route path="/projects/:projectName/sourcemaps" element={<SourceMapsPage />} />
					<Route path="*" element={<Navigate to="/" replace />} />
				</Routes>
			</main>
		</>
	);
}

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
createRoot(root).render(
	<StrictMode>
		<BrowserRouter>
			<SessionProvider>
				<Shell />
			</SessionProvider>
		</BrowserRouter>
	</StrictMode>,
);
