/**
 * Sentry's release calls, as sentry-cli (`releases new`, `finalize`, `set-commits`, `deploys new`)
 * and Sentry's bundler plugins make them on every build: accepted with an upload token of the
 * project, and answered as Sentry answers, so those steps pass unchanged. svc learns a project's
 * releases from its events and keeps no record of these calls: they change nothing.
 * docs/api.md#sentry-cli-release-steps.
 */
import type { IRequest } from "itty-router";
import { z } from "zod";
import type { ProjectKey } from "../../domain/keys/keyStore";
import { HttpError, json, readJsonObject } from "../http";
import { parseBody } from "../validation";
import { authenticateUploadToken } from "./authenticateUpload";

const releaseSchema = z.object({
	version: z.string().trim().min(1, "must name the release").max(200).optional(),
	projects: z.array(z.union([z.string(), z.number()]).transform(String)).optional(),
});

/** 403 when a project named in the path or the body is not the token's (by DSN id or name), as uploads answer. */
function checkProjects(key: ProjectKey, named: string[]): void {
	const own = String(key.dsnId);
	const others = named.filter((project) => project !== own && project !== key.projectName);
	if (others.length > 0) {
		throw new HttpError(403, `This upload token is for project ${own} (${key.projectName}), not ${others.join(", ")}: set SENTRY_PROJECT to ${own}`, {
			detail: "Project not found",
		});
	}
}

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

/** The body, when there is one: `finalize` and `set-commits` send one, `info` none. */
async function releaseInput(request: IRequest) {
	if (request.method === "GET" || request.headers.get("content-length") === "0") return {};
	return parseBody(releaseSchema, await readJsonObject(request));
}

/** The release in the path, as sentry-cli URL-encodes it (`web%403.0.0`). */
function versionParam(encoded: string): string {
	try {
		return decodeURIComponent(encoded);
	} catch {
		throw new HttpError(400, "Invalid request: version: is not valid URL encoding", { detail: "invalid release version" });
	}
}

/**
 * POST /api/0/organizations/:org/releases/ and /api/0/projects/:org/:project/releases/ {version,
 * projects} → 201, the release; GET and PUT …/releases/:version/ → 200, the release.
 */
export async function sentryRelease(request: IRequest, env: Env): Promise<Response> {
	const key = await authenticateUploadToken(request, env);
	const input = await releaseInput(request);
	checkProjects(key, [...(request.params.project ? [request.params.project] : []), ...(input.projects ?? [])]);
	const version = request.params.version ? versionParam(request.params.version) : input.version;
	if (!version) throw new HttpError(400, "Invalid request: version: must name the release", { detail: "version is required" });
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
