import { createHash } from 'node:crypto';
import { Worker, type NativeConnection, type WorkflowBundle } from '@temporalio/worker';
import { workerDataConverter, type Keyring } from '../codec/index.js';
import type { OrderActivities } from '../workflows/order/activity-types.js';
import type { Environment } from '../workflows/order/activity-types.js';
import { orderTaskQueue } from '../config/temporal.js';
import { bundleInThread } from './bundle/in-thread.js';
import { DEFAULT_WORKFLOW_CACHE_SIZE } from './cache.js';
import { refuseForeignWorkflows } from './activity-origin.js';
import { logRefusals } from './refusal-log.js';
import type { LogLine } from '../infra/log.js';

export { WORKFLOWS_PATH } from './bundle/bundle-workflows.js';

const bundles = new Map<string, Promise<WorkflowBundle>>();

/** The workflow code, bundled once per process and keyring (a few seconds of webpack) and shared by every worker. */
export function orderWorkflowBundle(actionKeys: Keyring): Promise<WorkflowBundle> {
  const entries = actionKeys.exportEntries();
  const fingerprint = createHash('sha256').update(JSON.stringify(entries)).digest('hex');
  let bundle = bundles.get(fingerprint);
  if (!bundle) {
    bundle = bundleInThread(entries);
    bundles.set(fingerprint, bundle);
  }
  return bundle;
}

export interface OrderWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  /** The base task queue; orders of each environment run on their own queue (`<base>.<environment>`). */
  taskQueue: string;
  environment: Environment;
  activities: OrderActivities;
  /** MVE_CODEC_KEYS: the worker's payloads are encrypted with them (codec/data-converter.ts, `workerDataConverter`). */
  codecKeys: Keyring;
  /** MVE_ACTION_KEY: the keys whose signatures the order's update validators accept. */
  actionKeys: Keyring;
  /** Orders kept in memory between their tasks (MVE_WORKFLOW_CACHE_SIZE, worker/cache.ts); the default when left out. */
  maxCachedWorkflows?: number;
  /** Where an order refused for the requester's mistake is logged, one line each (./refusal-log.ts); left out: nowhere. */
  log?: LogLine;
  /** false: refusals are not logged (the caller tells them otherwise); default true. */
  logRefusals?: boolean;
  /**
   * How long work in flight gets once the worker is told to stop (MVE_SHUTDOWN_GRACE): activities still running at
   * four fifths of it are cancelled (their attempt fails, and Temporal gives it to another worker), leaving the rest
   * for them to report. Ending the process at the grace is its owner's (`mve-orders worker`). Left out: the SDK's
   * default (activities cancelled at once).
   */
  shutdownGraceMs?: number;
}

/** A worker for one environment's orders: the order workflow and its activities, with the encrypting codec. */
export async function createOrderWorker(options: OrderWorkerOptions): Promise<Worker> {
  const maxCachedWorkflows = options.maxCachedWorkflows ?? DEFAULT_WORKFLOW_CACHE_SIZE;
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: orderTaskQueue(options.taskQueue, options.environment),
    workflowBundle: await orderWorkflowBundle(options.actionKeys),
    activities: options.activities,
    dataConverter: workerDataConverter(options.codecKeys),
    maxCachedWorkflows,
    interceptors: {
      activity: [
        refuseForeignWorkflows(options.log),
        ...(options.log && options.logRefusals !== false ? [logRefusals(options.log)] : []),
      ],
    },
    ...(options.shutdownGraceMs === undefined ? {} : { shutdownGraceTime: Math.round(0.8 * options.shutdownGraceMs) }),
    // A cache smaller than the SDK's 40 concurrent workflow tasks caps them (which the SDK would do with a warning).
    ...(maxCachedWorkflows > 1 && maxCachedWorkflows < 40
      ? { maxConcurrentWorkflowTaskExecutions: maxCachedWorkflows }
      : {}),
  });
}
