import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode, Worker, type NativeConnection, type WorkflowBundle } from '@temporalio/worker';
import type { OrderActivities } from '../activities/order/types.js';
import type { Environment } from '../activities/order/types.js';
import { orderTaskQueue } from '../config/temporal.js';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

let bundled: Promise<WorkflowBundle> | undefined;

/** The workflow code, bundled once per process (a few seconds of webpack) and shared by every worker. */
export function orderWorkflowBundle(): Promise<WorkflowBundle> {
  bundled ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietBundlerLogger });
  return bundled;
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
}

/** A worker for one environment's orders: the order workflow and its activities, with the encrypting codec. */
export async function createOrderWorker(options: OrderWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: orderTaskQueue(options.taskQueue, options.environment),
    workflowBundle: await orderWorkflowBundle(),
    activities: options.activities,
    dataConverter: options.dataConverter,
  });
}
