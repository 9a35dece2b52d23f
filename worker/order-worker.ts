import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode, Worker, type NativeConnection, type WorkflowBundle } from '@temporalio/worker';
import webpack from 'webpack';
import type { Keyring } from '../codec/index.js';
import type { OrderActivities } from '../activities/order/types.js';
import type { Environment } from '../activities/order/types.js';
import { orderTaskQueue } from '../config/temporal.js';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

const bundles = new Map<string, Promise<WorkflowBundle>>();

/**
 * The workflow code, bundled once per process and keyring (a few seconds of webpack) and shared by every
 * worker. The action-signing keys are compiled into the bundle (workflows/order/action-keys.ts): the
 * validators need them synchronously, and they must never travel in history.
 */
export function orderWorkflowBundle(actionKeys: Keyring): Promise<WorkflowBundle> {
  const entries = actionKeys.exportEntries();
  const fingerprint = createHash('sha256').update(JSON.stringify(entries)).digest('hex');
  let bundle = bundles.get(fingerprint);
  if (!bundle) {
    bundle = bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      logger: quietBundlerLogger,
      webpackConfigHook: (config) => ({
        ...config,
        plugins: [...(config.plugins ?? []), new webpack.DefinePlugin({ __MVE_ACTION_KEYS__: JSON.stringify(entries) })],
      }),
    });
    bundles.set(fingerprint, bundle);
  }
  return bundle;
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};

export interface OrderWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  /** The base task queue; orders of each environment run on their own queue (`<base>.<environment>`). */
  taskQueue: string;
  environment: Environment;
  activities: OrderActivities;
  dataConverter: DataConverter;
  /** MVE_ACTION_KEY: the keys whose signatures the order's update validators accept. */
  actionKeys: Keyring;
}

/** A worker for one environment's orders: the order workflow and its activities, with the encrypting codec. */
export async function createOrderWorker(options: OrderWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: orderTaskQueue(options.taskQueue, options.environment),
    workflowBundle: await orderWorkflowBundle(options.actionKeys),
    activities: options.activities,
    dataConverter: options.dataConverter,
  });
}
