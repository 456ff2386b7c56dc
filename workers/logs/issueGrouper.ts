import { deleteKeyLogs } from "./logStore";

/** The IssueGrouper of one project key: every log event of the key goes through it. */
export function issueGrouperFor(env: Env, keyId: string) {
	return env.ISSUE_GROUPER.get(env.ISSUE_GROUPER.idFromName(`key:${keyId}`));
}

/**
 * Deletes what a project key's logs left behind, before the key itself goes: the grouper's state
 * first (it then refuses the key, so nothing arriving in between is written again), then the
 * D1 rows (which the key row's deletion would also cascade to).
 */
export async function purgeKeyLogs(env: Env, keyId: string): Promise<void> {
	await issueGrouperFor(env, keyId).purge();
	await deleteKeyLogs(env, keyId);
}
