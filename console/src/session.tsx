import { createContext, type ReactNode, useCallback, useContext, useEffect, useState } from "react";
import { ApiError, api, sessionToken, type User } from "./api";

interface Session {
	user: User | null;
	loading: boolean;
	signIn: (mode: "signin" | "signup", email: string, password: string) => Promise<void>;
	signOut: () => Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
	const [user, setUser] = useState<User | null>(null);
	const [loading, setLoading] = useState(Boolean(sessionToken.get()));

	useEffect(() => {
		if (!sessionToken.get()) return;
		api
			.me()
			.then(({ user }) => setUser(user))
			.catch((err) => {
				if (err instanceof ApiError && err.status === 401) sessionToken.clear();
			})
			.finally(() => setLoading(false));
	}, []);

	const signIn = useCallback(async (mode: "signin" | "signup", email: string, password: string) => {
		const { token, user } = mode === "signup" ? await api.signUp(email, password) : await api.signIn(email, password);
		sessionToken.set(token);
		setUser(user);
	}, []);

	const signOut = useCallback(async () => {
		await api.signOut().catch(() => {});
		sessionToken.clear();
		setUser(null);
	}, []);

	return <SessionContext value={{ user, loading, signIn, signOut }}>{children}</SessionContext>;
}

export function useSession(): Session {
	const session = useContext(SessionContext);
	if (!session) throw new Error("useSession outside SessionProvider");
	return session;
}
