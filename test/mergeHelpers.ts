/** Issues to merge and unmerge, and the merge itself through the Worker (issue-merge and issue-unmerge tests). */
import { call } from "./helpers";
import { ingestOk, ownerWithLogKey } from "./logHelpers";

type Json = Record<string, any>;
export type Project = Awaited<ReturnType<typeof ownerWithLogKey>>;

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

export function merge(project: Project, groupHashes: unknown, extra: Json = {}) {
	return call("/api/issues/merge", { method: "POST", token: project.token, json: { project_name: project.projectName, group_hashes: groupHashes, ...extra } });
}

export async function mergeOk(project: Project, groupHashes: string[]): Promise<Json> {
	const res = await merge(project, groupHashes);
	if (res.status !== 200) throw new Error(`merge failed: ${res.status} ${await res.text()}`);
	return res.json();
}

/** Three issues: Alpha's three events, Beta's one (in a release), a crash the app did not catch; users and environments across them. */
export async function threeIssues() {
	const project = await ownerWithLogKey();
	const send = (event: Json) => ingestOk(project.rawKey, event).then((answer) => answer.group_hash);
	const alpha = await send({ message: "Alpha", environment: "production", user: { id: "u1" }, tags: { route: "/a" }, timestamp: minutesAgo(30) });
	await send({ message: "Alpha", environment: "production", user: { id: "u2" }, tags: { route: "/a" }, timestamp: minutesAgo(20) });
	await send({ message: "Alpha", environment: "staging", user: { id: "u1" }, timestamp: minutesAgo(10) });
	const beta = await send({ message: "Beta", environment: "production", user: { id: "u3" }, release: "1.0.0", tags: { route: "/b" }, timestamp: minutesAgo(40) });
	const crash = await send({
		exception: { type: "TypeError", value: "x is undefined", mechanism: { type: "onerror", handled: false } },
		environment: "staging",
		user: { id: "u1" },
		timestamp: minutesAgo(5),
	});
	return { project, alpha, beta, crash };
}
