import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TASK_QUEUE, type OrderEngine } from './orders.js';

const BIN = fileURLToPath(new URL('../../bin/mve-orders.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `mve-orders` binary as a user would, optionally feeding `stdin`. */
export function runCli(
  args: string[],
  options: { stdin?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

/**
 * What `mve-orders serve` and `worker` read to run on the test engine's Temporal and PostgreSQL, with its keys (and
 * never a local data folder); `provider: true` adds the engine's simulator as the staging ordering API, for a worker.
 */
export function engineEnv(engine: OrderEngine, { provider = false } = {}): NodeJS.ProcessEnv {
  return {
    TEMPORAL_ADDRESS: engine.temporal.address,
    TEMPORAL_NAMESPACE: engine.temporal.namespace,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    DATABASE_URL: engine.db.url,
    MVE_CODEC_KEYS: engine.codecKeys,
    MVE_ACTION_KEY: engine.actionKeysText,
    MVE_KIND_MAP: '',
    MVE_DATA_DIR: '/nonexistent-mve-data',
    ...(provider
      ? {
          MVE_API_BASE_URL: engine.sim.baseUrl,
          MVE_AUTH_URL: engine.sim.authUrl,
          MVE_ENVIRONMENT: 'staging',
          MVE_CLIENT_ID: engine.sim.clientId,
          MVE_CLIENT_SECRET: engine.sim.clientSecret,
        }
      : {}),
  };
}
