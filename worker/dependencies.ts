import { readFileSync } from 'node:fs';
import { createApiClient, loadApiConfig, Secret, type ApiClient, type ApiLogEntry } from '../activities/api/index.js';
import { createCatalogLookups } from '../activities/catalog/index.js';
import { connectDatabase, createRepository, type Repository, type Sql } from '../activities/db/index.js';
import { callbackPolicyFromEnv, createActivities, type CallbackPolicy } from '../activities/order/index.js';
import type { OrderActivities } from '../activities/order/types.js';
import { kindMapFromEnv, type KindMap } from '../domain/index.js';
import { loadApprovalPolicies, type PoliciesInForce } from '../workflows/approval/index.js';

export interface WorkerDependencies {
  environment: ApiClient['environment'];
  /** The approval policies this worker enforces (validated at start). */
  policies: PoliciesInForce;
  activities: OrderActivities;
  /** API calls and tokens this worker has spent, for the demo and the benchmarks. */
  apiClient: ApiClient;
  close(): Promise<void>;
}

export interface DependencyOptions {
  env: NodeJS.ProcessEnv;
  databaseUrl: string;
  /** One line per API exchange (never headers or bodies); default: nothing. */
  logApi?: (entry: ApiLogEntry) => void;
  /** Response timeout of the ticket-system callback. */
  callbackTimeoutMs?: number;
}

export interface EnvironmentActivityOptions {
  /** The API client of the one environment whose key this worker holds. */
  apiClient: ApiClient;
  repository: Repository;
  kindMap: KindMap;
  /** The approval policies the worker enforces: each new order reads its environment's from here. */
  policies: PoliciesInForce;
  /** Undefined: ticket-system callbacks are refused (never sent unsigned). */
  callbackSecret: Secret | undefined;
  /** Where callbacks may go: https, no internal address unless its network is allowed (MVE_CALLBACK_*). */
  callbackPolicy: CallbackPolicy;
  /** Response timeout of the ticket-system callback; default 10 s. */
  callbackTimeoutMs?: number;
}

/** The order activities of one environment: its API client, its catalog caches, the records, the callbacks. */
export function createEnvironmentActivities(options: EnvironmentActivityOptions): OrderActivities {
  const { apiClient } = options;
  return createActivities({
    clients: { [apiClient.environment]: apiClient },
    catalog: createCatalogLookups({ [apiClient.environment]: apiClient }),
    kindMap: options.kindMap,
    policies: options.policies,
    now: Date.now,
    repository: options.repository,
    callbackSecret: options.callbackSecret,
    callbackPolicy: options.callbackPolicy,
    timeoutMs: options.callbackTimeoutMs ?? 10_000,
  });
}

/**
 * Everything a worker's activities stand on, built once: the database, the API client (with its token
 * provider) of the environment this worker's key belongs to, the catalog caches and the callback signer.
 */
export function createWorkerDependencies(options: DependencyOptions): WorkerDependencies {
  const apiConfig = loadApiConfig(options.env);
  const apiClient = createApiClient({ config: apiConfig, ...(options.logApi ? { log: options.logApi } : {}) });
  const sql: Sql = connectDatabase(options.databaseUrl);
  const callbackSecret = options.env['MVE_CALLBACK_SECRET'];
  // Validated before anything starts: a worker with a broken policy file must not take orders.
  const policies = loadApprovalPolicies(options.env, (path) => readFileSync(path, 'utf8'));
  const activities = createEnvironmentActivities({
    policies,
    apiClient,
    repository: createRepository(sql),
    kindMap: kindMapFromEnv(options.env),
    callbackSecret: callbackSecret ? new Secret(callbackSecret) : undefined,
    callbackPolicy: callbackPolicyFromEnv(options.env),
    ...(options.callbackTimeoutMs !== undefined ? { callbackTimeoutMs: options.callbackTimeoutMs } : {}),
  });
  return {
    environment: apiConfig.environment,
    policies,
    activities,
    apiClient,
    async close() {
      apiClient.close();
      await sql.end({ timeout: 5 });
    },
  };
}
