/**
 * @svcapp/logger in Node (the package's `node` export condition): the same API as everywhere,
 * and every event's frames carry what @sentry/node sends for them, their module and lines of
 * source (frames.ts). Browsers and bundlers for them load the build without this file, so no
 * Node module is ever imported there.
 */
import { runtimeEnrichment } from "../client.js";
import { enrichFrames } from "./frames.js";

runtimeEnrichment.enrich = enrichFrames;

export * from "../index.js";
