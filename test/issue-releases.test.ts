import { describe, it } from "vitest";
import { call } from "./helpers";
import { ingestOk, issueOf, issuesOf, ownerWithLogKey } from "./logHelpers";

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

describe("an issue's first and last release (Sentry's first seen in, last seen in)", () => {
	it("are the releases of its earliest and latest events, by when they happened, in all environments or one", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const send = (minutes: number, release: string | undefined, environment: string) =>
			ingestOk(project.rawKey, { message: "Release me", release, environment, timestamp: minutesAgo(minutes) });
		// Sent out of order: the latest release arrives first, the earliest last.
		await send(5, "2.0.0", "production");
		await send(20, "1.5.0", "staging");
		const { group_hash } = await send(60, "1.0.0", "production");
		await send(1, undefined, "production");

		expect(await issueOf(project, group_hash)).toMatchObject({ first_release: "1.0.0", last_release: "2.0.0" });
		const staging = await (await call(`/api/issues/${group_hash}?project_name=${project.projectName}&environment=staging`, { token: project.token })).json();
		expect(staging).toMatchObject({ first_release: "1.5.0", last_release: "1.5.0" });

		const plain = await ingestOk(project.rawKey, { message: "No release" });
		expect(await issueOf(project, plain.group_hash)).toMatchObject({ first_release: null, last_release: null });
	});

	it("firstRelease: lists the issues new in a release: their earliest event carried it, in all environments or one", async ({ expect }) => {
		const project = await ownerWithLogKey();
		const now = Date.now();
		const send = (message: string, minutes: number, release: string | undefined, environment = "production") =>
			ingestOk(project.rawKey, { message, release, environment, timestamp: new Date(now - minutes * 60_000).toISOString() });
		// Old: first in 1.0.0, seen again in 2.0.0. New: first in 2.0.0, its 1.0.0 event sent later but dated after.
		const old = await send("Old", 60, "1.0.0");
		await send("Old", 5, "2.0.0");
		const fresh = await send("New", 30, "2.0.0");
		await send("New", 10, "1.0.0", "staging");
		// In staging the New issue's earliest event is 1.0.0's.
		const beta = await send("Beta", 40, "2.0.0-beta.1");
		const unreleased = await send("Unreleased", 50, undefined);
		// Two releases first seen in the same millisecond: the first by name, as the issue's first_release.
		const tie = await send("Tie", 45, "2.0.1");
		await send("Tie", 45, "2.0.0");

		const listed = async (q: string, environment?: string) =>
			(await issuesOf(project, { q, ...(environment && { environment }) })).map((i) => i.group_hash).sort();
		expect(await listed("firstRelease:2.0.0")).toEqual([fresh.group_hash, tie.group_hash].sort());
		expect((await issueOf(project, tie.group_hash)).first_release).toBe("2.0.0");
		expect(await listed("firstRelease:1.0.0")).toEqual([old.group_hash]);
		expect(await listed("firstrelease:1.0.0", "staging")).toEqual([fresh.group_hash]);
		expect(await listed("firstRelease:2.0.0", "staging")).toEqual([]);
		expect(await listed("firstRelease:2.0.0*")).toEqual([fresh.group_hash, beta.group_hash, tie.group_hash].sort());
		expect(await listed("firstRelease:3.0.0")).toEqual([]);
		expect(await listed('firstRelease:"2.0.0" New')).toEqual([fresh.group_hash]);
		expect(await listed("firstRelease:2.0.0 is:resolved")).toEqual([]);
		expect((await issuesOf(project)).map((i) => i.group_hash)).toContain(unreleased.group_hash);
	});
});
