import { DefaultLogger, Runtime } from '@temporalio/worker';
import { runWorker, type RunningWorker } from '../../worker/index.js';
import type { DevSecrets } from './secrets.js';
import { STOP_STEPS, type DevStops } from './stops.js';

export interface DevWorkerOptions {
  /** engine-env.ts, with the console's URL for the messages to approvers. */
  env: NodeJS.ProcessEnv;
  temporalAddress: string;
  databaseUrl: string;
  secrets: DevSecrets;
  log: (line: string) => void;
  stops: DevStops;
}

/** The order worker for the ordering API's environment; it lets running tasks finish when dev stops it. */
export async function startDevWorker(options: DevWorkerOptions): Promise<RunningWorker> {
  const { temporalAddress, log } = options;
  const worker = await runWorker({
    env: options.env,
    temporalAddress,
    databaseUrl: options.databaseUrl,
    keyring: options.secrets.keyring,
    actionKeys: options.secrets.actionKeys,
    log: (line) => log(`[worker] ${line}`),
    // Each order event that needs a person is told once, from the records (./attention.ts), refusals included.
    logRefusals: false,
  }).catch((error: unknown) => {
    throw new Error(`the worker could not start (Temporal at ${temporalAddress}): ${(error as Error).message}`);
  });
  options.stops.add(STOP_STEPS.worker, () => worker.shutdown());
  return worker;
}

/** The SDK's core runtime logs every worker state change at INFO; dev shows warnings and errors only. */
export function installQuietRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // a runtime is already installed in this process: keep it
  }
}
