import { env, exports } from "cloudflare:workers";
import { describe, it } from "vitest";
import { call, createProjectKey, ownerWithKey, signUp, submitFeedback, unique } from "./helpers";

const KEY_FIELDS = [
	"project_name",
	"key_hint",
	"rate_limit_per_minute",
	"logs_rate_limit_per_minute",
	"logs_enabled",
	"filter_browser_extensions",
	"issue_field_config",
	"feature_field_config",
	"created_at",
	"dsn_template",
];

describe("create and read", () => {
	it("returns the raw key once, with defaults, and reads show only a hint", async ({ expect }) => {
		const { token } = await signUp();
		const project = unique("app");
		const created = await call("/api/feedback-key", { method: "POST", token, json: { project_name: project } });
		expect(created.status).toBe(201);
		expect(created.headers.get("cache-control")).toBe("no-store");
		expect(created.headers.get("pragma")).toBe("no-cache");
		const body = await created.json<any>();
		expect(body.raw_api_key).toMatch(/^svc_[A-Za-z0-9]{43}$/);
		expect(Object.keys(body).sort()).toEqual([...KEY_FIELDS, "raw_api_key", "dsn"].sort());
		expect(body).toMatchObject({
			project_name: project,
			key_hint: body.raw_api_key.slice(-4),
			rate_limit_per_minute: 60,
			logs_rate_limit_per_minute: 60,
			logs_enabled: true,
			// On for a new key, as Sentry turns the filter on for a new project.
			filter_browser_extensions: true,
		});
		expect(body.issue_field_config.map((f: any) => [f.key, f.type, f.required])).toEqual([
			["title", "text", true],
			["description", "long_text", true],
			["email", "email", false],
			["screenshots", "attachment", false],
		]);
		expect(body.feature_field_config.map((f: any) => [f.key, f.type, f.required])).toEqual([
			["title", "text", true],
			["description", "long_text", false],
			["email", "email", false],
		]);

		const read = await call(`/api/feedback-key?project_name=${project}`, { token });
		expect(read.status).toBe(200);
		const readText = await read.text();
		expect(readText).not.toContain(body.raw_api_key);
		expect(Object.keys(JSON.parse(readText)).sort()).toEqual([...KEY_FIELDS].sort());

		const list = await call("/api/feedback-keys", { token }).then((r) => r.text());
		expect(list).not.toContain(body.raw_api_key);
		expect(JSON.parse(list).keys).toHaveLength(1);
	});

	it("stores only the SHA-256 of the key", async ({ expect }) => {
		const { token } = await signUp();
		const { rawKey, projectName } = await createProjectKey(token);
		const row = await env.DB.prepare("select * from project_keys where project_name = ?").bind(projectName).first();
		expect(JSON.stringify(row)).not.toContain(rawKey);
		const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(rawKey));
		expect(row!.key_hash).toBe([...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join(""));
	});

	it("answers 409 to a second key for the same project, and 404 to reading a missing one", async ({ expect }) => {
		const { token } = await signUp();
		const { projectName } = await createProjectKey(token);
		expect((await call("/api/feedback-key", { method: "POST", token, json: { project_name: projectName } })).status).toBe(409);
		expect((await call(`/api/feedback-key?project_name=${unique()}`, { token })).status).toBe(404);
	});

	it("lets two owners use the same project name, each seeing only their own", async ({ expect }) => {
		const a = await signUp();
		const b = await signUp();
		const { projectName } = await createProjectKey(a.token);
		expect((await call("/api/feedback-key", { method: "POST", token: b.token, json: { project_name: projectName } })).status).toBe(201);
		const aKey = await call(`/api/feedback-key?project_name=${projectName}`, { token: a.token }).then((r) => r.json<any>());
		const bKey = await call(`/api/feedback-key?project_name=${projectName}`, { token: b.token }).then((r) => r.json<any>());
		expect(aKey.key_hint).not.toBe(bKey.key_hint);
	});

	it.for([
		["no project_name", {}],
		["an empty project_name", { project_name: "  " }],
		["a 101-character project_name", { project_name: "p".repeat(101) }],
		["a numeric project_name", { project_name: 42 }],
	])("refuses %s with 400", async ([, body], { expect }) => {
		const { token } = await signUp();
		const res = await call("/api/feedback-key", { method: "POST", token, json: body });
		expect(res.status).toBe(400);
	});

	it("accepts a 100-character project_name", async ({ expect }) => {
		const { token } = await signUp();
		expect((await call("/api/feedback-key", { method: "POST", token, json: { project_name: "p".repeat(100) } })).status).toBe(201);
	});

	it("needs a session", async ({ expect }) => {
		expect((await call("/api/feedback-key", { method: "POST", json: { project_name: "x" } })).status).toBe(401);
	});
});

describe("update configuration", () => {
	it("needs at least one configuration field", async ({ expect }) => {
		const { token } = await signUp();
		const { projectName } = await createProjectKey(token);
		const res = await call("/api/feedback-key", { method: "PATCH", token, json: { project_name: projectName } });
		expect(res.status).toBe(400);
		expect((await res.json<any>()).error).toContain("at least one configuration field");
	});

	it("names a member it does not know, and the choices of one it does", async ({ expect }) => {
		const { token } = await signUp();
		const { projectName } = await createProjectKey(token);
		const unknown = await call("/api/feedback-key", { method: "PATCH", token, json: { project_name: projectName, logs_enabled: true, log_enabled: true } });
		expect(unknown.status).toBe(400);
		expect((await unknown.json<any>()).error).toBe("Invalid request: unknown member log_enabled");
		const config = [{ key: "where", label: "Where", type: "dropdown", required: false, options: ["a"] }];
		const badType = await call("/api/feedback-key", { method: "PATCH", token, json: { project_name: projectName, issue_field_config: config } });
		expect(badType.status).toBe(400);
		expect((await badType.json<any>()).error).toMatch(/^Invalid request: issue_field_config\.0\.type: must be one of [a-z_]+(, [a-z_]+)+$/);
	});

	it.for([
		["text", { project_name: 42 }, "project_name: must be text"],
		["true or false", { logs_enabled: "yes" }, "logs_enabled: must be true or false"],
		["a number", { rate_limit_per_minute: "5" }, "rate_limit_per_minute: must be a number"],
		["a whole number", { rate_limit_per_minute: 1.5 }, "rate_limit_per_minute: must be a whole number"],
		["a list", { issue_field_config: "title" }, "issue_field_config: must be a list"],
		["an object", { issue_field_config: ["title"] }, "issue_field_config.0: must be an object"],
	] as const)("words a value that is not %s plainly, not in zod's types", async ([, change, problem], { expect }) => {
		const { token } = await signUp();
		const { projectName } = await createProjectKey(token);
		const res = await call("/api/feedback-key", { method: "PATCH", token, json: { project_name: projectName, ...change } });
		expect(res.status).toBe(400);
		expect((await res.json<any>()).error).toBe(`Invalid request: ${problem}`);
	});

	it("replaces a schema and the rate limits, and answers the new configuration", async ({ expect }) => {
		const { token } = await signUp();
		const { projectName } = await createProjectKey(token);
		const issueFields = [
			{ key: "summary", label: "Summary", type: "text", required: true },
			{ key: "severity", label: "Severity", type: "select", required: false, options: ["low", "high"] },
		];
		const res = await call("/api/feedback-key", {
			method: "PATCH",
			token,
			json: { project_name: projectName, issue_field_config: issueFields, rate_limit_per_minute: 5, logs_enabled: false },
		});
		expect(res.status).toBe(200);
		const body = await res.json<any>();
		expect(body.issue_field_config).toEqual(issueFields);
		expect(body.feature_field_config.map((f: any) => f.key)).toEqual(["title", "description", "email"]);
		expect(body).toMatchObject({ rate_limit_per_minute: 5, logs_enabled: false, logs_rate_limit_per_minute: 60 });
		expect(body.raw_api_key).toBeUndefined();
	});

	it.for([
		["an unknown type", [{ key: "a", label: "A", type: "color", required: false }]],
		["a select without options", [{ key: "a", label: "A", type: "select", required: false }]],
		["options on a text field", [{ key: "a", label: "A", type: "text", required: false, options: ["x"] }]],
		["duplicate keys", [{ key: "a", label: "A", type: "text" }, { key: "a", label: "B", type: "text" }]],
		["the reserved key type", [{ key: "type", label: "T", type: "text" }]],
		["a key with spaces", [{ key: "my field", label: "A", type: "text" }]],
		["an empty label", [{ key: "a", label: "", type: "text" }]],
		["an unknown property", [{ key: "a", label: "A", type: "text", color: "red" }]],
		["not an array", { key: "a" }],
		["51 fields", Array.from({ length: 51 }, (_, i) => ({ key: `f${i}`, label: "F", type: "text" }))],
	])("refuses %s with 400", async ([, config], { expect }) => {
		const { token } = await signUp();
		const { projectName } = await createProjectKey(token);
		const res = await call("/api/feedback-key", { method: "PATCH", token, json: { project_name: projectName, issue_field_config: config } });
		expect(res.status).toBe(400);
		expect(Object.keys(await res.json<any>())).toEqual(["error"]);
	});

	it.for([
		// The console's field editor sends an empty list when a select's options box is blank.
		["no options", [], "issue_field_config.0.options: a select field needs options"],
		["101 options", Array.from({ length: 101 }, (_, i) => `o${i}`), "issue_field_config.0.options: at most 100 options"],
		["an empty option", ["a", " "], "issue_field_config.0.options.1: must not be empty"],
		["an option of 201 characters", ["x".repeat(201)], "issue_field_config.0.options.0: at most 200 characters"],
	])("refuses a select with %s, saying so in words", async ([, options, message], { expect }) => {
		const { token } = await signUp();
		const { projectName } = await createProjectKey(token);
		const config = [{ key: "plan", label: "Plan", type: "select", required: false, options }];
		const res = await call("/api/feedback-key", { method: "PATCH", token, json: { project_name: projectName, issue_field_config: config } });
		expect(res.status).toBe(400);
		expect((await res.json<any>()).error).toBe(`Invalid request: ${message}`);
	});

	it("accepts a select with 100 options of 200 characters", async ({ expect }) => {
		const { token } = await signUp();
		const { projectName } = await createProjectKey(token);
		const options = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(200, "x"));
		const config = [{ key: "plan", label: "Plan", type: "select", required: false, options }];
		const res = await call("/api/feedback-key", { method: "PATCH", token, json: { project_name: projectName, issue_field_config: config } });
		expect(res.status).toBe(200);
		expect((await res.json<any>()).issue_field_config[0].options).toEqual(options);
	});

	it("accepts 50 fields", async ({ expect }) => {
		const { token } = await signUp();
		const { projectName } = await createProjectKey(token);
		const fields = Array.from({ length: 50 }, (_, i) => ({ key: `f${i}`, label: "F", type: "text", required: false }));
		const res = await call("/api/feedback-key", { method: "PATCH", token, json: { project_name: projectName, feature_field_config: fields } });
		expect(res.status).toBe(200);
	});

	it.for([
		["rate_limit_per_minute", 0],
		["rate_limit_per_minute", 1.5],
		["logs_rate_limit_per_minute", "60"],
		["logs_enabled", "yes"],
		["filter_browser_extensions", 1],
	])("refuses %s = %j", async ([field, value], { expect }) => {
		const { token } = await signUp();
		const { projectName } = await createProjectKey(token);
		const res = await call("/api/feedback-key", { method: "PATCH", token, json: { project_name: projectName, [field as string]: value } });
		expect(res.status).toBe(400);
	});

	it("answers 404 for another owner's project", async ({ expect }) => {
		const a = await signUp();
		const b = await signUp();
		const { projectName } = await createProjectKey(a.token);
		const res = await call("/api/feedback-key", { method: "PATCH", token: b.token, json: { project_name: projectName, logs_enabled: false } });
		expect(res.status).toBe(404);
	});
});

describe("revoke and regenerate", () => {
	it("revoking kills the key at once", async ({ expect }) => {
		const { token } = await signUp();
		const { rawKey, projectName } = await createProjectKey(token);
		expect((await submitFeedback(rawKey, { title: "t", description: "d" })).status).toBe(200);
		const res = await call(`/api/feedback-key?project_name=${projectName}`, { method: "DELETE", token });
		expect(res.status).toBe(200);
		expect((await submitFeedback(rawKey, { title: "t", description: "d" })).status).toBe(401);
		expect((await call(`/api/feedback-key?project_name=${projectName}`, { token })).status).toBe(404);
		expect((await call(`/api/feedback-key?project_name=${projectName}`, { method: "DELETE", token })).status).toBe(404);
	});

	it("regenerating returns a new key once, keeps both schemas and the rate limit, and kills the old key", async ({ expect }) => {
		const { token } = await signUp();
		const { rawKey, projectName } = await createProjectKey(token);
		const fields = [{ key: "what", label: "What", type: "long_text", required: true }];
		await call("/api/feedback-key", {
			method: "PATCH",
			token,
			json: { project_name: projectName, issue_field_config: fields, feature_field_config: fields, rate_limit_per_minute: 7 },
		});

		const res = await call("/api/feedback-key/regenerate", { method: "POST", token, json: { project_name: projectName } });
		expect(res.status).toBe(200);
		expect(res.headers.get("cache-control")).toBe("no-store");
		const body = await res.json<any>();
		expect(body.raw_api_key).toMatch(/^svc_/);
		expect(body.raw_api_key).not.toBe(rawKey);
		expect(body).toMatchObject({ rate_limit_per_minute: 7, key_hint: body.raw_api_key.slice(-4) });
		expect(body.issue_field_config).toEqual([{ ...fields[0] }]);
		expect(body.feature_field_config).toEqual([{ ...fields[0] }]);

		expect((await submitFeedback(rawKey, { what: "old" })).status).toBe(401);
		expect((await submitFeedback(body.raw_api_key, { what: "new" })).status).toBe(200);
	});

	it("allows 5 regenerations per window, then 429 with Retry-After", async ({ expect }) => {
		const { token } = await signUp();
		const { projectName } = await createProjectKey(token);
		const statuses = await Promise.all(
			Array.from({ length: 6 }, () =>
				call("/api/feedback-key/regenerate", { method: "POST", token, json: { project_name: projectName } }),
			),
		);
		expect(statuses.filter((r) => r.status === 200)).toHaveLength(5);
		const limited = statuses.filter((r) => r.status === 429);
		expect(limited).toHaveLength(1);
		expect(Number(limited[0].headers.get("retry-after"))).toBeGreaterThan(0);
		expect(Number(limited[0].headers.get("retry-after"))).toBeLessThanOrEqual(60);
	});

	it("shares the regeneration window across the owner's projects", async ({ expect }) => {
		const { token } = await signUp();
		const projects = await Promise.all(Array.from({ length: 6 }, () => createProjectKey(token)));
		const statuses = [];
		for (const { projectName } of projects) {
			statuses.push((await call("/api/feedback-key/regenerate", { method: "POST", token, json: { project_name: projectName } })).status);
		}
		expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
	});

	it("answers 404 when regenerating a missing key", async ({ expect }) => {
		const { token } = await signUp();
		expect((await call("/api/feedback-key/regenerate", { method: "POST", token, json: { project_name: unique() } })).status).toBe(404);
	});
});

describe("Sentry DSN", () => {
	it("create and regenerate carry the DSN; reads carry it with the key left out", async ({ expect }) => {
		const { token } = await signUp();
		const project = unique("app");
		const created = await call("/api/feedback-key", { method: "POST", token, json: { project_name: project } }).then((r) => r.json<any>());
		// What Sentry SDKs parse: letters, digits and _ as the key, digits as the project id.
		const match = /^https:\/\/([A-Za-z0-9_]+)@svc\.test\/(\d+)$/.exec(created.dsn);
		expect(match?.[1]).toBe(created.raw_api_key);
		const dsnId = match![2];
		expect(created.dsn_template).toBe(`https://{PROJECT_KEY}@svc.test/${dsnId}`);

		const read = await call(`/api/feedback-key?project_name=${project}`, { token }).then((r) => r.json<any>());
		expect(read.dsn_template).toBe(created.dsn_template);
		expect(read.dsn).toBeUndefined();

		const regenerated = await call("/api/feedback-key/regenerate", { method: "POST", token, json: { project_name: project } }).then((r) => r.json<any>());
		expect(regenerated.dsn).toBe(`https://${regenerated.raw_api_key}@svc.test/${dsnId}`);
	});

	it("gives every key its own DSN id", async ({ expect }) => {
		const { token } = await signUp();
		const keys = await Promise.all(
			Array.from({ length: 5 }, () => call("/api/feedback-key", { method: "POST", token, json: { project_name: unique("app") } }).then((r) => r.json<any>())),
		);
		const ids = keys.map((k) => k.dsn.split("/").pop());
		expect(new Set(ids).size).toBe(5);
	});

	it("the migration gives keys created before DSNs distinct ids", async ({ expect }) => {
		const { token } = await signUp();
		const projects = [unique("old"), unique("old")];
		for (const project of projects) await createProjectKey(token, project);
		await env.DB.prepare(`update project_keys set dsn_id = null where project_name in (?, ?)`).bind(...projects).run();
		const [update] = env.TEST_MIGRATIONS.find((m) => m.name.endsWith("_dsn_id.sql"))!.queries.filter((q) => q.includes("UPDATE"));
		await env.DB.prepare(update).run();
		const templates = await Promise.all(projects.map((p) => call(`/api/feedback-key?project_name=${p}`, { token }).then((r) => r.json<any>())));
		for (const { dsn_template } of templates) expect(dsn_template).toMatch(/^https:\/\/\{PROJECT_KEY\}@svc\.test\/\d+$/);
		expect(templates[0].dsn_template).not.toBe(templates[1].dsn_template);
	});

	it("the DSN's host is the one the request came to", async ({ expect }) => {
		const { token } = await signUp();
		const res = await exports.default.fetch(
			new Request("http://127.0.0.1:8787/api/feedback-key", {
				method: "POST",
				headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
				body: JSON.stringify({ project_name: unique("app") }),
			}),
		);
		const body = await res.json<any>();
		expect(body.dsn).toMatch(new RegExp(`^http://${body.raw_api_key}@127\\.0\\.0\\.1:8787/\\d+$`));
	});
});

describe("caps on what an account holds and how far a key opens", () => {
	it("an account holds at most 50 project keys: the 51st is 403", async ({ expect }) => {
		const { token } = await signUp();
		for (let i = 0; i < 50; i++) expect((await call("/api/feedback-key", { method: "POST", token, json: { project_name: `p${i}` } })).status).toBe(201);
		const refused = await call("/api/feedback-key", { method: "POST", token, json: { project_name: "p50" } });
		expect(refused.status).toBe(403);
		expect(await refused.json()).toEqual({ error: expect.stringContaining("at most 50 project keys") });
		expect((await call("/api/feedback-keys", { token }).then((r) => r.json<any>())).keys).toHaveLength(50);
	}, 120_000);

	it.for([
		["rate_limit_per_minute", 600],
		["logs_rate_limit_per_minute", 6_000],
	] as const)("%s goes up to %i, and one more is 400", async ([field, max], { expect }) => {
		const { token, projectName } = await ownerWithKey();
		const patch = (value: number) => call("/api/feedback-key", { method: "PATCH", token, json: { project_name: projectName, [field]: value } });
		expect((await patch(max)).status).toBe(200);
		const over = await patch(max + 1);
		expect(over.status).toBe(400);
		expect(await over.json()).toEqual({ error: expect.stringContaining(field) });
	});
});
