/**
 * svc API Worker. Routes:
 *
 *   Public ingestion (CORS, OPTIONS, 405 for other methods)
 *     POST   /functions/v1/submit-feedback        feedback with a project key
 *     POST   /api/app-logs-ingest                  a log event with a project key → {ok, group_hash, is_new}
 *     POST   /api/collect                          browser analytics event (JSON as text/plain)
 *     POST   /api/bot-crawl-ingest                 AI-crawler visit telemetry
 *     POST   /api/:project_id/envelope/            Sentry SDKs' envelopes: error and message events → {id}
 *     POST   /api/:project_id/store/               Sentry SDKs' single events (older SDKs) → {id}
 *     POST   /api/:project_id/security/?sentry_key=   browsers' CSP violation reports → 201
 *
 *   Tracker
 *     GET    /t.js                                 the browser tracker script
 *     GET    /t.links.js                           the same, counting outbound-link and file-download clicks
 *
 *   Accounts
 *     POST   /api/auth/signup                      {email, password} → {token, user}
 *     POST   /api/auth/login                       {email, password} → {token, user}
 *     GET    /api/auth/me                          → {user}
 *     POST   /api/auth/logout                      → 204
 *     POST   /api/auth/logout-others               → {signed_out_sessions}
 *     POST   /api/auth/password                    {current_password, new_password} → {user, signed_out_sessions}
 *     POST   /api/admin/users/plan                 ADMIN_TOKEN: {email, plan, trial_ends_at}
 *
 *   Owner (session with Pro or trial access)
 *     GET    /api/feedback-keys                    every project key, hints only
 *     GET    /api/feedback-key?project_name=       one key, hint only
 *     POST   /api/feedback-key                     create → raw_api_key once
 *     PATCH  /api/feedback-key                     configuration
 *     DELETE /api/feedback-key?project_name=       revoke
 *     POST   /api/feedback-key/regenerate          → new raw_api_key once
 *     GET    /api/feedback?project_name=&type=&status=&q=&limit=&cursor=   newest first, q a text search, pages of ≤ 1,000 and ~2 MB
 *     GET    /api/feedback.csv?project_name=&type=&status=&q=   the newest 1,000 records the filters keep, as CSV
 *     GET    /api/feedback/:id                     one whole record
 *     PATCH  /api/feedback[?id=]                   {status, ids}
 *     DELETE /api/feedback[?id=]                   {ids}
 *     GET    /api/feedback/attachments/:id         the image
 *     GET    /api/issues?project_name=&status=&environment=&release=&q=&sort=&user=&period=&limit=&cursor=   log issues with 24 hourly counts, pages of ≤ 1,000; q a Sentry search (tags too)
 *     GET    /api/issues/filter-values?project_name=   the project's environments and releases
 *     GET    /api/issues/tag-keys?project_name=&environment=   the search box's suggestions: the project's tag keys, ≤ 200
 *     GET    /api/issues/tag-values?project_name=&key=&prefix=&environment=&limit=   a tag's values most events carried, ≤ 10
 *     GET    /api/issues/:group_hash?project_name=&environment=&q=   issue, newest events (q: those matching), 24 hourly and 30 daily counts
 *     GET    /api/issues/:group_hash/events/:event_id?project_name=   one of its events, by its stored id or its SDK's
 *     GET    /api/issues/:group_hash/tags?project_name=   its events' tags, 10 values each
 *     GET    /api/issues/:group_hash/feedback?project_name=   the user feedback given about its events
 *     PATCH  /api/issues                           {project_name, group_hashes: ≤ 100, status} → {issues}
 *     POST   /api/issues/merge                     {project_name, group_hashes: 2–100} → the issue they were merged into
 *     GET    /api/issues/:group_hash/merged?project_name=   the fingerprints merged into it, with their events kept
 *     POST   /api/issues/:group_hash/unmerge       {project_name, group_hashes: ≤ 100} → {issue, unmerged}
 *     POST   /api/issues/:group_hash/notes         {project_name, text} → 201, the note as its activity lists it
 *     PATCH  /api/issues/:group_hash               {project_name, status: open|resolved|ignored}
 *     DELETE /api/issues/:group_hash?project_name= the issue and its events
 *     DELETE /api/issues                           {project_name, group_hashes: ≤ 100} → {deleted, events}: those issues and their events
 *     GET    /api/log-outcomes?project_name=&days= the key's log events per day: accepted, filtered, rate limited...
 *     PUT    /api/alert-webhook                    {project_name, url} → the project's issue-alert webhook
 *     GET    /api/alert-webhook?project_name=      → {webhook: {url, created_at, last_delivery, suppressed} | null}
 *     DELETE /api/alert-webhook?project_name=      → 204
 *     POST   /api/alert-webhook/test               {project_name} → a test alert sent now: {delivered, status, error?}
 *     GET    /api/sites                            the owner's analytics sites, ?figures=last_24h with their visitors
 *     POST   /api/sites                            {domain, name?} → 201, new tracking_id
 *     GET    /api/sites/:tracking_id               one site
 *     PATCH  /api/sites/:tracking_id               {name?, domain?, active?, attack_mode?}
 *     DELETE /api/sites/:tracking_id               the site, its events and crawler visits
 *     GET    /api/sites/:tracking_id/stats         ?from=&to=&limit=&compare=previous&<filter>= page views, visitors, sessions...
 *     GET    /api/sites/:tracking_id/stats/realtime        ?limit=&exact=true&<filter>= the last 30 minutes by minute, visitors now
 *     GET    /api/sites/:tracking_id/stats/:breakdown.csv   one breakdown of the statistics as CSV
 *     GET    /api/sites/:tracking_id/pages         ?from=&to=&limit= page views and AI-crawler visits per page
 *     GET    /api/sites/:tracking_id/crawlers      ?from=&to=&limit= AI-crawler visits
 *     GET    /api/sites/:tracking_id/events        ?from=&to=&limit= raw events, newest first
 *     GET    /api/sites/:tracking_id/identities    ?limit= users identified by the tracker, latest first
 *     POST   /api/upload-tokens                    {project_name} → 201, raw token once
 *     GET    /api/upload-tokens?project_name=      the project's upload tokens, hints only
 *     DELETE /api/upload-tokens/:id                revoke
 *     GET    /api/artifacts?project_name=&release= the project's source maps and files, newest first
 *     DELETE /api/artifacts/:id?project_name=      one of them
 *     DELETE /api/artifacts?project_name=&release= every one of a release
 *
 *   Source-map uploads (an upload token; the plain upload also takes the owner's session)
 *     GET    /api/0/organizations/:org/chunk-upload/               sentry-cli: the upload options
 *     POST   /api/0/organizations/:org/chunk-upload/               sentry-cli: chunks of a bundle
 *     POST   /api/0/organizations/:org/artifactbundle/assemble/    sentry-cli: missing chunks, then the bundle stored → {state}
 *     POST   /api/0/organizations/:org/releases/                   sentry-cli's release steps: accepted, nothing
 *     POST   /api/0/projects/:org/:project/releases/                 recorded (releases come from events)
 *     GET    /api/0/{organizations/:org,projects/:org/:project}/releases/:version/
 *     PUT    /api/0/{organizations/:org,projects/:org/:project}/releases/:version/
 *     POST   /api/0/organizations/:org/releases/:version/deploys/
 *     GET    /api/0/organizations/:org/repos/                      → []
 *     POST   /api/releases/:release/artifacts?project_name=        multipart files named ~/path → 201
 *
 * Everything else under /api is a JSON 404; other paths are the console's static assets.
 *
 * Scheduled (the cron trigger in wrangler.toml): the clean-up of expired data and sessions.
 */
import { type IRequest, Router } from "itty-router";
import { readAlertWebhook, removeAlertWebhook, setAlertWebhook, testAlertWebhook } from "./alerts/alertWebhook";
import { changeOwnPassword, setUserPlan, signIn, signOut, signOutOthers, signUp, whoAmI } from "./auth/accounts";
import { requireAccess, requireOwner } from "./auth/session";
import { collect } from "./collect/collect";
import { serveLinksTracker, serveTracker } from "./collect/serveTracker";
import { ingestCrawl } from "./crawl/ingestCrawl";
import { deleteFeedback, downloadAttachment, exportFeedbackCsv, listFeedback, readFeedback, updateFeedbackStatus } from "./feedback/ownerFeedback";
import { submitFeedback } from "./feedback/submitFeedback";
import { errorResponse, INGEST_CORS_HEADERS, json, methodNotAllowed, preflight, SENTRY_CORS_HEADERS, withCors } from "./http";
import { listTagKeys, listTagValues } from "./issues/issueSearchSuggestions";
import { addIssueNote, deleteIssue, deleteIssues, mergeIssues, unmergeIssue, updateIssueStatus, updateIssueStatuses } from "./issues/issueChanges";
import { listIssueFilterValues, listIssues, listMergedFingerprints, readIssue, readIssueEvent, readIssueFeedback, readIssueTags, readLogOutcomes } from "./issues/ownerIssues";
import { createKey, listKeys, readKey, regenerateKey, revokeKey, updateKeyConfiguration } from "./keys/projectKeys";
import { ingestLog } from "./logs/ingestLog";
import { cleanUp } from "./retention/cleanUp";
import { ingestEnvelope, ingestSecurityReport, ingestStore } from "./sentry/ingestSentry";
import { assembleBundle, chunkUploadOptions, forSentryCli, uploadChunks } from "./sourcemaps/chunkUpload";
import { sentryAuthInfo, sentryDeploy, sentryRelease, sentryReleaseList, sentryRepositories } from "./sourcemaps/sentryReleases";
import { deleteProjectArtifact, deleteReleaseArtifacts, listProjectArtifacts } from "./sourcemaps/ownerArtifacts";
import { uploadArtifacts } from "./sourcemaps/uploadArtifacts";
import { createUploadToken, listUploadTokens, revokeUploadToken } from "./sourcemaps/uploadTokens";
import { createSite, deleteSite, listSites, readSite, updateSite } from "./sites/sites";
import { crawlerStats } from "./stats/crawlerStats";
import { listEvents } from "./stats/listEvents";
import { listIdentities } from "./stats/listIdentities";
import { listPages } from "./stats/listPages";
import { realtimeStats } from "./stats/realtimeStats";
import { siteStats, statsCsv } from "./stats/siteStats";

export { ProjectCollector } from "../durable-objects/ProjectCollector";
export { RateLimiter } from "../durable-objects/RateLimiter";
export { SiteCollector } from "../durable-objects/SiteCollector";

type Handler = (request: IRequest, env: Env, ctx: ExecutionContext) => Promise<Response> | Response;

const router = Router<IRequest, [Env, ExecutionContext]>({ catch: errorResponse });

/** Owner endpoints: a signed-in session (else 401) with Pro or a running trial (else 402). */
const ownerWithAccess = [requireOwner, requireAccess] as const;

/**
 * The ingestion endpoints without a parameter in their path, by exact path: their requests are
 * the busiest, and skip the router's walk (and its parsing of the URL and query) to reach them.
 * Any other spelling of the path (a trailing slash, percent-encoding) goes through the router to
 * the same answer.
 */
const ingestionByPath = new Map<string, Handler>();

/** A public ingestion endpoint: POST and OPTIONS, CORS on every answer including errors. */
function ingestion(path: string, handler: Handler, cors = INGEST_CORS_HEADERS) {
	const answerPreflight = preflight(cors);
	const answerOtherMethod = methodNotAllowed(cors);
	const answer: Handler = async (request, env, ctx) => {
		if (request.method === "OPTIONS") return answerPreflight();
		if (request.method !== "POST") return answerOtherMethod();
		try {
			return withCors(await handler(request, env, ctx), cors);
		} catch (err) {
			return withCors(errorResponse(err, request), cors);
		}
	};
	if (!path.includes(":")) ingestionByPath.set(path, answer);
	router.all(path, answer);
}

/** The path of an absolute request URL as sent, without query or fragment. */
function pathOf(url: string): string {
	const start = url.indexOf("/", url.indexOf("://") + 3);
	if (start < 0) return "/";
	const end = url.slice(start).search(/[?#]/);
	return end < 0 ? url.slice(start) : url.slice(start, start + end);
}

ingestion("/functions/v1/submit-feedback", submitFeedback);
ingestion("/api/app-logs-ingest", ingestLog);
ingestion("/api/collect", collect);
ingestion("/api/bot-crawl-ingest", ingestCrawl);

router
	.post("/api/auth/signup", signUp)
	.post("/api/auth/login", signIn)
	.get("/api/auth/me", requireOwner, whoAmI)
	.post("/api/auth/logout", signOut)
	.post("/api/auth/logout-others", requireOwner, signOutOthers)
	.post("/api/auth/password", requireOwner, changeOwnPassword)
	.post("/api/admin/users/plan", setUserPlan)

	.get("/api/feedback-keys", ...ownerWithAccess, listKeys)
	.get("/api/feedback-key", ...ownerWithAccess, readKey)
	.post("/api/feedback-key", ...ownerWithAccess, createKey)
	.patch("/api/feedback-key", ...ownerWithAccess, updateKeyConfiguration)
	.delete("/api/feedback-key", ...ownerWithAccess, revokeKey)
	.post("/api/feedback-key/regenerate", ...ownerWithAccess, regenerateKey)

	.get("/api/feedback", ...ownerWithAccess, listFeedback)
	.get("/api/feedback.csv", ...ownerWithAccess, exportFeedbackCsv)
	.patch("/api/feedback", ...ownerWithAccess, updateFeedbackStatus)
	.delete("/api/feedback", ...ownerWithAccess, deleteFeedback)
	.get("/api/feedback/attachments/:id", ...ownerWithAccess, downloadAttachment)
	.get("/api/feedback/:id", ...ownerWithAccess, readFeedback)

	.get("/api/issues", ...ownerWithAccess, listIssues)
	.get("/api/issues/filter-values", ...ownerWithAccess, listIssueFilterValues)
	.get("/api/issues/tag-keys", ...ownerWithAccess, listTagKeys)
	.get("/api/issues/tag-values", ...ownerWithAccess, listTagValues)
	.get("/api/issues/:group_hash", ...ownerWithAccess, readIssue)
	.get("/api/issues/:group_hash/events/:event_id", ...ownerWithAccess, readIssueEvent)
	.get("/api/issues/:group_hash/tags", ...ownerWithAccess, readIssueTags)
	.get("/api/issues/:group_hash/feedback", ...ownerWithAccess, readIssueFeedback)
	.patch("/api/issues", ...ownerWithAccess, updateIssueStatuses)
	.post("/api/issues/merge", ...ownerWithAccess, mergeIssues)
	.get("/api/issues/:group_hash/merged", ...ownerWithAccess, listMergedFingerprints)
	.post("/api/issues/:group_hash/unmerge", ...ownerWithAccess, unmergeIssue)
	.post("/api/issues/:group_hash/notes", ...ownerWithAccess, addIssueNote)
	.patch("/api/issues/:group_hash", ...ownerWithAccess, updateIssueStatus)
	.delete("/api/issues/:group_hash", ...ownerWithAccess, deleteIssue)
	.delete("/api/issues", ...ownerWithAccess, deleteIssues)
	.get("/api/log-outcomes", ...ownerWithAccess, readLogOutcomes)
	.put("/api/alert-webhook", ...ownerWithAccess, setAlertWebhook)
	.get("/api/alert-webhook", ...ownerWithAccess, readAlertWebhook)
	.delete("/api/alert-webhook", ...ownerWithAccess, removeAlertWebhook)
	.post("/api/alert-webhook/test", ...ownerWithAccess, testAlertWebhook)

	.get("/api/sites", ...ownerWithAccess, listSites)
	.post("/api/sites", ...ownerWithAccess, createSite)
	.get("/api/sites/:tracking_id", ...ownerWithAccess, readSite)
	.patch("/api/sites/:tracking_id", ...ownerWithAccess, updateSite)
	.delete("/api/sites/:tracking_id", ...ownerWithAccess, deleteSite)
	.get("/api/sites/:tracking_id/stats", ...ownerWithAccess, siteStats)
	// Before the CSV exports' route, whose `:file` it would match.
	.get("/api/sites/:tracking_id/stats/realtime", ...ownerWithAccess, realtimeStats)
	.get("/api/sites/:tracking_id/stats/:file", ...ownerWithAccess, statsCsv)
	.get("/api/sites/:tracking_id/pages", ...ownerWithAccess, listPages)
	.get("/api/sites/:tracking_id/crawlers", ...ownerWithAccess, crawlerStats)
	.get("/api/sites/:tracking_id/events", ...ownerWithAccess, listEvents)
	.get("/api/sites/:tracking_id/identities", ...ownerWithAccess, listIdentities)

	.post("/api/upload-tokens", ...ownerWithAccess, createUploadToken)
	.get("/api/upload-tokens", ...ownerWithAccess, listUploadTokens)
	.delete("/api/upload-tokens/:id", ...ownerWithAccess, revokeUploadToken)
	.get("/api/artifacts", ...ownerWithAccess, listProjectArtifacts)
	.delete("/api/artifacts", ...ownerWithAccess, deleteReleaseArtifacts)
	.delete("/api/artifacts/:id", ...ownerWithAccess, deleteProjectArtifact)

	.get("/api/0", forSentryCli(sentryAuthInfo))
	.get("/api/0/organizations/:org/chunk-upload", forSentryCli(chunkUploadOptions))
	.post("/api/0/organizations/:org/chunk-upload", forSentryCli(uploadChunks))
	.post("/api/0/organizations/:org/artifactbundle/assemble", forSentryCli(assembleBundle))
	.post("/api/0/organizations/:org/releases", forSentryCli(sentryRelease))
	.post("/api/0/projects/:org/:project/releases", forSentryCli(sentryRelease))
	.get("/api/0/organizations/:org/releases", forSentryCli(sentryReleaseList))
	.get("/api/0/projects/:org/:project/releases", forSentryCli(sentryReleaseList))
	.get("/api/0/organizations/:org/releases/:version", forSentryCli(sentryRelease))
	.put("/api/0/organizations/:org/releases/:version", forSentryCli(sentryRelease))
	.get("/api/0/projects/:org/:project/releases/:version", forSentryCli(sentryRelease))
	.put("/api/0/projects/:org/:project/releases/:version", forSentryCli(sentryRelease))
	.post("/api/0/organizations/:org/releases/:version/deploys", forSentryCli(sentryDeploy))
	.get("/api/0/organizations/:org/repos", forSentryCli(sentryRepositories))
	.post("/api/releases/:release+/artifacts", uploadArtifacts)

	.get("/t.js", serveTracker)
	.head("/t.js", serveTracker)
	.get("/t.links.js", serveLinksTracker)
	.head("/t.links.js", serveLinksTracker);

// After the owner routes, so `/api/sites/store` and the like stay theirs.
ingestion("/api/:project_id/envelope", ingestEnvelope, SENTRY_CORS_HEADERS);
ingestion("/api/:project_id/store", ingestStore, SENTRY_CORS_HEADERS);
ingestion("/api/:project_id/security", ingestSecurityReport, SENTRY_CORS_HEADERS);

/**
 * A console page whose address names a project (wrangler.toml sends these here first): the
 * console's index.html as it is, whatever the path holds; the console reads the path itself.
 */
const consolePage = (request: IRequest, env: Env) => env.ASSETS.fetch(new Request(new URL("/", request.url), request));

router
	.get("/projects/*", consolePage)
	.get("/feedback/*", consolePage)
	.get("/issues/*", consolePage)
	// Answered, not thrown: the router's catch and an error object cost more than the rest of this answer.
	.all("/api/*", () => json({ error: "No such API route" }, { status: 404 }))
	// Outside /api the console's assets answer (single-page-application fallback).
	.all("*", (request, env) => env.ASSETS.fetch(request));

export default {
	fetch: (request, env, ctx) => {
		const ingest = ingestionByPath.get(pathOf(request.url));
		return ingest ? ingest(request as IRequest, env, ctx) : router.fetch(request, env, ctx);
	},
	scheduled: (controller, env) => cleanUp(env, controller.scheduledTime),
} satisfies ExportedHandler<Env>;
