/**
 * Public face of tooling/dev: `mve-orders dev`, the whole engine on one machine. The state file it leaves, and the
 * users it seeds, are the CLI's to read (client/cli/dev-state.ts, client/cli/dev-users.ts).
 */
export { startDev } from './start.js';
export { DEFAULT_HTTP_PORT, DEFAULT_SIMULATOR_PORT, DEFAULT_TEMPORAL_PORT, DEFAULT_TEMPORAL_UI_PORT } from './ports.js';
export type { DevUser } from './users.js';
export type { DevOptions, DevReport, RunningDev } from './types.js';
export { describeDev } from './describe.js';
export { resetDev } from './reset.js';
export { catchDatabaseClientErrors } from './database-errors.js';
