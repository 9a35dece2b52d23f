import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Keyring } from '../codec/index.js';
import { encryptingDataConverter } from '../codec/index.js';
import { temporalOrderRequests } from '../activities/order/index.js';
import { ConfigError } from '../config/env.js';
import { connectionOptions, loadTemporalConfig, orderTaskQueue, type TemporalConfig } from '../config/temporal.js';
import { createWorkerDependencies, type WorkerDependencies } from './dependencies.js';
import { workflowCacheSize } from './cache.js';
import { createOrderWorker } from './order-worker.js';
import { ensureOrderSearchAttributes } from './search-attributes.js';
import { FOLLOW_PROVISIONING_VARIABLE } from './provisioning-plan.js';
import { describeDuration } from '../domain/lifecycle/index.js';
import { SHUTDOWN_GRACE_VARIABLE, shutdownGraceFromEnv } from '../infra/shutdown-grace.js';
import type { ProvisioningPlan } from '../domain/lifecycle/index.js';
import type { LogLine } from '../infra/log.js';
import type { ApiLogEntry } from '../infra/ordering-api/index.js';

export interface RunWorkerOptions {
  env: NodeJS.ProcessEnv;
  /** Overrides TEMPORAL_ADDRESS (the embedded server's address in `mve-orders dev`). */
  temporalAddress?: string;
  databaseUrl: string;
  keyring: Keyring;
  /** MVE_ACTION_KEY: compiled into the workflow bundle so the validators accept the API's signed actions. */
  actionKeys: Keyring;
  log: LogLine;
  /**
   * Whether an order refused for the requester's mistake is a line of `log` (./refusal-log.ts); default true.
   * `mve-orders dev` tells each order event that needs a person from the records instead, once.
   */
  logRefusals?: boolean;
  /** One line per exchange with the ordering API (worker/logging.ts `logApiCalls`); left out: none. */
  logApi?: (entry: ApiLogEntry) => void;
}

export interface RunningWorker {
  worker: Worker;
  dependencies: WorkerDependencies;
  taskQueue: string;
  /** Resolves when the worker has stopped and its connections are closed. */
  done: Promise<void>;
  /** Stops polling, lets running tasks finish (activities are cancelled at four fifths of the grace), closes all. */
  shutdown(): Promise<void>;
  /** MVE_SHUTDOWN_GRACE: how long running tasks get once the worker is told to stop. */
  shutdownGraceMs: number;
}

/** Connects to Temporal, builds the dependencies once and runs the order worker until shut down. */
export async function runWorker(options: RunWorkerOptions): Promise<RunningWorker> {
  const temporal = loadTemporalConfig(options.env);
  const address = options.temporalAddress ?? temporal.address;
  if (!address) throw new ConfigError('TEMPORAL_ADDRESS is not set (host:port of the Temporal frontend)');
  const maxCachedWorkflows = workflowCacheSize(options.env);
  const shutdownGraceMs = shutdownGraceFromEnv(options.env);
  const dataConverter = encryptingDataConverter(options.keyring);
  // The activities read an order run's request from its start input through this client (connected on first use),
  // decrypted with the clients' data converter, which refuses an input the codec did not encrypt.
  const requestsConnection = Connection.lazy(connectionOptions(temporal, address));
  const orderRequests = temporalOrderRequests(
    new Client({ connection: requestsConnection, namespace: temporal.namespace, dataConverter }),
  );
  let dependencies: WorkerDependencies;
  try {
    dependencies = createWorkerDependencies({
      env: options.env,
      databaseUrl: options.databaseUrl,
      orderRequests,
      actionKeys: options.actionKeys,
      ...(options.logApi ? { logApi: options.logApi } : {}),
    });
  } catch (error) {
    await requestsConnection.close();
    throw error;
  }
  let started: { connection: NativeConnection; worker: Worker };
  try {
    await registerSearchAttributes(temporal, address, options.log);
    started = await connectOrderWorker(
      temporal,
      address,
      dependencies,
      options.keyring,
      options.actionKeys,
      maxCachedWorkflows,
      shutdownGraceMs,
      options.log,
      options.logRefusals ?? true,
    );
  } catch (error) {
    await dependencies.close();
    await requestsConnection.close();
    throw error;
  }
  const { connection, worker } = started;
  const taskQueue = orderTaskQueue(temporal.taskQueue, dependencies.environment);
  options.log(`worker polling ${taskQueue} on ${address} (namespace ${temporal.namespace})`);
  options.log(`approval policy ${dependencies.policies.version} from ${dependencies.policies.source}`);
  options.log(describePlan(dependencies.provisioning));
  options.log(`workflow cache: ${maxCachedWorkflows} orders (MVE_WORKFLOW_CACHE_SIZE)`);
  options.log(
    `on SIGTERM, running tasks get ${describeDuration(shutdownGraceMs)} to finish (${SHUTDOWN_GRACE_VARIABLE})`,
  );
  const done = worker.run().finally(async () => {
    await dependencies.close();
    await connection.close();
    await requestsConnection.close();
  });
  return {
    worker,
    dependencies,
    taskQueue,
    done,
    shutdownGraceMs,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

/** Registers the order's search attributes; where that is not allowed, says what to register by hand. */
async function registerSearchAttributes(temporal: TemporalConfig, address: string, log: LogLine): Promise<void> {
  const client = await Connection.connect(connectionOptions(temporal, address));
  try {
    await ensureOrderSearchAttributes(client, temporal.namespace);
  } catch (error) {
    log(
      `could not register the search attributes (${(error as Error).message}); register OrderStatus, TicketId, Environment (Keyword) and MonthlyRate (Double) on namespace ${temporal.namespace} yourself`,
    );
  } finally {
    await client.close();
  }
}

async function connectOrderWorker(
  temporal: TemporalConfig,
  address: string,
  dependencies: WorkerDependencies,
  codecKeys: Keyring,
  actionKeys: Keyring,
  maxCachedWorkflows: number,
  shutdownGraceMs: number,
  log: LogLine,
  logRefusals: boolean,
): Promise<{ connection: NativeConnection; worker: Worker }> {
  const connection = await NativeConnection.connect(connectionOptions(temporal, address));
  try {
    const worker = await createOrderWorker({
      connection,
      namespace: temporal.namespace,
      taskQueue: temporal.taskQueue,
      environment: dependencies.environment,
      activities: dependencies.activities,
      codecKeys,
      actionKeys,
      maxCachedWorkflows,
      shutdownGraceMs,
      log,
      logRefusals,
    });
    return { connection, worker };
  } catch (error) {
    await connection.close();
    throw error;
  }
}

function describePlan(plan: ProvisioningPlan | undefined): string {
  if (!plan) return `bought products are not followed (${FOLLOW_PROVISIONING_VARIABLE}=false): orders end at BOUGHT`;
  const [first, most, reminder, deadline] = [plan.firstPollMs, plan.maxPollMs, plan.reminderMs, plan.deadlineMs].map(
    describeDuration,
  );
  return `bought products are followed until LIVE: read every ${first} to ${most}, ops reminded every ${reminder}, PROVISIONING_STALLED after ${deadline}`;
}
