/**
 * Temporal for workflow tests: the devserver package's test environment (the devserver with time skipping, or
 * TEMPORAL_ADDRESS's server), see `@mve-orders/devserver/testing`.
 */
export { installQuietRuntime, startTemporalTestEnv } from '@mve-orders/devserver/testing';
export type { SearchAttributeKind, TemporalTestEnv } from '@mve-orders/devserver/testing';
