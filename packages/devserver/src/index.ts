/**
 * The embedded Temporal-compatible development server: one process speaking Temporal's gRPC API
 * (WorkflowService, OperatorService search attributes, TestService time skipping) to the real SDK.
 * See README.md; its public face is this file and `@mve-orders/devserver/testing` (./testing.ts).
 */
export { startDevServer } from './server.js';
export type { DevServer, DevServerOptions } from './server.js';
export type { ExecutionStore, NamespaceRecord } from './store.js';
export type { LogLevel } from './log-level.js';
export type { Limits } from './engine/limits.js';
export { InMemoryStore } from './store.js';
export { PostgresStore } from './persistence/postgres-store.js';
export type { PostgresStoreOptions, LoadReport } from './persistence/postgres-store.js';
