import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { ProjectCollector } from "../durable-objects/ProjectCollector";
import { type IssueSnapshot, writeStatements } from "../domain/logs/logStore";
import { call, ownerWithKey, uniqueIp } from "./helpers";

export const INGEST_PATH = "/api/app-logs-ingest";

/** A log event through the Worker: the key in `x-svc-key` unless `via: "bearer"` or no key. */
export function ingest(
	rawKey: string | null,
	body: unknown,
	init: { ip?: string; raw?: string; via?: "header" | "bearer"; headers?: Record<string, string>; method?: string } = {},
) {
	const headers = new Headers(init.headers);
	headers.set("content-type", "application/json");
	if (rawKey !== null && init.via !== "bearer") headers.set("x-svc-key", rawKey);
	return call(INGEST_PATH, {
		method: init.method ?? "POST",
		token: rawKey !== null && init.via === "bearer" ? rawKey : undefined,
		ip: init.ip ?? uniqueIp(),
		headers,
		body: init.method === "GET" ? undefined : (init.raw ?? JSON.stringify(body)),
	});
}

/** Ingests and returns the 200 body; fails the test on any other status. */
export async function ingestOk(rawKey: string, body: unknown, ip?: string): Promise<{ ok: true; group_hash: string; is_new: boolean }> {
	const res = await ingest(rawKey, body, { ip });
	if (res.status !== 200) throw new Error(`ingest failed: ${res.status} ${await res.text()}`);
	return res.json();
}

/** An owner with a project key; `keyId` for looking into D1 and the ProjectCollector. */
export async function ownerWithLogKey() {
	const owner = await ownerWithKey();
	const row = await env.DB.prepare("select id from project_keys where user_id = ? and project_name = ?")
		.bind(owner.user.id, owner.projectName)
		.first<{ id: string }>();
	return { ...owner, keyId: row!.id };
}

export function listIssues(token: string, query: Record<string, string>) {
	return call(`/api/issues?${new URLSearchParams(query)}`, { token });
}

export function readIssue(token: string, projectName: string, groupHash: string) {
	return call(`/api/issues/${groupHash}?${new URLSearchParams({ project_name: projectName })}`, { token });
}

export function setIssueStatus(token: string, projectName: string, groupHash: string, status: unknown) {
	return call(`/api/issues/${groupHash}`, { method: "PATCH", token, json: { project_name: projectName, status } });
}

type Json = Record<string, any>;
/** What the owner-side helpers need of a project: its owner's token and its name. */
type OwnerProject = { token: string; projectName: string };

/** The project's issue list, as its owner reads it; fails the test on any status but 200. */
export async function issuesOf(project: OwnerProject, query: Record<string, string> = {}): Promise<Json[]> {
	const res = await listIssues(project.token, { project_name: project.projectName, ...query });
	if (res.status !== 200) throw new Error(`list failed: ${res.status} ${await res.text()}`);
	return (await res.json<Json>()).issues;
}

/** One issue's detail, as its owner reads it; fails the test on any status but 200. */
export async function issueOf(project: OwnerProject, groupHash: string): Promise<Json> {
	const res = await readIssue(project.token, project.projectName, groupHash);
	if (res.status !== 200) throw new Error(`read failed: ${res.status} ${await res.text()}`);
	return res.json();
}

/** Raises the key's log window through the owner API (up to its ceiling, 6,000 a minute). */
export async function raiseLogsLimit(project: OwnerProject, perMinute = 6_000) {
	const res = await call("/api/feedback-key", {
		method: "PATCH",
		token: project.token,
		json: { project_name: project.projectName, logs_rate_limit_per_minute: perMinute },
	});
	if (res.status !== 200) throw new Error(`key update failed: ${res.status}`);
}

/** Stored events of a key in D1 (after an owner read has flushed them). */
export async function storedEvents(keyId: string) {
	const { results } = await env.DB.prepare("select * from log_events where key_id = ? order by received_at").bind(keyId).all<Record<string, any>>();
	return results.map((row) => ({ ...row, event: JSON.parse(row.event as string) }) as Record<string, any>);
}

export function issueGrouper(keyId: string) {
	return env.PROJECT_COLLECTOR.get(env.PROJECT_COLLECTOR.idFromName(`key:${keyId}`));
}

/** Everything the key's ProjectCollector holds, as text, for "is this secret anywhere?" checks. */
export function grouperStorageText(keyId: string): Promise<string> {
	return runInDurableObject(issueGrouper(keyId), (_instance: ProjectCollector, state) => {
		const tables = state.storage.sql
			.exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'`)
			.toArray();
		return JSON.stringify(tables.map(({ name }) => state.storage.sql.exec(`SELECT * FROM "${name}"`).toArray()));
	});
}

/** An issue row as seedIssues writes it; what is not given takes a plain value. */
export interface SeededIssue {
	groupHash: string;
	lastSeen: number;
	firstSeen?: number;
	count?: number;
	status?: "open" | "resolved" | "ignored";
	environments?: string[];
	releases?: string[];
}

/** The group hash of the `i`th seeded issue: 32 hex characters, as the grouping makes them. */
export const seededHash = (i: number) => i.toString(16).padStart(32, "0");

/**
 * Issues written to D1 by the statements the ProjectCollector moves them with, without sending
 * their events: thousands of them in a test. The collector itself does not hold them.
 */
export async function seedIssues(project: { keyId: string; user: { id: string } }, issues: SeededIssue[]) {
	const snapshots: IssueSnapshot[] = issues.map((i, n) => ({
		groupHash: i.groupHash,
		title: `seeded ${i.groupHash}`,
		culprit: null,
		level: "error",
		status: i.status ?? "open",
		count: i.count ?? 1,
		users: 1,
		firstSeen: i.firstSeen ?? i.lastSeen,
		lastSeen: i.lastSeen,
		environments: i.environments ?? [],
		releases: i.releases ?? [],
		resolvedInRelease: null,
		resolvedInNextRelease: false,
		unhandled: false,
		ignoredUntil: null,
		ignoredUntilCount: null,
		ignoredUntilUsers: null,
		ignoredUntilEscalating: null,
		escalatedAt: null,
		shortId: n + 1,
	}));
	await env.DB.batch(writeStatements(env.DB, { keyId: project.keyId, userId: project.user.id }, [], snapshots));
}
