import { sha256Hex } from "../../domain/crypto";
import { findKeyIdByHash } from "../../domain/keys/keyStore";
import { clientIp, HttpError } from "../http";

/** A presented key as the Worker knows it: its hash, and the key it belongs to. */
export interface PresentedKey {
	keyHash: string;
	keyId: string;
	/** What symbolication was last told of the project's source maps; the key's object corrects it. */
	artifactsVersion: number;
}

/**
 * Key hash → key id, per isolate, least recently used out first. The ingestion endpoints ask
 * D1 only on a miss; everything else about the key (is it still this hash, revoked, its owner's
 * access, its windows and forms) is answered by the key's own object, which is told of every
 * change at once. Neither kind of entry can let a request through that D1 would refuse:
 * - a hash → id entry can go stale (the key was regenerated or revoked), but the object compares
 *   the hash with the key's current one and refuses it (401), and the entry is then dropped;
 * - a hash → unknown entry (401) cannot hide a key created later: keys are 256-bit random, so
 *   a new key's hash cannot have been presented before the key existed.
 * An attacker presenting random keys only pushes entries out, which costs D1 reads, never a
 * wrong answer.
 */
const KEYS_KEPT = 10_000;
const keysByHash = new Map<string, { keyId: string; artifactsVersion: number } | null>();

function remember(keyHash: string, entry: { keyId: string; artifactsVersion: number } | null) {
	keysByHash.delete(keyHash);
	keysByHash.set(keyHash, entry);
	if (keysByHash.size > KEYS_KEPT) keysByHash.delete(keysByHash.keys().next().value as string);
}

/**
 * The key a raw project key sent to an ingestion endpoint names: 401 when there is none or it
 * matches no key. The lookup is by SHA-256 of the presented key, so no stored secret is compared
 * byte by byte with attacker input.
 */
export async function presentedKey(env: Env, rawKey: string | null): Promise<PresentedKey> {
	if (!rawKey) throw new HttpError(401, "Project key required");
	const keyHash = await sha256Hex(rawKey);
	let entry = keysByHash.get(keyHash);
	if (entry === undefined) {
		const found = await findKeyIdByHash(env, keyHash);
		entry = found ? { keyId: found.id, artifactsVersion: found.artifactsVersion } : null;
	}
	remember(keyHash, entry);
	if (!entry) throw new HttpError(401, "Project key is not valid");
	return { keyHash, ...entry };
}

/** The key's object refused the hash (regenerated or revoked): forget it here too. */
export function forgetPresentedKey(key: PresentedKey): void {
	keysByHash.delete(key.keyHash);
}

/** The key's object knows a newer state of the project's source maps than this isolate did. */
export function learnArtifactsVersion(key: PresentedKey, artifactsVersion: number): PresentedKey {
	if (keysByHash.has(key.keyHash)) remember(key.keyHash, { keyId: key.keyId, artifactsVersion });
	return { ...key, artifactsVersion };
}

/**
 * The request's source address as the key's object counts it in its per-address windows: the
 * SHA-256 of the address under the key's hash, so the object's storage never holds a raw IP. The
 * windows are per key, so the tag only has to be stable per key.
 */
export async function sourceAddressTag(key: PresentedKey, request: Request): Promise<string> {
	return (await sha256Hex(`${key.keyHash}\n${clientIp(request)}`)).slice(0, 32);
}
