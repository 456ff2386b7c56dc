// What one binding call costs on the runtime path `npm run bench` measures: a Worker that makes
// exactly one D1 read, one Durable Object call, or one write into a Durable Object's own SQLite
// per request, and answers 204; or reads a POST's JSON body and answers JSON. Its figures are
// references for reading the app's, not targets.
import { DurableObject } from "cloudflare:workers";

export class Reference extends DurableObject {
	constructor(ctx, env) {
		super(ctx, env);
		ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS hits (at INTEGER NOT NULL)");
	}

	ping() {
		return true;
	}

	write() {
		this.ctx.storage.sql.exec("INSERT INTO hits (at) VALUES (?)", Date.now());
		return true;
	}
}

const ROUTES = {
	"/d1-read": (env) => env.DB.prepare("SELECT 1").first(),
	"/do-call": (env) => env.REFERENCE.getByName("reference").ping(),
	"/do-write": (env) => env.REFERENCE.getByName("reference").write(),
};

export default {
	async fetch(request, env) {
		const { pathname } = new URL(request.url);
		// What the runtime charges any ingestion path for its request and answer, before the app's own work.
		if (pathname === "/post") {
			const body = JSON.parse(await request.text());
			return Response.json({ success: true, id: body.title });
		}
		const route = ROUTES[pathname];
		if (!route) return new Response(null, { status: 404 });
		await route(env);
		return new Response(null, { status: 204 });
	},
};
