/**
 * The plain upload (docs/api.md#upload-source-maps), for people without sentry-cli:
 * `POST /api/releases/<release>/artifacts?project_name=` with the files as multipart parts in
 * field `file`, each named by the URL path the browser sees (`~/assets/app.js`,
 * `~/assets/app.js.map`).
 */
import type { IRequest } from "itty-router";
import { z } from "zod";
import { ARTIFACT_LIMITS } from "../../domain/limits";
import { artifactUrl, factsOfFile } from "../../domain/sourcemaps/artifactFiles";
import type { ArtifactView } from "../../domain/api/sourcemaps";
import type { Artifact } from "../../domain/sourcemaps/artifactStore";
import { isNameText, NAME_TEXT_RULE } from "../../domain/text";
import { HttpError, json, readMultipartWithin } from "../http";
import { projectNameSchema } from "../keys/projectKeys";
import { decodedParam, parseBody } from "../validation";
import { authenticateUploader } from "./authenticateUpload";
import { type IncomingFile, storeArtifacts, tooLargeFile } from "./storeArtifacts";

export const releaseSchema = z
	.string()
	.trim()
	.min(1, "is required")
	.max(ARTIFACT_LIMITS.releaseChars, `must be at most ${ARTIFACT_LIMITS.releaseChars} characters`)
	.refine(isNameText, NAME_TEXT_RULE);

const querySchema = z.object({ project_name: projectNameSchema.optional() });

/** An artifact as every answer shows it. */
export const artifactView = (artifact: Artifact): ArtifactView => ({
	id: artifact.id,
	release: artifact.release,
	url: artifact.url,
	type: artifact.type,
	debug_id: artifact.debugId,
	source_map_url: artifact.sourceMapUrl,
	size: artifact.size,
	created_at: artifact.createdAt.toISOString(),
	used_at: artifact.usedAt.toISOString(),
});

/** The release in the path, URL-encoded or raw (`web@1.2.0`, `web%401.2.0`, `web/1.2`). */
function releaseParam(request: IRequest): string {
	return parseBody(z.object({ release: releaseSchema }), { release: decodedParam(request.params.release ?? "", "release") }).release;
}

/** The multipart parts in field `file`, as files to store: 400 for a part without a usable name, 413 for one too large. */
async function filesOf(request: Request): Promise<IncomingFile[]> {
	const form = await readMultipartWithin(request, ARTIFACT_LIMITS.plainUploadBytes, 'Send multipart/form-data with one part per file in field "file"');
	const parts = form.getAll("file");
	if (parts.length === 0) throw new HttpError(400, 'No files: send each one as a part in field "file", named by its URL (~/assets/app.js)');
	return Promise.all(
		parts.map(async (part) => {
			if (typeof part === "string") throw new HttpError(400, 'Every part in field "file" must be a file with a file name');
			const url = artifactUrl(part.name);
			if (!url) throw new HttpError(400, `File name ${JSON.stringify(part.name)} is not a URL path: name each file by the URL the browser loads it from, like ~/assets/app.js`);
			if (part.size > ARTIFACT_LIMITS.fileBytes) throw tooLargeFile(url, part.size);
			const bytes = new Uint8Array(await part.arrayBuffer());
			return { url, size: bytes.byteLength, ...factsOfFile(url, bytes), bytes: () => bytes };
		}),
	);
}

/**
 * POST /api/releases/:release/artifacts?project_name= → 201 {project_name, release, artifacts}.
 *
 * Order: the release (400); the credential: an upload token (401, 402; 403 for another project's
 * `project_name`) or the owner's session (401, 402; 400 without `project_name`, 404 for a project
 * without a key); the body (415, 413, 400); each file (400 for a source map that is not one, 413);
 * the project's caps (403); storage.
 */
export async function uploadArtifacts(request: IRequest, env: Env): Promise<Response> {
	const release = releaseParam(request);
	const { project_name } = parseBody(querySchema, request.query);
	const key = await authenticateUploader(request, env, project_name);
	const stored = await storeArtifacts(env, key, release, await filesOf(request));
	return json({ project_name: key.projectName, release, artifacts: stored.map(artifactView) }, { status: 201 });
}
