/**
 * The `mve-orders dev` stack for bench:scale: an embedded PostgreSQL and `mve-orders dev` pointed at it (the worker,
 * the HTTP API and the API simulator in one process), with the real Temporal server dev runs under it (`temporal
 * server start-dev`, its state in SQLite in dev's data folder): the stack users run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from '../../tooling/dev/embedded-postgres.js';
import { TEMPORAL_PID_FILE } from '../../tooling/dev/real-temporal.js';
import type { DevState } from '../../client/cli/dev-state.js';

const CLI = fileURLToPath(new URL('../../bin/mve-orders.js', import.meta.url));

export interface ScaleStack {
  postgres: EmbeddedPostgresServer;
  /** The Temporal server's own process (under dev). */
  temporal: { pid: number };
  dev: { pid: number; dataDir: string; state: DevState };
  stop(): Promise<void>;
}

export async function startScaleStack(options: {
  workflowCacheSize?: number;
  log: (line: string) => void;
}): Promise<ScaleStack> {
  const root = path.join(tmpdir(), `mve-bench-scale-${process.pid}`);
  const postgres = await startEmbeddedPostgres({ dataDir: path.join(root, 'postgres'), ephemeral: true });
  let dev: ChildProcess | undefined;
  const stop = async () => {
    if (dev) await stopChild(dev);
    await postgres.stop();
    await rm(root, { recursive: true, force: true });
  };
  try {
    const dataDir = path.join(root, 'dev');
    const devEnv = {
      ...process.env,
      MVE_DATA_DIR: dataDir,
      DATABASE_URL: postgres.url,
      // The figures are of orders up to the buy (as before the follow-up existed), and of many API calls per second.
      MVE_FOLLOW_PROVISIONING: 'false',
      MVE_RATE_LIMIT: '0',
      ...(options.workflowCacheSize === undefined
        ? {}
        : { MVE_WORKFLOW_CACHE_SIZE: String(options.workflowCacheSize) }),
    };
    const ports = ['--temporal-port', '0', '--temporal-ui-port', '0', '--sim-port', '0', '--http-port', '0'];
    dev = spawnCli(['dev', ...ports], devEnv, options.log);
    const state = await waitForDevState(dataDir, dev);
    const temporalPid = Number.parseInt(await readFile(path.join(dataDir, TEMPORAL_PID_FILE), 'utf8'), 10);
    return { postgres, temporal: { pid: temporalPid }, dev: { pid: dev.pid!, dataDir, state }, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function spawnCli(args: string[], env: NodeJS.ProcessEnv, log: (line: string) => void): ChildProcess {
  // Its start-up summary on stdout is not needed: dev.json says the same.
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  // Warnings and errors of the stack reach the bench's stderr: a failing worker explains a slow figure.
  child.stderr.on('data', (chunk: Buffer) => log(`[${args[0]}] ${chunk.toString().trimEnd()}`));
  return child;
}

async function waitForDevState(dataDir: string, dev: ChildProcess): Promise<DevState> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (dev.exitCode !== null) throw new Error(`mve-orders dev exited (${dev.exitCode}) before it was ready`);
    const text = await readFile(path.join(dataDir, 'dev.json'), 'utf8').catch(() => undefined);
    if (text) return JSON.parse(text) as DevState;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('mve-orders dev did not write dev.json within 2 minutes');
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const forced = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(forced);
}
