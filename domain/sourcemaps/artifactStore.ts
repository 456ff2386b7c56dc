/**
 * The artifacts and upload_chunks tables: a project's uploaded files and the chunks of bundles
 * not yet assembled, what they add up to against the project's cap, the lookups symbolication
 * makes, the owner's list and deletions, and the clean-up. The bytes are in R2, under the keys
 * made here; callers write and delete the objects, except when a whole project goes.
 */
import { and, desc, eq, sql } from "drizzle-orm";
import { type ArtifactType, artifacts, projectKeys } from "../../schema";
import { database } from "../db";
import { jsonArraysOf } from "../jsonRows";
import { ARTIFACT_LIMITS } from "../limits";

export type Artifact = typeof artifacts.$inferSelect;

export const artifactObjectKey = (keyId: string, artifactId: string) => `artifacts/${keyId}/${artifactId}`;
export const chunkObjectKey = (keyId: string, checksum: string) => `chunks/${keyId}/${checksum}`;

/** R2 deletes at most this many objects per call. */
const OBJECTS_PER_DELETE = 1_000;

/** Deletes R2 objects, as many calls as it takes. */
export async function deleteObjects(env: Env, objectKeys: string[]): Promise<void> {
	for (let i = 0; i < objectKeys.length; i += OBJECTS_PER_DELETE) await env.ARTIFACTS.delete(objectKeys.slice(i, i + OBJECTS_PER_DELETE));
}

/** Every R2 object of a project (its artifacts and chunks), when its key is revoked; the rows go with the key row. */
export async function deleteProjectObjects(env: Env, keyId: string): Promise<void> {
	for (const prefix of [`artifacts/${keyId}/`, `chunks/${keyId}/`]) {
		for (;;) {
			const page = await env.ARTIFACTS.list({ prefix, limit: OBJECTS_PER_DELETE });
			if (page.objects.length === 0) break;
			await deleteObjects(
				env,
				page.objects.map((object) => object.key),
			);
		}
	}
}

export interface NewArtifact {
	id: string;
	release: string | null;
	url: string;
	debugId: string | null;
	type: ArtifactType;
	sourceMapUrl: string | null;
	objectKey: string;
	size: number;
	bundle: string | null;
}

/** What a project holds against its cap: its artifacts and its chunks waiting for assembly. */
export async function projectUsage(env: Env, keyId: string): Promise<{ bytes: number; files: number }> {
	const row = await env.DB.prepare(
		`SELECT (SELECT COALESCE(SUM(size), 0) FROM artifacts WHERE key_id = ?1) + (SELECT COALESCE(SUM(size), 0) FROM upload_chunks WHERE key_id = ?1) AS bytes,
			(SELECT COUNT(*) FROM artifacts WHERE key_id = ?1) AS files`,
	)
		.bind(keyId)
		.first<{ bytes: number; files: number }>();
	return { bytes: row?.bytes ?? 0, files: row?.files ?? 0 };
}

const REPLACED = `SELECT DISTINCT a.id, a.object_key AS objectKey, a.size FROM artifacts a, json_each(?2) n
	WHERE a.key_id = ?1 AND ((a.release = json_extract(n.value, '$.release') AND a.url = json_extract(n.value, '$.url'))
		OR (a.debug_id = json_extract(n.value, '$.debug_id') AND a.type = json_extract(n.value, '$.type')))`;

/** The stored artifacts that `files` would replace: the same release and URL, or the same debug id and type. */
export async function replacedBy(env: Env, keyId: string, files: NewArtifact[]): Promise<Array<{ id: string; objectKey: string; size: number }>> {
	const found = new Map<string, { id: string; objectKey: string; size: number }>();
	const identities = files.map((f) => ({ release: f.release, url: f.url, debug_id: f.debugId, type: f.type }));
	for (const rows of jsonArraysOf(identities)) {
		const { results } = await env.DB.prepare(REPLACED).bind(keyId, rows).all<{ id: string; objectKey: string; size: number }>();
		for (const row of results) found.set(row.id, row);
	}
	return [...found.values()];
}

const INSERT_ARTIFACTS = `INSERT INTO artifacts (id, key_id, release, url, debug_id, type, source_map_url, object_key, size, bundle, created_at, used_at)
	SELECT json_extract(value, '$.id'), ?1, json_extract(value, '$.release'), json_extract(value, '$.url'), json_extract(value, '$.debug_id'),
		json_extract(value, '$.type'), json_extract(value, '$.source_map_url'), json_extract(value, '$.object_key'), json_extract(value, '$.size'),
		json_extract(value, '$.bundle'), ?2, ?2
	FROM json_each(?3)`;

/**
 * In one transaction: the replaced rows go, the new ones come, and the project's artifacts version
 * moves so every isolate forgets what it knew. Throws when a unique index refuses a row (the same
 * file uploaded by another request meanwhile); then nothing was written.
 */
export async function replaceArtifacts(env: Env, keyId: string, replacedIds: string[], files: NewArtifact[], now = Date.now()): Promise<void> {
	const rows = files.map((f) => ({
		id: f.id,
		release: f.release,
		url: f.url,
		debug_id: f.debugId,
		type: f.type,
		source_map_url: f.sourceMapUrl,
		object_key: f.objectKey,
		size: f.size,
		bundle: f.bundle,
	}));
	await env.DB.batch([
		...jsonArraysOf(replacedIds).map((ids) => env.DB.prepare("DELETE FROM artifacts WHERE key_id = ?1 AND id IN (SELECT value FROM json_each(?2))").bind(keyId, ids)),
		...jsonArraysOf(rows).map((json) => env.DB.prepare(INSERT_ARTIFACTS).bind(keyId, now, json)),
		bumpVersion(env, keyId),
	]);
}

const bumpVersion = (env: Env, keyId: string) => env.DB.prepare("UPDATE project_keys SET artifacts_version = artifacts_version + 1 WHERE id = ?1").bind(keyId);

/** Whether the bundle with this checksum was assembled for the project already. */
export async function bundleStored(env: Env, keyId: string, checksum: string): Promise<boolean> {
	const row = await database(env).query.artifacts.findFirst({ where: and(eq(artifacts.keyId, keyId), eq(artifacts.bundle, checksum)), columns: { id: true } });
	return row !== undefined;
}

// ---------------------------------------------------------------------------
// Owner

/** Newest first, at most the list's rows; optionally one release's. */
export function listArtifacts(env: Env, keyId: string, release?: string): Promise<Artifact[]> {
	return database(env)
		.select()
		.from(artifacts)
		.where(and(eq(artifacts.keyId, keyId), release === undefined ? undefined : eq(artifacts.release, release)))
		.orderBy(desc(artifacts.createdAt), desc(artifacts.id))
		.limit(ARTIFACT_LIMITS.listRows);
}

/**
 * Deletes one artifact (`id`) or every artifact of a release, and moves the version; answers the
 * R2 objects to delete.
 */
export async function deleteArtifacts(env: Env, keyId: string, which: { id: string } | { release: string }): Promise<string[]> {
	const db = database(env);
	const condition = and(eq(artifacts.keyId, keyId), "id" in which ? eq(artifacts.id, which.id) : eq(artifacts.release, which.release));
	const [deleted] = await db.batch([
		db.delete(artifacts).where(condition).returning({ objectKey: artifacts.objectKey }),
		db
			.update(projectKeys)
			.set({ artifactsVersion: sql`${projectKeys.artifactsVersion} + 1` })
			.where(eq(projectKeys.id, keyId)),
	]);
	return deleted.map((row) => row.objectKey);
}

// ---------------------------------------------------------------------------
// Symbolication

/** `column IN` a list bound as one JSON array, however long the list. */
const inList = (column: typeof artifacts.debugId | typeof artifacts.url, values: string[]) =>
	sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;

interface Wanted {
	debugIds: string[];
	release: string | null;
	urls: string[];
}

/**
 * The query behind `findArtifacts`: two searches of the unique indexes, never a walk through the
 * project's artifacts; null when there is nothing to look for.
 */
export function artifactLookup(env: Env, keyId: string, wanted: Wanted) {
	const db = database(env);
	const searches = [
		wanted.debugIds.length > 0 ? and(eq(artifacts.keyId, keyId), inList(artifacts.debugId, wanted.debugIds)) : undefined,
		wanted.release !== null && wanted.urls.length > 0
			? and(eq(artifacts.keyId, keyId), eq(artifacts.release, wanted.release), inList(artifacts.url, wanted.urls))
			: undefined,
	].flatMap((where) => (where ? [db.select().from(artifacts).where(where)] : []));
	if (searches.length === 0) return null;
	return searches.length === 1 ? searches[0] : searches[0].union(searches[1]);
}

/** The artifacts of a project with these debug ids, or of this release under these URLs, in one query. */
export async function findArtifacts(env: Env, keyId: string, wanted: Wanted): Promise<Artifact[]> {
	return (await artifactLookup(env, keyId, wanted)) ?? [];
}

/** Marks artifacts used now, so the clean-up keeps them while events need them. */
export async function touchArtifacts(env: Env, ids: string[], now = Date.now()): Promise<void> {
	for (const json of jsonArraysOf(ids)) {
		await env.DB.prepare("UPDATE artifacts SET used_at = ?1 WHERE id IN (SELECT value FROM json_each(?2))").bind(now, json).run();
	}
}

// ---------------------------------------------------------------------------
// Chunks of sentry-cli bundles

/** Records a chunk (a chunk sent twice is one). */
export async function insertChunk(env: Env, keyId: string, checksum: string, size: number, now = Date.now()): Promise<void> {
	await env.DB.prepare("INSERT OR IGNORE INTO upload_chunks (key_id, checksum, size, created_at) VALUES (?1, ?2, ?3, ?4)")
		.bind(keyId, checksum, size, now)
		.run();
}

/** Which of these chunks the project holds. */
export async function storedChunks(env: Env, keyId: string, checksums: string[]): Promise<Set<string>> {
	const found = new Set<string>();
	for (const json of jsonArraysOf(checksums)) {
		const { results } = await env.DB.prepare("SELECT checksum FROM upload_chunks WHERE key_id = ?1 AND checksum IN (SELECT value FROM json_each(?2))")
			.bind(keyId, json)
			.all<{ checksum: string }>();
		for (const row of results) found.add(row.checksum);
	}
	return found;
}

export async function deleteChunks(env: Env, keyId: string, checksums: string[]): Promise<void> {
	for (const json of jsonArraysOf(checksums)) {
		await env.DB.prepare("DELETE FROM upload_chunks WHERE key_id = ?1 AND checksum IN (SELECT value FROM json_each(?2))").bind(keyId, json).run();
	}
}

// ---------------------------------------------------------------------------
// Retention. An artifact goes once no event has used it (and it was not uploaded) within the log
// retention: a release's maps live as long as its events keep coming. A chunk goes once it has
// waited too long for its bundle. The clean-up deletes the R2 objects first and the rows after,
// so a failure between the two leaves a row that says its object is gone, never an object that
// nothing counts.

export const UNUSED_ARTIFACTS = "SELECT id, key_id AS keyId, object_key AS objectKey FROM artifacts WHERE used_at < ?1 ORDER BY used_at LIMIT ?2";
export const STALE_CHUNKS = "SELECT key_id AS keyId, checksum FROM upload_chunks WHERE created_at < ?1 ORDER BY created_at LIMIT ?2";

/** The artifacts unused since before `cutoff`, oldest first, at most `limit`. */
export async function unusedArtifacts(env: Env, cutoff: number, limit: number) {
	const { results } = await env.DB.prepare(UNUSED_ARTIFACTS)
		.bind(cutoff, limit)
		.all<{ id: string; keyId: string; objectKey: string }>();
	return results;
}

/** Deletes these artifacts' rows and moves their projects' versions; how many rows went. */
export async function deleteArtifactRows(env: Env, rows: Array<{ id: string; keyId: string }>): Promise<number> {
	const keyIds = JSON.stringify([...new Set(rows.map((row) => row.keyId))]);
	const [deleted] = await env.DB.batch([
		env.DB.prepare("DELETE FROM artifacts WHERE id IN (SELECT value FROM json_each(?1))").bind(JSON.stringify(rows.map((row) => row.id))),
		env.DB.prepare("UPDATE project_keys SET artifacts_version = artifacts_version + 1 WHERE id IN (SELECT value FROM json_each(?1))").bind(keyIds),
	]);
	return deleted.meta.changes;
}

/** The chunks uploaded before `cutoff` that no assembly took, oldest first, at most `limit`. */
export async function staleChunks(env: Env, cutoff: number, limit: number) {
	const { results } = await env.DB.prepare(STALE_CHUNKS)
		.bind(cutoff, limit)
		.all<{ keyId: string; checksum: string }>();
	return results;
}

export async function deleteChunkRows(env: Env, rows: Array<{ keyId: string; checksum: string }>): Promise<number> {
	const { meta } = await env.DB.prepare(
		"DELETE FROM upload_chunks WHERE (key_id, checksum) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?1))",
	)
		.bind(JSON.stringify(rows.map((row) => [row.keyId, row.checksum])))
		.run();
	return meta.changes;
}
