/**
 * An order worker of the engine in a child process (test/orders/fixtures/worker-process.ts), so that a test can kill
 * it for real: with `dieAfter` it kills itself right after a buy intent is in Postgres, before the request leaves.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DieAfter } from '../orders/fixtures/worker-activities.js';
import { simCredentials, TASK_QUEUE, type OrderEngine } from './orders.js';

const WORKER_PROCESS = fileURLToPath(new URL('../orders/fixtures/worker-process.ts', import.meta.url));

/** Starts the worker and resolves once it polls; its stderr is the test's. */
export async function startWorkerProcess(engine: OrderEngine, dieAfter?: DieAfter): Promise<ChildProcess> {
  const config = {
    ...simCredentials(engine.sim),
    temporalAddress: engine.temporal.address,
    namespace: engine.temporal.namespace,
    taskQueue: TASK_QUEUE,
    databaseUrl: engine.db.url,
    codecKeys: engine.codecKeys,
    actionKeys: engine.actionKeysText,
    ...(engine.provisioning ? { provisioning: engine.provisioning } : {}),
    ...(dieAfter ? { dieAfter } : {}),
  };
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER_PROCESS], {
    env: { ...process.env, WORKER_CONFIG: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code, signal) => reject(new Error(`the worker process exited early (${code ?? signal})`)));
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('worker ready') && resolve());
  });
  return child;
}
