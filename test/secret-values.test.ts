// Secrets recognised by their value whatever their name (card numbers, private keys, URL
// passwords), filtered wherever names are before anything is stored, from both endpoints.
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { grouperStorageText, ingest, issuesOf, listIssues, ownerWithLogKey, storedEvents } from "./logHelpers";
import { eventEnvelope, nodeEvent, sendEnvelope, sentryProject } from "./sentryHelpers";

type Json = Record<string, any>;

const CARD = "4111 1111 1111 1111";
const CARD_DIGITS = "4111111111111111";
const KEY_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj";
const PRIVATE_KEY = `-----BEGIN RSA PRIVATE KEY-----\n${KEY_BODY}\n${KEY_BODY}\n-----END RSA PRIVATE KEY-----`;

/** Sends one log event to /api/app-logs-ingest and returns it as stored in D1. */
async function storedAfter(body: unknown): Promise<Json> {
	const owner = await ownerWithLogKey();
	const res = await ingest(owner.rawKey, body);
	if (res.status !== 200) throw new Error(`ingest failed: ${res.status} ${await res.text()}`);
	await listIssues(owner.token, { project_name: owner.projectName });
	const [stored] = await storedEvents(owner.keyId);
	return stored.event;
}

describe("secret values, whatever their name", () => {
	it.for([
		["a card number alone", CARD_DIGITS, "[Filtered]"],
		["one in a sentence, in groups of four", `paid with ${CARD} today`, "paid with [Filtered] today"],
		["one grouped by dashes", "4111-1111-1111-1111", "[Filtered]"],
		["an Amex number of 15 digits", "amex 3782 822463 10005.", "amex [Filtered]."],
		["one followed by its CVV", `card ${CARD} 123`, "card [Filtered] 123"],
		["one after a date", `2024-06-01 ${CARD}`, "2024-06-01 [Filtered]"],
		["one quoted, as sentry-python's repr sends it", `'${CARD_DIGITS}'`, "'[Filtered]'"],
		["two in one text", `${CARD_DIGITS} and 5555 5555 5555 4444`, "[Filtered] and [Filtered]"],
		["an order id that fails Luhn's check", "order 4111111111111112", "order 4111111111111112"],
		["a timestamp in milliseconds", "at 1795380886166", "at 1795380886166"],
		["12 digits", "411111111111", "411111111111"],
		["digits inside a word", `id${CARD_DIGITS}`, `id${CARD_DIGITS}`],
		["the fraction of a number", `0.${CARD_DIGITS}`, `0.${CARD_DIGITS}`],
	] as const)("%s", async ([, text, stored], { expect }) => {
		const event = await storedAfter({ message: "m", extra: { note: text } });
		expect(event.extra).toEqual({ note: stored });
	});

	it("a private key's body, between its BEGIN and END lines; cut short, to the end; a public key is kept", async ({ expect }) => {
		const publicKey = `-----BEGIN PUBLIC KEY-----\n${KEY_BODY}\n-----END PUBLIC KEY-----`;
		const event = await storedAfter({
			message: "m",
			extra: { key: `loaded ${PRIVATE_KEY} from disk`, cut: `-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY_BODY}`, public: publicKey },
		});
		expect(event.extra).toEqual({
			key: "loaded -----BEGIN RSA PRIVATE KEY-----\n[Filtered]\n-----END RSA PRIVATE KEY----- from disk",
			cut: "-----BEGIN OPENSSH PRIVATE KEY-----\n[Filtered]",
			public: publicKey,
		});
	});

	it("a URL's password, its user and host kept; a URL without one as sent", async ({ expect }) => {
		const event = await storedAfter({
			message: "m",
			extra: { db: "postgres://app:s3cr%21t@db.internal:5432/shop", redis: "redis://:r3dis-pw@cache:6379", plain: "https://ann@shop.example.com/a:b" },
		});
		expect(event.extra).toEqual({ db: "postgres://app:[Filtered]@db.internal:5432/shop", redis: "redis://:[Filtered]@cache:6379", plain: "https://ann@shop.example.com/a:b" });
	});


	it("this service's own keys and tokens: the project's DSN in a dump of the environment, a session token in a breadcrumb; near misses kept", async ({ expect }) => {
		const owner = await ownerWithLogKey();
		const dsn = `http://${owner.rawKey}@127.0.0.1:8787/1`;
		const token = `svcs_${"a1B2c3".repeat(7)}Z`;
		const res = await ingest(owner.rawKey, {
			message: "m",
			breadcrumbs: [{ category: "auth", data: { note: `signed in with ${token}` } }],
			extra: {
				environ: { SENTRY_DSN: dsn, HOME: "/home/app" },
				short: `svc_${"a".repeat(42)}`,
				long: `svc_${"a".repeat(44)}`,
				inWord: `my_svc_${"a".repeat(43)}`,
			},
		});
		expect(res.status).toBe(200);
		await listIssues(owner.token, { project_name: owner.projectName });
		const [{ event }] = await storedEvents(owner.keyId);
		expect(event.breadcrumbs[0].data).toEqual({ note: "signed in with [Filtered]" });
		expect(event.extra).toEqual({
			environ: { SENTRY_DSN: "http://[Filtered]@127.0.0.1:8787/1", HOME: "/home/app" },
			short: `svc_${"a".repeat(42)}`,
			long: `svc_${"a".repeat(44)}`,
			inWord: `my_svc_${"a".repeat(43)}`,
		});
	});

	it("a URL's secret query parameters and a fragment's token, wherever a URL is a value: breadcrumbs, navigations, extra", async ({ expect }) => {
		const event = await storedAfter({
			message: "m",
			breadcrumbs: [
				{ category: "fetch", data: { url: "https://api.example.com/v1/me?token=tok-1&page=2", method: "GET" } },
				{ category: "navigation", data: { from: "/login?next=/cart", to: "/callback#access_token=tok-2&token_type=bearer&state=s1" } },
				{ category: "xhr", data: { url: "/search?q=shoes#results" } },
			],
			extra: { link: "https://shop.example.com/reset?user=ann&password_reset_key=tok-3", text: "see /help?token=tok-4 then", relative: "cart?token=tok-5" },
		});
		expect(event.breadcrumbs.map((b: Json) => b.data)).toEqual([
			{ url: "https://api.example.com/v1/me?token=[Filtered]&page=2", method: "GET" },
			{ from: "/login?next=/cart", to: "/callback#access_token=[Filtered]&token_type=[Filtered]&state=s1" },
			{ url: "/search?q=shoes#results" },
		]);
		// A URL inside a sentence, or one not from the root, is no URL value: text, kept but for secret values.
		expect(event.extra).toEqual({ link: "https://shop.example.com/reset?user=ann&password_reset_key=[Filtered]", text: "see /help?token=tok-4 then", relative: "cart?token=tok-5" });
	});
	it("in every place names are filtered, from a Sentry SDK, before anything is stored", async ({ expect }) => {
		const project = await sentryProject();
		const frame = { filename: "app.py", function: "charge", in_app: true, vars: { number: `'${CARD_DIGITS}'`, conn: "'mysql://shop:my-s3cret@db/shop'" } };
		const event = nodeEvent({
			platform: "python",
			exception: { values: [{ type: "CardError", value: "declined", stacktrace: { frames: [frame] } }] },
			request: {
				url: `https://ann:hunter2@shop.example.com/cards/${CARD_DIGITS}?card=${CARD_DIGITS}&page=2#top`,
				method: "POST",
				query_string: "card=4111+1111+1111+1111&page=2",
				data: { card: { number: CARD, holder: "Ann" }, note: `key ${PRIVATE_KEY}` },
			},
			breadcrumbs: [{ category: "http", data: { url: "https://api:tok-pw@payments.example/charge", body: `number=${CARD_DIGITS}` } }],
			extra: { last_card: CARD },
			contexts: { runtime: { name: "CPython", note: CARD }, payment: { card: CARD_DIGITS } },
		});
		expect((await sendEnvelope(project, eventEnvelope(event))).status).toBe(200);
		const inGrouper = await grouperStorageText(project.keyId);
		await issuesOf(project);
		const [stored] = await storedEvents(project.keyId);
		const got = stored.event as Json;

		expect(got.request).toMatchObject({
			url: "https://ann:[Filtered]@shop.example.com/cards/[Filtered]?card=[Filtered]&page=2#top",
			query_string: "card=[Filtered]&page=2",
			body: JSON.stringify({ card: { number: "[Filtered]", holder: "Ann" }, note: "key -----BEGIN RSA PRIVATE KEY-----\n[Filtered]\n-----END RSA PRIVATE KEY-----" }),
		});
		expect(got.breadcrumbs[0].data).toEqual({ url: "https://api:[Filtered]@payments.example/charge", body: "number=[Filtered]" });
		expect(got.extra).toEqual({ last_card: "[Filtered]" });
		expect(got.contexts.runtime).toEqual({ name: "CPython", note: "[Filtered]" });
		expect(got.custom_contexts.payment).toEqual({ card: "[Filtered]" });
		expect(got.exception.stacktrace.frames[0].vars).toEqual({ number: "'[Filtered]'", conn: "'mysql://shop:[Filtered]@db/shop'" });

		const rows = await env.DB.prepare("select * from log_events where key_id = ?").bind(project.keyId).all();
		for (const text of [inGrouper, JSON.stringify(rows.results)]) {
			expect(text).not.toMatch(/4111|hunter2|my-s3cret|tok-pw|MIIEvQ/);
		}
	});

	it.for([
		["a form body", "card=4111+1111+1111+1111&name=Ann", "card=[Filtered]&name=Ann"],
		["a form value with a card amid text", "note=paid%20with%204111%201111%201111%201111%20ok", "note=paid%20with%20[Filtered]%20ok"],
		["plain text", `charge failed for ${CARD}`, "charge failed for [Filtered]"],
		["JSON cut short", `{"card": "${CARD_DIGITS}"`, '{"card": "[Filtered]"'],
		// Nested deeper than a free-form value is kept: the body is kept as sent, its secrets filtered in the text.
		["JSON nested deep", `{"a":{"b":{"c":{"d":{"card":"${CARD_DIGITS}"}}}}}`, '{"a":{"b":{"c":{"d":{"card":"[Filtered]"}}}}}'],
	] as const)("in a request body sent as text: %s", async ([, body, stored], { expect }) => {
		const event = await storedAfter({ message: "m", request: { body } });
		expect(event.request.body).toBe(stored);
	});

	it("a body of half a million characters made to slow a scan down is stored, its secrets filtered", async ({ expect }) => {
		const body = `${CARD} ${"5 ".repeat(120_000)}//a:${"b".repeat(100_000)} ${"-----BEGIN ".repeat(10_000)}`;
		const event = await storedAfter({ message: "m", request: { body } });
		expect(event.request.body_truncated).toBe(true);
		expect(event.request.body).toMatch(/^\[Filtered\] 5 5 5 /);
	});
});
