/** The owner's view of a project's source maps and files (docs/api.md#artifacts): list, delete. */
import type { IRequest } from "itty-router";
import { z } from "zod";
import type { ArtifactListView } from "../../domain/api/sourcemaps";
import { ARTIFACT_LIMITS } from "../../domain/limits";
import { deleteArtifacts, deleteObjects, listArtifacts, projectUsage } from "../../domain/sourcemaps/artifactStore";
import type { OwnerRequest } from "../auth/session";
import { HttpError, json } from "../http";
import { keysChanged } from "../objects";
import { projectNameSchema, requireOwnKey } from "../keys/projectKeys";
import { parseBody } from "../validation";
import { artifactView, releaseSchema } from "./uploadArtifacts";

const listSchema = z.object({ project_name: projectNameSchema, release: releaseSchema.optional() });
const releaseQuerySchema = z.object({ project_name: projectNameSchema, release: releaseSchema });
const projectSchema = z.object({ project_name: projectNameSchema });

/** GET /api/artifacts?project_name=&release= → {artifacts, total_bytes, total_files, cap_bytes, cap_files}, newest first. */
export async function listProjectArtifacts(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name, release } = parseBody(listSchema, request.query);
	const key = await requireOwnKey(env, user.id, project_name);
	const [rows, usage] = await Promise.all([listArtifacts(env, key.id, release), projectUsage(env, key.id)]);
	const list: ArtifactListView = {
		artifacts: rows.map(artifactView),
		total_bytes: usage.bytes,
		total_files: usage.files,
		cap_bytes: ARTIFACT_LIMITS.projectBytes,
		cap_files: ARTIFACT_LIMITS.filesPerProject,
	};
	return json(list);
}

/** Best effort: the rows are gone already, so an object left behind is found by nothing. */
async function removeObjects(env: Env, objectKeys: string[]) {
	await deleteObjects(env, objectKeys).catch((err) => console.warn(`could not delete ${objectKeys.length} artifact objects:`, err));
}

/** DELETE /api/artifacts/:id?project_name= → {deleted: 1}; 404 for no such artifact in the project. */
export async function deleteProjectArtifact(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name } = parseBody(projectSchema, request.query);
	const key = await requireOwnKey(env, user.id, project_name);
	const id = request.params.id ?? "";
	const objectKeys = z.uuid().safeParse(id).success ? await deleteArtifacts(env, key.id, { id }) : [];
	if (objectKeys.length === 0) throw new HttpError(404, "No such artifact in this project");
	await keysChanged(env, [key.id]);
	await removeObjects(env, objectKeys);
	return json({ deleted: objectKeys.length });
}

/** DELETE /api/artifacts?project_name=&release= → {deleted: n}, every artifact of the release. */
export async function deleteReleaseArtifacts(request: IRequest, env: Env): Promise<Response> {
	const { user } = request as OwnerRequest;
	const { project_name, release } = parseBody(releaseQuerySchema, request.query);
	const key = await requireOwnKey(env, user.id, project_name);
	const objectKeys = await deleteArtifacts(env, key.id, { release });
	await keysChanged(env, [key.id]);
	await removeObjects(env, objectKeys);
	return json({ deleted: objectKeys.length });
}

