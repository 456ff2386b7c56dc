// WebSocket close codes of the device connection, shared by the server and
// the device client (also listed in README.md). After REPAIRED or REVOKED the
// device must pair again; after the others it reconnects.
export const CLOSE = Object.freeze({
	/** The server is stopping, or LAN access was turned off for a remote socket. */
	SHUTDOWN: 1001,
	/** No hello message in time. */
	NO_HELLO: 4000,
	/** A new pairing of the same deviceId replaced the credential. */
	REPAIRED: 4001,
	/** The owner revoked the device. */
	REVOKED: 4003,
});
