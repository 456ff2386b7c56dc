import { env } from "cloudflare:workers";
import { beforeAll, describe, it } from "vitest";
import { prefixPattern, TAG_KEYS, TAG_VALUES } from "../domain/logs/tagSuggestions";
import { describeTables, forgetStatistics } from "./plannerStatistics";

/**
 * The search box's reads of log_issue_tags, as issue-query-plans.test.ts checks the issue list's:
 * with the statistics of a key whose 10,000 issues hold 500,000 tag rows, and with none at all.
 * Either way each is a search of the tag index, never a scan of the table.
 */
const seedTagStatistics = () =>
	describeTables([
		["log_issue_tags", "log_issue_tags", "500000 500000 50 25 12 1"],
		["log_issue_tags", "log_issue_tags_key_tag_value_idx", "500000 500000 25000 20 1"],
		["log_issue_tags", "log_issue_tags_last_seen_idx", "500000 2"],
	]);

async function planOf(sql: string, ...binds: unknown[]): Promise<string> {
	const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
		.bind(...binds)
		.all<{ detail: string }>();
	return results.map((row) => row.detail).join("\n");
}

describe.each([
	["a key with 500,000 tag rows", seedTagStatistics],
	["a database never analyzed", forgetStatistics],
] as const)("%s", (_, prepareStatistics) => {
	beforeAll(prepareStatistics);

	it.for([null, "production"])("the tag keys (environment %s): a skip-scan, one seek of the tag index per key", async (environment, { expect }) => {
		const steps = await planOf(TAG_KEYS, "k", environment, 201, 1000);
		// The first key, then each next one past the last: the min() of an index range is one seek.
		expect(steps).toMatch(/SEARCH log_issue_tags USING COVERING INDEX log_issue_tags_key_tag_value_idx \(key_id=\?\)/);
		expect(steps).toMatch(/SEARCH log_issue_tags USING COVERING INDEX log_issue_tags_key_tag_value_idx \(key_id=\? AND tag_key>\?\)/);
		// The environment's probe reads the key's own entries, the environment in each (the table's primary key).
		if (environment) expect(steps).toMatch(/SEARCH log_issue_tags USING COVERING INDEX log_issue_tags_key_tag_value_idx \(key_id=\? AND tag_key=\?\)/);
		expect(steps).not.toMatch(/SCAN log_issue_tags\b/);
	});

	it.for([
		["", "key_id=\\? AND tag_key=\\?\\)"],
		["Chr", "key_id=\\? AND tag_key=\\? AND value>\\? AND value<\\?\\)"],
	])("a tag's values (prefix %j): a range of the tag index in value order, never a scan nor a sort of the table", async ([prefix, range], { expect }) => {
		for (const environment of [null, "production"]) {
			const steps = await planOf(TAG_VALUES, "k", "browser.name", prefixPattern(prefix), environment, 10_000, 10);
			// Read in the index's order straight into the rows counted: no sort of the tag's rows between.
			// The sorts that follow rank the rows read, at most 10,000.
			expect(steps).toMatch(new RegExp(`SEARCH log_issue_tags USING INDEX log_issue_tags_key_tag_value_idx \\(${range}\nSCAN read\n`));
			expect(steps).not.toMatch(/SCAN log_issue_tags\b/);
		}
	});
});
