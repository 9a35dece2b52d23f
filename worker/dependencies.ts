import { readFileSync } from 'node:fs';
import {
  createApiClient,
  loadApiConfig,
  Secret,
  type ApiClient,
  type ApiLogEntry,
} from '../infra/ordering-api/index.js';
import { createCatalogLookups } from '../infra/catalog/index.js';
import { connectDatabase, createRepository, type Repository, type Sql } from '../infra/db/index.js';
import {
  APPROVER_WEBHOOK_URL_VARIABLE,
  callbackPolicyFromEnv,
  CONSOLE_URL_VARIABLE,
  createActivities,
  type CallbackPolicy,
  type OrderRequestReader,
} from '../activities/order/index.js';
import { checkCallbackUrl } from '../activities/order/callback-policy.js';
import type { OrderActivities } from '../workflows/order/activity-types.js';
import type { Keyring } from '../codec/index.js';
import type { KindMap } from '../domain/index.js';
import { kindMapFromEnv } from '../infra/catalog/index.js';
import { loadApprovalPolicies, type PoliciesInForce } from '../domain/approval/index.js';
import type { ProvisioningPlan } from '../domain/lifecycle/index.js';
import { provisioningPlanFromEnv } from './provisioning-plan.js';

export interface WorkerDependencies {
  environment: ApiClient['environment'];
  /** The approval policies this worker enforces (validated at start). */
  policies: PoliciesInForce;
  /** How it follows bought products until they are live; undefined: it does not. */
  provisioning: ProvisioningPlan | undefined;
  activities: OrderActivities;
  /** API calls and tokens this worker has spent, for the demo and the benchmarks. */
  apiClient: ApiClient;
  close(): Promise<void>;
}

export interface DependencyOptions {
  env: NodeJS.ProcessEnv;
  databaseUrl: string;
  /** Reads an order run's request from Temporal (`temporalOrderRequests` on a client with the worker's data converter). */
  orderRequests: OrderRequestReader;
  /** MVE_ACTION_KEY: each run's admission checks tickets' fingerprints and carried seals with it. */
  actionKeys: Keyring;
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
  /** Where approvers are told of orders waiting for them (MVE_APPROVER_WEBHOOK_URL); undefined: nobody is told. */
  approverWebhookUrl?: string;
  /** The console's base URL (MVE_CONSOLE_URL), for the link to the order page in approver messages. */
  consoleUrl?: string;
  /**
   * Reads an order run's request from its start input (`temporalOrderRequests` on a client with the worker's
   * Temporal address and data converter): the buy and the journal get it by reference, not in their inputs.
   */
  orderRequests: OrderRequestReader;
  /** MVE_ACTION_KEY: each run's admission checks tickets' fingerprints and carried seals with it. */
  actionKeys: Keyring;
  /** How bought products are followed until they are live (MVE_FOLLOW_PROVISIONING…); undefined: orders end at BOUGHT. */
  provisioning?: ProvisioningPlan;
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
    approverWebhookUrl: options.approverWebhookUrl,
    consoleUrl: options.consoleUrl,
    orderRequests: options.orderRequests,
    actionKeys: options.actionKeys,
    ...(options.provisioning ? { provisioning: options.provisioning } : {}),
  });
}

/**
 * MVE_APPROVER_WEBHOOK_URL and MVE_CONSOLE_URL, checked when the worker starts: the webhook must be a URL the
 * callback policy allows, and messages to it are signed, so MVE_CALLBACK_SECRET must be set with it.
 */
export function approverNotificationsFromEnv(
  env: NodeJS.ProcessEnv,
  callbackPolicy: CallbackPolicy,
): { approverWebhookUrl?: string; consoleUrl?: string } {
  const webhook = env[APPROVER_WEBHOOK_URL_VARIABLE]?.trim() || undefined;
  const consoleUrl = env[CONSOLE_URL_VARIABLE]?.trim() || undefined;
  if (consoleUrl !== undefined && !URL.canParse(consoleUrl)) {
    throw new Error(`${CONSOLE_URL_VARIABLE}: "${consoleUrl}" is not a URL (e.g. https://mve.example.com)`);
  }
  if (webhook !== undefined) {
    if (!URL.canParse(webhook)) throw new Error(`${APPROVER_WEBHOOK_URL_VARIABLE}: not a URL`);
    try {
      checkCallbackUrl(callbackPolicy, new URL(webhook));
    } catch (error) {
      throw new Error(`${APPROVER_WEBHOOK_URL_VARIABLE}: ${(error as Error).message}`);
    }
    if (!env['MVE_CALLBACK_SECRET']) {
      throw new Error(
        `${APPROVER_WEBHOOK_URL_VARIABLE} is set but MVE_CALLBACK_SECRET is not: approver messages are signed with it and never sent unsigned`,
      );
    }
  }
  return { ...(webhook ? { approverWebhookUrl: webhook } : {}), ...(consoleUrl ? { consoleUrl } : {}) };
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
  const callbackPolicy = callbackPolicyFromEnv(options.env);
  const approverNotifications = approverNotificationsFromEnv(options.env, callbackPolicy);
  const provisioning = provisioningPlanFromEnv(options.env);
  const activities = createEnvironmentActivities({
    ...approverNotifications,
    policies,
    apiClient,
    orderRequests: options.orderRequests,
    actionKeys: options.actionKeys,
    repository: createRepository(sql),
    kindMap: kindMapFromEnv(options.env),
    callbackSecret: callbackSecret ? new Secret(callbackSecret) : undefined,
    callbackPolicy,
    ...(provisioning ? { provisioning } : {}),
    ...(options.callbackTimeoutMs !== undefined ? { callbackTimeoutMs: options.callbackTimeoutMs } : {}),
  });
  return {
    environment: apiConfig.environment,
    policies,
    provisioning,
    activities,
    apiClient,
    async close() {
      apiClient.close();
      await sql.end({ timeout: 5 });
    },
  };
}
