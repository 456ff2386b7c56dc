// svc-local as a module: the server, the device client, and the pure helpers.
export { LocalServer, startServer, parseExchangeBody, parseHostHeader, SERVER_FILE } from "./server.js";
export { DeviceClient, parsePairingPayload, PayloadError, DeviceHttpError, CREDENTIAL_FILE } from "./device.js";
export { classifyAddress, classifyEndpoints, legacyBaseUrl, tailscaleHostname } from "./endpoints.js";
export { nextRefreshDelay, CodeRefresher, REFRESH_BEFORE_EXPIRY_MS, MIN_REFRESH_DELAY_MS } from "./refresh.js";
export { BOOTSTRAP_TTL_MS, TICKET_TTL_MS, PRESENCE_PERSIST_MS, DEVICE_ID_MAX, PLATFORMS, CLOSE, normalizePlatform } from "./pairing.js";
export { MODE_PORTS } from "./config.js";
export { OWNER_TOKEN_FILE, CLOUD_SESSION_FILE } from "./owner.js";
export { STORE_FILE } from "./store.js";
