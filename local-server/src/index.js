// svc-local as a module: the server and the device client (see "As a module" in README.md).
export { LocalServer, startServer } from "./server.js";
export { DeviceClient, DeviceHttpError, PayloadError, parsePairingPayload } from "./device.js";
export { CLOSE } from "./closeCodes.js";
