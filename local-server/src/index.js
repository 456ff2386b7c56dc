// svc-local as a module: the server and the device client (see "As a module" in README.md).
export { LocalServer } from "./server.js";
export { startServer } from "./startServer.js";
export { DeviceClient, DeviceHttpError, PayloadError, parsePairingPayload } from "./device.js";
export { CLOSE } from "./closeCodes.js";
