import { describe, it } from "vitest";
import { call } from "./helpers";
import { ingestOk, issueOf, ownerWithLogKey } from "./logHelpers";

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
});
