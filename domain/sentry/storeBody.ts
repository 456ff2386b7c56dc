/**
 * A store request's body in the legacy encoding (docs/api.md#sentry-sdks): the raven clients
 * (raven-node, raven-ruby, and others of their time) send the event's JSON zlib-compressed and
 * base64-encoded, with no `Content-Encoding` to say so. As Sentry reads a store body: one that
 * starts with `{` is JSON; base64 is decoded, and its bytes are JSON when they start with `{`, zlib
 * data to inflate otherwise.
 */
const OPEN_BRACE = 0x7b;
/** Base64 as the clients write it: one line, padded. */
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The body as it is (JSON), or the zlib data to inflate into the JSON. */
export type StoreBody = { json: Uint8Array } | { zlib: Uint8Array };

/** The form `body` is in: a body that is not base64 is taken as JSON, to be read (or refused) as such. */
export function storeBodyOf(body: Uint8Array): StoreBody {
	if (body.length === 0 || body[0] === OPEN_BRACE) return { json: body };
	const text = new TextDecoder().decode(body).trimEnd();
	if (!BASE64.test(text) || text.length % 4 !== 0) return { json: body };
	const bytes = Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
	return bytes[0] === OPEN_BRACE ? { json: bytes } : { zlib: bytes };
}
