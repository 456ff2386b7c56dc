/**
 * Storing uploaded files, whichever way they came (the plain upload, a sentry-cli bundle): the
 * caps, the bytes into R2, then the rows in one transaction that also replaces earlier uploads of
 * the same files. What was written to R2 for an upload that fails is deleted again.
 */
import type { ProjectKey } from "../../domain/keys/keyStore";
import { ARTIFACT_LIMITS } from "../../domain/limits";
import type { FileFacts } from "../../domain/sourcemaps/artifactFiles";
import { type Artifact, artifactObjectKey, deleteObjects, type NewArtifact, projectUsage, replaceArtifacts, replacedBy } from "../../domain/sourcemaps/artifactStore";
import { HttpError } from "../http";
import { keysChanged } from "../objects";

export interface IncomingFile extends FileFacts {
	url: string;
	size: number;
	/** The bytes, read only once the upload as a whole has passed the caps. */
	bytes: () => Uint8Array | Promise<Uint8Array>;
}

const MiB = 1024 * 1024;
const mebibytes = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

/** One file larger than a file may be: 413 naming it. */
export function tooLargeFile(url: string, size: number): HttpError {
	return new HttpError(413, `${url} is ${mebibytes(size)}; a file may be at most ${mebibytes(ARTIFACT_LIMITS.fileBytes)}`);
}

/** Of files with the same URL, or the same debug id and type, the last one sent. */
function lastOfEach(files: IncomingFile[]): IncomingFile[] {
	const seen = new Set<string>();
	const kept: IncomingFile[] = [];
	for (const file of files.toReversed()) {
		const identities = [`url ${file.url}`, ...(file.debugId ? [`debug ${file.debugId} ${file.type}`] : [])];
		if (identities.some((identity) => seen.has(identity))) continue;
		for (const identity of identities) seen.add(identity);
		kept.push(file);
	}
	return kept.reverse();
}

/**
 * Stores `files` for the project: 413 for a file above the file cap or more files than one upload
 * may hold, 403 when the project would pass its storage or file cap (what the upload replaces
 * counts as freed), 409 when another upload of the same files got there first.
 */
export async function storeArtifacts(
	env: Env,
	key: ProjectKey,
	release: string | null,
	incoming: IncomingFile[],
	bundle: string | null = null,
): Promise<Artifact[]> {
	if (incoming.length > ARTIFACT_LIMITS.filesPerUpload) {
		throw new HttpError(413, `An upload holds at most ${ARTIFACT_LIMITS.filesPerUpload} files; this one has ${incoming.length}`);
	}
	for (const file of incoming) if (file.size > ARTIFACT_LIMITS.fileBytes) throw tooLargeFile(file.url, file.size);
	const files = lastOfEach(incoming);
	const rows: NewArtifact[] = files.map((file) => {
		const id = crypto.randomUUID();
		const { url, type, debugId, sourceMapUrl, size } = file;
		return { id, release, url, type, debugId, sourceMapUrl, size, bundle, objectKey: artifactObjectKey(key.id, id) };
	});

	const [replaced, usage] = await Promise.all([replacedBy(env, key.id, rows), projectUsage(env, key.id)]);
	const bytesAfter = usage.bytes - replaced.reduce((sum, r) => sum + r.size, 0) + rows.reduce((sum, r) => sum + r.size, 0);
	if (bytesAfter > ARTIFACT_LIMITS.projectBytes) {
		throw new HttpError(
			403,
			`The project would hold ${mebibytes(bytesAfter)} of source maps and files; the most is ${mebibytes(ARTIFACT_LIMITS.projectBytes)}: delete old releases' artifacts first`,
		);
	}
	const filesAfter = usage.files - replaced.length + rows.length;
	if (filesAfter > ARTIFACT_LIMITS.filesPerProject) {
		throw new HttpError(403, `The project would hold ${filesAfter} files; the most is ${ARTIFACT_LIMITS.filesPerProject}: delete old releases' artifacts first`);
	}

	const written: string[] = [];
	// One time for the rows and the answer, so the answer says what a later read will.
	const storedAt = Date.now();
	try {
		for (const [i, file] of files.entries()) {
			await env.ARTIFACTS.put(rows[i].objectKey, await file.bytes());
			written.push(rows[i].objectKey);
		}
		await replaceArtifacts(
			env,
			key.id,
			replaced.map((r) => r.id),
			rows,
			storedAt,
		);
	} catch (err) {
		await deleteObjects(env, written).catch(() => {});
		if (err instanceof HttpError) throw err;
		if (String(err).includes("UNIQUE constraint failed")) throw new HttpError(409, "Another upload of the same files is under way: try again");
		throw err;
	}
	// Ingestion symbolicates against what the key's object says the artifacts are: it must hear of these now.
	await keysChanged(env, [key.id]);
	await deleteObjects(
		env,
		replaced.map((r) => r.objectKey),
	).catch((err) => console.warn("could not delete replaced artifacts:", err));
	return rows.map((row) => ({ ...row, keyId: key.id, createdAt: new Date(storedAt), usedAt: new Date(storedAt) }));
}
