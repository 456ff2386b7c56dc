import { useQuery } from "@tanstack/react-query";
import { createContext, type ReactNode, useCallback, useContext, useEffect, useState } from "react";
import { useNavigate } from "react-router";
import { api, sessionToken, type User } from "./api";
import { lastUsed } from "./components/lastUsed";
import { queryClient, sessionEvents } from "./queryClient";

interface Session {
	user: User | null;
	loading: boolean;
	/** The session ended while the console was open (the API answered 401): the sign-in form says so. */
	expired: boolean;
	signIn: (mode: "signin" | "signup", email: string, password: string) => Promise<void>;
	signOut: () => Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

/** The signed-in owner, read again on focus so a plan change or a trial's end shows without a reload. */
export function SessionProvider({ children }: { children: ReactNode }) {
	const [token, setToken] = useState(sessionToken.get());
	const [expired, setExpired] = useState(false);
	const me = useQuery({ queryKey: ["me"], queryFn: () => api.me().then((r) => r.user), enabled: token !== null });

	const forget = useCallback(() => {
		sessionToken.clear();
		queryClient.clear();
		// The next owner to sign in on this browser starts from their own projects and sites.
		lastUsed.project.clear();
		lastUsed.site.clear();
		setToken(null);
	}, []);

	useEffect(() => {
		// A 401 to a request made with the session. One that comes after this console signed out (a
		// request still in flight) is no news: the token is already gone.
		const ended = () => {
			if (sessionToken.get() === null) return;
			setExpired(true);
			forget();
		};
		const refreshUser = () => queryClient.invalidateQueries({ queryKey: ["me"] });
		sessionEvents.addEventListener("401", ended);
		sessionEvents.addEventListener("402", refreshUser);
		return () => {
			sessionEvents.removeEventListener("401", ended);
			sessionEvents.removeEventListener("402", refreshUser);
		};
	}, [forget]);

	const signIn = useCallback(async (mode: "signin" | "signup", email: string, password: string) => {
		const session = mode === "signup" ? await api.signUp(email, password) : await api.signIn(email, password);
		sessionToken.set(session.token);
		queryClient.setQueryData(["me"], session.user);
		setExpired(false);
		setToken(session.token);
	}, []);

	const navigate = useNavigate();
	const signOut = useCallback(async () => {
		await api.signOut().catch(() => {});
		setExpired(false);
		forget();
		// Whoever signs in next starts at their own projects, not at a page of this owner's; a session
		// that merely expired keeps its address, to come back to it.
		navigate("/", { replace: true });
	}, [forget, navigate]);

	const user = token === null ? null : (me.data ?? null);
	return <SessionContext value={{ user, loading: token !== null && me.isPending, expired, signIn, signOut }}>{children}</SessionContext>;
}

export function useSession(): Session {
	const session = useContext(SessionContext);
	if (!session) throw new Error("useSession outside SessionProvider");
	return session;
}
