/** Public face of tooling/dev: `mve-orders dev` (the whole engine on one machine) and the state file it leaves. */
export { startDev } from './start.js';
export { DEFAULT_HTTP_PORT, DEFAULT_SIMULATOR_PORT, DEFAULT_TEMPORAL_PORT, DEFAULT_TEMPORAL_UI_PORT } from './ports.js';
export { DEV_USERS } from './seeded-users.js';
export type { DevUser } from './users.js';
export type { DevOptions, DevReport, RunningDev } from './types.js';
export { describeDev } from './describe.js';
export { resetDev } from './reset.js';
export { catchDatabaseClientErrors } from './database-errors.js';
export { devDataDir, readDevState } from './state.js';
export type { DevState, DevStateLookup } from './state.js';
