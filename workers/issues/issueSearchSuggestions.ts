/**
 * The issue list's search box suggestions (docs/api.md#search-suggestions): the project's tag keys,
 * and a tag's most common values as the box completes `key:`. Read from log_issue_tags within the
 * bounds of OWNER_LIMITS, after the key's events are moved to D1 so the latest count.
 */
import type { IRequest } from "itty-router";
import { OWNER_LIMITS } from "../../domain/limits";
import { tagKeys, tagValues } from "../../domain/logs/tagSuggestions";
import type { OwnerRequest } from "../auth/session";
import { json } from "../http";
import { projectNameSchema } from "../keys/projectKeys";
import { limitParam, parseBody, queryParams, queryText } from "../validation";
import { environmentSchema, ownKeyFlushed } from "./ownerIssues";

/** A tag key as ingestion keeps them (docs/limits.md): 1 to 200 characters. */
const TAG_KEY_MAX = 200;
/** A tag value as ingestion keeps it: at most 500 characters, so no longer prefix can match one. */
const TAG_VALUE_MAX = 500;

const keysQuerySchema = queryParams({
	project_name: projectNameSchema,
	environment: environmentSchema.optional(),
});

const valuesQuerySchema = keysQuerySchema.extend({
	key: queryText().min(1, "is required").max(TAG_KEY_MAX, `must be at most ${TAG_KEY_MAX} characters`),
	prefix: queryText().max(TAG_VALUE_MAX, `must be at most ${TAG_VALUE_MAX} characters`).optional(),
	limit: limitParam(OWNER_LIMITS.issueSearchValues).default(OWNER_LIMITS.issueSearchValues),
});

/**
 * GET /api/issues/tag-keys?project_name=&environment= → {keys, partial}: the tag keys of the
 * project's issues (with a value in `environment` when named), in order, at most 200.
 */
export async function listTagKeys(request: IRequest, env: Env): Promise<Response> {
	const { project_name, environment } = parseBody(keysQuerySchema, request.query);
	const owner = await ownKeyFlushed(env, (request as OwnerRequest).user.id, project_name);
	return json(await tagKeys(env, owner, environment));
}

/**
 * GET /api/issues/tag-values?project_name=&key=&prefix=&environment=&limit= → {key, values,
 * partial}: the tag's values that start with `prefix` (letter case as typed, as the search
 * matches them), those most events of the project's issues carried first, `limit` of them (10 by
 * default and at most); only the tag's first 10,000 rows from the prefix on are counted.
 */
export async function listTagValues(request: IRequest, env: Env): Promise<Response> {
	const { project_name, environment, key, prefix, limit } = parseBody(valuesQuerySchema, request.query);
	const owner = await ownKeyFlushed(env, (request as OwnerRequest).user.id, project_name);
	return json(await tagValues(env, owner, key, { prefix, environment, limit }));
}
