/**
 * Sentry's release calls, as sentry-cli (`releases new`, `finalize`, `set-commits`, `deploys new`, `releases list`)
 * and Sentry's bundler plugins make them on every build: accepted with an upload token of the
 * project, and answered as Sentry answers, so those steps pass unchanged. svc learns a project's
 * releases from its events and keeps no record of these calls: they change nothing.
 * docs/api.md#sentry-cli-release-steps.
 */
import type { IRequest } from "itty-router";
import { z } from "zod";
import type { ProjectKey } from "../../domain/keys/keyStore";
import { issueFilterValues } from "../../domain/logs/logStore";
import { HttpError, json, readJsonObject } from "../http";
import { projectCollectorFor } from "../objects";
import { decodedParam, parseBody } from "../validation";
import { authenticateUploadToken, namedProjects, requireTokenProjects } from "./authenticateUpload";
import { releaseSchema } from "./uploadArtifacts";

const releaseBodySchema = z.object({
	version: releaseSchema.optional(),
	projects: namedProjects.optional(),
});

/** A release as Sentry's API shows one, with nothing recorded: no commits, deploys or events counted. */
function releaseView(key: ProjectKey, version: string) {
	const now = new Date().toISOString();
	return {
		version,
		shortVersion: version,
		ref: null,
		url: null,
		dateCreated: now,
		dateReleased: null,
		data: {},
		newGroups: 0,
		owner: null,
		commitCount: 0,
		lastCommit: null,
		deployCount: 0,
		lastDeploy: null,
		firstEvent: null,
		lastEvent: null,
		authors: [],
		projects: [{ slug: String(key.dsnId), name: key.projectName, newGroups: 0 }],
	};
}

/**
 * GET /api/0/ → 200, what Sentry's API root says of the token: `sentry-cli info`, the usual check
 * of a CI's settings, reads it and fails on any other answer. An upload token belongs to no user
 * (as Sentry's organization tokens), and its one scope is Sentry's for releases and their files.
 */
export async function sentryAuthInfo(request: IRequest, env: Env): Promise<Response> {
	await authenticateUploadToken(request, env);
	return json({ version: "0", auth: { scopes: ["project:releases"] }, user: null });
}

/**
 * GET /api/0/projects/:org/:project/releases/ (and /api/0/organizations/:org/releases/) → 200,
 * the releases the project's events named, most recently seen first, as `sentry-cli releases
 * list` shows them; it reads any other answer as a wrong project. Its events moved to D1 first, as
 * every read of them (docs/architecture.md#moving-rows-to-d1).
 */
export async function sentryReleaseList(request: IRequest, env: Env): Promise<Response> {
	const key = await authenticateUploadToken(request, env);
	requireTokenProjects(key, request.params.project ? [request.params.project] : []);
	await projectCollectorFor(env, key.id).flush();
	const { releases } = await issueFilterValues(env, { keyId: key.id, userId: key.userId });
	return json(releases.map((version) => releaseView(key, version)));
}

/** The body, when there is one: `finalize` and `set-commits` send one, `info` none. */
async function releaseInput(request: IRequest) {
	if (request.method === "GET" || request.headers.get("content-length") === "0") return {};
	return parseBody(releaseBodySchema, await readJsonObject(request));
}

/**
 * POST /api/0/organizations/:org/releases/ and /api/0/projects/:org/:project/releases/ {version,
 * projects} → 201, the release; GET and PUT …/releases/:version/ → 200, the release.
 */
export async function sentryRelease(request: IRequest, env: Env): Promise<Response> {
	const key = await authenticateUploadToken(request, env);
	const input = await releaseInput(request);
	requireTokenProjects(key, [...(request.params.project ? [request.params.project] : []), ...(input.projects ?? [])]);
	// The release named in the path, or in the body, by the rules every release name follows.
	const { version } = request.params.version
		? parseBody(z.object({ version: releaseSchema }), { version: decodedParam(request.params.version, "version") })
		: input;
	if (!version) throw new HttpError(400, "Invalid request: version: is required");
	return json(releaseView(key, version), { status: request.method === "POST" ? 201 : 200 });
}

/** GET /api/0/organizations/:org/repos/ → []: svc links no repositories, so `set-commits --auto` finds none. */
export async function sentryRepositories(request: IRequest, env: Env): Promise<Response> {
	await authenticateUploadToken(request, env);
	return json([]);
}

const deploySchema = z.object({
	environment: z.string().trim().min(1, "must name the environment").max(200),
	name: z.string().max(200).nullish(),
	url: z.string().max(2000).nullish(),
	dateStarted: z.string().max(100).nullish(),
	dateFinished: z.string().max(100).nullish(),
});

/** POST /api/0/organizations/:org/releases/:version/deploys/ {environment, …} → 201, the deploy as given. */
export async function sentryDeploy(request: IRequest, env: Env): Promise<Response> {
	await authenticateUploadToken(request, env);
	const deploy = parseBody(deploySchema, await readJsonObject(request));
	const now = new Date().toISOString();
	return json(
		{ id: crypto.randomUUID(), environment: deploy.environment, name: deploy.name ?? null, url: deploy.url ?? null, dateStarted: deploy.dateStarted ?? null, dateFinished: deploy.dateFinished ?? now },
		{ status: 201 },
	);
}
