// The Worker `npm run bench` serves: the app's own default export and Durable Object classes,
// unchanged, with every binding they touch wrapped in a counter. Wrangler bundles this module in
// place of workers/index.ts (same wrangler.toml, same build), so the only code added to the app's
// path is the counting itself, a few property lookups per D1 or Durable Object call.
//
// The Worker and its Durable Objects run in one isolate, so one module-level tally sees all of
// them; GET /__bench/counters reads it and POST /__bench/counters/reset zeroes it.
import app, {
	ProjectCollector as AppProjectCollector,
	RateLimiter as AppRateLimiter,
	SiteCollector as AppSiteCollector,
} from "../workers/index.ts";

const emptyTally = () => ({
	/** Requests the app answered, by status. */
	responses: {},
	/** Calls made on a Durable Object stub (RPC methods and fetch), by class. */
	objectCalls: {},
	/** Alarms that ran, by class. */
	alarms: {},
	/** D1 statements executed (each member of a batch is one), by who ran them and by kind. */
	d1: { statements: 0, reads: 0, writes: 0, roundTrips: 0, byCaller: {} },
	/** R2 operations, by method. */
	r2: {},
});
let tally = emptyTally();

const bump = (record, key) => {
	record[key] = (record[key] ?? 0) + 1;
};

/** Statements that only read: SELECT, or WITH ... SELECT (no statement of the app writes after a WITH). */
const isRead = (sql) => /^\s*(select|with)\b/i.test(sql);

/** A bound function for every method: native binding objects refuse a Proxy as `this`. */
function passThrough(target, prop) {
	const value = target[prop];
	return typeof value === "function" ? value.bind(target) : value;
}

function countedD1(db, caller) {
	// Statements handed back to the app are proxies; batch() needs the runtime's own objects.
	const originals = new WeakMap();
	const sqlOf = new WeakMap();
	const record = (sqls) => {
		tally.d1.roundTrips++;
		for (const sql of sqls) {
			tally.d1.statements++;
			bump(tally.d1, isRead(sql) ? "reads" : "writes");
			bump(tally.d1.byCaller, caller);
		}
	};
	const wrapStatement = (statement, sql) => {
		const proxy = new Proxy(statement, {
			get(target, prop) {
				if (prop === "bind") return (...params) => wrapStatement(target.bind(...params), sql);
				if (prop === "run" || prop === "all" || prop === "first" || prop === "raw") {
					return (...args) => {
						record([sql]);
						return target[prop](...args);
					};
				}
				return passThrough(target, prop);
			},
		});
		originals.set(proxy, statement);
		sqlOf.set(proxy, sql);
		return proxy;
	};
	return new Proxy(db, {
		get(target, prop) {
			if (prop === "prepare") return (sql) => wrapStatement(target.prepare(sql), sql);
			if (prop === "batch") {
				return (statements) => {
					record(statements.map((s) => sqlOf.get(s) ?? ""));
					return target.batch(statements.map((s) => originals.get(s) ?? s));
				};
			}
			if (prop === "exec") {
				return (sql) => {
					record([sql]);
					return target.exec(sql);
				};
			}
			return passThrough(target, prop);
		},
	});
}

function countedStub(stub, className) {
	return new Proxy(stub, {
		get(target, prop) {
			const value = target[prop];
			// `id` and `name` are plain members; a symbol or `then` is never an RPC call.
			if (typeof value !== "function" || typeof prop === "symbol" || prop === "then") return value;
			return (...args) => {
				bump(tally.objectCalls, className);
				return Reflect.apply(value, target, args);
			};
		},
	});
}

function countedNamespace(namespace, className) {
	return new Proxy(namespace, {
		get(target, prop) {
			if (prop === "get" || prop === "getByName") return (...args) => countedStub(target[prop](...args), className);
			return passThrough(target, prop);
		},
	});
}

function countedBucket(bucket) {
	return new Proxy(bucket, {
		get(target, prop) {
			const value = passThrough(target, prop);
			if (typeof value !== "function") return value;
			return (...args) => {
				bump(tally.r2, String(prop));
				return value(...args);
			};
		},
	});
}

const NAMESPACES = { RATE_LIMITER: "RateLimiter", PROJECT_COLLECTOR: "ProjectCollector", SITE_COLLECTOR: "SiteCollector" };

const countedEnvs = new WeakMap();

/** The app's env with counters on D1, R2 and the Durable Object namespaces; made once per env and caller. */
function countedEnv(env, caller) {
	const byCaller = countedEnvs.get(env) ?? new Map();
	countedEnvs.set(env, byCaller);
	let counted = byCaller.get(caller);
	if (!counted) {
		counted = { ...env, DB: countedD1(env.DB, caller), ATTACHMENTS: countedBucket(env.ATTACHMENTS) };
		for (const [binding, className] of Object.entries(NAMESPACES)) counted[binding] = countedNamespace(env[binding], className);
		byCaller.set(caller, counted);
	}
	return counted;
}

/** The app's Durable Object class, unchanged but for its env (counted) and its alarms (tallied). */
function counted(AppObject, className) {
	return class extends AppObject {
		constructor(ctx, env) {
			super(ctx, countedEnv(env, className));
		}
		alarm() {
			bump(tally.alarms, className);
			return super.alarm();
		}
	};
}

export const RateLimiter = counted(AppRateLimiter, "RateLimiter");
export const ProjectCollector = counted(AppProjectCollector, "ProjectCollector");
export const SiteCollector = counted(AppSiteCollector, "SiteCollector");

export default {
	async fetch(request, env, ctx) {
		// The URL is parsed only for the bench's own requests: the app's pay nothing more than a search.
		if (request.url.includes("/__bench/")) {
			const { pathname } = new URL(request.url);
			if (pathname === "/__bench/counters") return Response.json(tally);
			if (pathname === "/__bench/counters/reset" && request.method === "POST") {
				tally = emptyTally();
				return new Response(null, { status: 204 });
			}
		}
		const response = await app.fetch(request, countedEnv(env, "Worker"), ctx);
		bump(tally.responses, response.status);
		return response;
	},
};
