// Secrets live outside wrangler.toml (`wrangler secret put`, or the environment for `npm start`),
// so `wrangler types` cannot see them. Both Env names the generated file declares get them.
interface SvcSecrets {
	/** Guards POST /api/admin/users/plan; when unset that endpoint is 404. */
	ADMIN_TOKEN?: string;
}
interface Env extends SvcSecrets {}
declare namespace Cloudflare {
	interface Env extends SvcSecrets {}
}
