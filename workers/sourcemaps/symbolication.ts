/**
 * Symbolication at ingestion, against the project's artifacts: which source map each file of an
 * event needs (by debug id, else by release and URL), read from R2 and parsed once per isolate.
 *
 * Bounded per event (SYMBOLICATION_LIMITS): maps above a size are not used, a map not yet cached
 * costs from the event's parse budget, and waiting for D1 and R2 from its time budget. What the
 * isolate learned about a project's artifacts holds until the project's artifacts version moves,
 * so an event of a project without changes costs no query. It never fails an event: whatever goes
 * wrong becomes a note in the stored event.
 */
import type { ProjectKey } from "../../domain/keys/keyStore";

/** What symbolication needs of the key: whose artifacts, and which state of them it may cache. */
type SymbolicationKey = Pick<ProjectKey, "id" | "artifactsVersion">;
import { SYMBOLICATION_LIMITS } from "../../domain/limits";
import type { LogEvent } from "../../domain/logs/logEvent";
import { artifactUrl, tildeUrl } from "../../domain/sourcemaps/artifactFiles";
import { type Artifact, findArtifacts, touchArtifacts } from "../../domain/sourcemaps/artifactStore";
import { MinifiedScript } from "../../domain/sourcemaps/minifiedScript";
import { SourceMap } from "../../domain/sourcemaps/sourceMap";
import { type FrameFile, type MapOutcome, type MapResolver, symbolicate, unsymbolicated } from "../../domain/sourcemaps/symbolicate";

type Limits = typeof SYMBOLICATION_LIMITS;

const MiB = 1024 * 1024;
const mebibytes = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

// ---------------------------------------------------------------------------
// What the isolate keeps: parsed maps and scripts by artifact id, least recently used first out,
// and the artifacts found for a project's files, under the project's artifacts version.

type Parsed = SourceMap | MinifiedScript;
const parsed = new Map<string, { value: Parsed; size: number }>();
let parsedBytes = 0;

function cached(id: string): Parsed | undefined {
	const entry = parsed.get(id);
	if (!entry) return undefined;
	parsed.delete(id);
	parsed.set(id, entry);
	return entry.value;
}

function cache(id: string, value: Parsed, size: number, limits: Limits) {
	for (const [oldest, entry] of parsed) {
		if (parsedBytes + size <= limits.cacheBytes) break;
		parsed.delete(oldest);
		parsedBytes -= entry.size;
	}
	if (parsedBytes + size > limits.cacheBytes) return;
	parsed.set(id, { value, size });
	parsedBytes += size;
}

const LOOKUPS_KEPT = 1_000;
const lookups = new Map<string, Artifact[]>();

// ---------------------------------------------------------------------------

/** The artifact URLs a file may have been uploaded under: as loaded (no query), and `~/path`. */
function urlsOf(file: string): string[] {
	return [...new Set([artifactUrl(file), tildeUrl(file)].filter((url): url is string => url !== null))];
}

/**
 * The project's artifacts that can serve `files`: by debug id, and by release and URL (the
 * scripts and maps named like them, then the maps the scripts name). Cached per version.
 */
async function artifactsFor(env: Env, key: SymbolicationKey, files: FrameFile[], release: string | null): Promise<Artifact[]> {
	// A project that never uploaded anything has nothing to find.
	if (key.artifactsVersion === 0) return [];
	const debugIds = [...new Set(files.flatMap((f) => (f.debugId ? [f.debugId] : [])))].sort();
	const urls = [...new Set(files.flatMap((f) => urlsOf(f.file).flatMap((url) => [url, `${url}.map`])))].sort();
	const cacheKey = JSON.stringify([key.id, key.artifactsVersion, release, debugIds, urls]);
	const cached = lookups.get(cacheKey);
	if (cached) return cached;

	const rows = await findArtifacts(env, key.id, { debugIds, release, urls });
	const fetched = new Set(urls);
	const named = rows.flatMap((row) => (row.type === "minified_source" && row.sourceMapUrl && !fetched.has(row.sourceMapUrl) ? [row.sourceMapUrl] : []));
	if (named.length > 0) rows.push(...(await findArtifacts(env, key.id, { debugIds: [], release, urls: [...new Set(named)] })));

	if (lookups.size >= LOOKUPS_KEPT) lookups.delete(lookups.keys().next().value as string);
	lookups.set(cacheKey, rows);
	return rows;
}

/** The source map for a file among the project's artifacts and the script it maps (when uploaded), or why there is no map. */
function artifactsOf(rows: Artifact[], file: FrameFile, release: string | null): { map: Artifact; script: Artifact | undefined } | string {
	const ofRelease = (url: string) => (release === null ? undefined : rows.find((row) => row.release === release && row.url === url));
	const scripts = urlsOf(file.file).map(ofRelease);
	const byUrl = scripts.find((row) => row?.type === "minified_source");
	if (file.debugId) {
		const ofDebugId = (type: Artifact["type"]) => rows.find((row) => row.debugId === file.debugId && row.type === type);
		const map = ofDebugId("source_map");
		if (map) return { map, script: ofDebugId("minified_source") ?? byUrl };
	}
	for (const url of urlsOf(file.file)) {
		const script = ofRelease(url);
		const named = script?.type === "minified_source" && script.sourceMapUrl ? ofRelease(script.sourceMapUrl) : undefined;
		const map = [named, ofRelease(`${url}.map`)].find((candidate) => candidate?.type === "source_map");
		if (map) return { map, script: byUrl };
	}
	const by = [file.debugId ? `debug id ${file.debugId}` : null, release !== null ? `release ${release}` : null].filter(Boolean);
	if (by.length === 0) return `No source map for ${file.file}: the event names neither a release nor a debug id`;
	return `No source map for ${file.file} uploaded with ${by.join(" or ")}`;
}

interface Budget {
	deadline: number;
	parseBytes: number;
}

const timeBudgetSpent = (file: string, limits: Limits) =>
	`Symbolication stopped before ${file}: this event's ${limits.waitMsPerEvent / 1000} s for reading source maps was spent`;

/** Waits for `promise` until the deadline; null once it has passed. */
async function withinDeadline<T>(promise: Promise<T>, deadline: number, now: () => number): Promise<T | null> {
	const remaining = deadline - now();
	if (remaining <= 0) return null;
	let timer: ReturnType<typeof setTimeout> | null = null;
	const timeout = new Promise<null>((resolve) => {
		timer = setTimeout(() => resolve(null), remaining);
	});
	try {
		return await Promise.race([promise, timeout]);
	} finally {
		clearTimeout(timer);
	}
}

/**
 * An artifact parsed, from the isolate's cache or read from R2 within the event's budgets; what
 * kept it from being read when it was not.
 */
async function load<T extends Parsed>(
	env: Env,
	artifact: Artifact,
	file: string,
	budget: Budget,
	limits: Limits,
	now: () => number,
	parse: (text: string) => T,
): Promise<T | string> {
	const url = artifact.url;
	if (artifact.size > limits.mapBytes) return `The source map ${url} is ${mebibytes(artifact.size)}; maps over ${mebibytes(limits.mapBytes)} are not used`;
	const hit = cached(artifact.id);
	if (hit) return hit as T;
	if (artifact.size > budget.parseBytes) {
		return `Symbolication stopped before ${file}: this event's ${mebibytes(limits.parseBytesPerEvent)} of source maps to parse was spent`;
	}
	const text = await withinDeadline(
		env.ARTIFACTS.get(artifact.objectKey).then((object) => object?.text()),
		budget.deadline,
		now,
	);
	if (text === null) return timeBudgetSpent(file, limits);
	if (text === undefined) return `The source map ${url} is missing from storage: upload it again`;
	budget.parseBytes -= artifact.size;
	let value: T;
	try {
		value = parse(text);
	} catch (err) {
		return `The source map ${url} could not be read: ${(err as Error).message}`;
	}
	cache(artifact.id, value, artifact.size, limits);
	return value;
}

/** Artifacts used now whose `used_at` is older than the refresh interval get a new one (and the cached row too). */
async function markUsed(env: Env, used: Artifact[], limits: Limits, now: number) {
	const stale = used.filter((row) => now - row.usedAt.getTime() > limits.usedAtRefreshMs);
	if (stale.length === 0) return;
	await touchArtifacts(env, [...new Set(stale.map((row) => row.id))], now);
	for (const row of stale) row.usedAt = new Date(now);
}

/**
 * The resolver symbolicate() calls for one event of `key`'s project. `now` and `limits` are
 * replaceable so tests can spend the budgets.
 */
export function artifactMapResolver(env: Env, key: SymbolicationKey, now: () => number = Date.now, limits: Limits = SYMBOLICATION_LIMITS): MapResolver {
	return async (files, release) => {
		const budget: Budget = { deadline: now() + limits.waitMsPerEvent, parseBytes: limits.parseBytesPerEvent };
		const outcomes = new Map<string, MapOutcome>();
		const rows = await withinDeadline(artifactsFor(env, key, files, release), budget.deadline, now);
		if (rows === null) return new Map(files.map((file) => [file.file, { problem: timeBudgetSpent(file.file, limits) }]));

		const used: Artifact[] = [];
		const withScripts: Array<{ file: string; map: SourceMap; url: string; script: Artifact }> = [];
		for (const file of files) {
			const found = artifactsOf(rows, file, release);
			if (typeof found === "string") {
				outcomes.set(file.file, { problem: found });
				continue;
			}
			const map = await load(env, found.map, file.file, budget, limits, now, (text) => new SourceMap(text));
			if (typeof map === "string") {
				outcomes.set(file.file, { problem: map });
				continue;
			}
			used.push(found.map);
			outcomes.set(file.file, { map, url: found.map.url, script: null });
			if (found.script) withScripts.push({ file: file.file, map, url: found.map.url, script: found.script });
		}
		// Scripts only help name functions, so they come after every map, from what budget is left.
		for (const { file, map, url, script } of withScripts) {
			const parsed = await load(env, script, file, budget, limits, now, (text) => new MinifiedScript(text));
			if (typeof parsed === "string") continue;
			used.push(script);
			outcomes.set(file, { map, url, script: parsed });
		}
		if (used.length > 0 && now() < budget.deadline) await withinDeadline(markUsed(env, used, limits, now()), budget.deadline, now);
		return outcomes;
	};
}

/** The event symbolicated against the project's artifacts; never throws. */
export async function symbolicateEvent(env: Env, key: SymbolicationKey, event: LogEvent): Promise<LogEvent> {
	try {
		return await symbolicate(event, artifactMapResolver(env, key));
	} catch (err) {
		console.error("symbolication failed:", err);
		return unsymbolicated(event, "Symbolication failed unexpectedly: the event is stored as it came");
	}
}
