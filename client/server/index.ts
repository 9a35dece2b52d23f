/** Public face of client/server: the process that serves the HTTP API and the web console (`serve`, `dev`). */
export { startApiServer, CODEC_CORS_VARIABLE } from './start.js';
export type { RunningApi, StartApiOptions } from './start.js';
export { shutdownTimingFromEnv } from './graceful-close.js';
export type { ShutdownTiming } from './graceful-close.js';
