/**
 * The `mve-orders dev` stack for bench:scale: an embedded PostgreSQL and `mve-orders dev` pointed at it (the worker,
 * the HTTP API and the API simulator in one process), with the real Temporal server dev runs under it (`temporal
 * server start-dev`, its state in SQLite in dev's data folder): the stack users run. Or, with `temporal: 'cluster'`,
 * dev on a Temporal cluster shaped like production (../cluster.ts: its processes and a PostgreSQL of their own),
 * through TEMPORAL_ADDRESS as a deployment points at its Temporal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from '../../tooling/dev/embedded-postgres.js';
import { TEMPORAL_DB_FILE, TEMPORAL_PID_FILE } from '../../tooling/dev/real-temporal.js';
import type { DevState } from '../../client/cli/dev-state.js';
import { startBenchCluster, type BenchCluster, type TemporalProcess } from '../cluster.js';
import type { TemporalKind } from '../temporal-choice.js';

const CLI = fileURLToPath(new URL('../../bin/mve-orders.js', import.meta.url));

export interface ScaleStack {
  postgres: EmbeddedPostgresServer;
  temporal: {
    kind: TemporalKind;
    /** Temporal's own processes: start-dev's (under dev), or each of the cluster's. */
    processes: Array<Pick<TemporalProcess, 'name' | 'pid'>>;
    /** start-dev's SQLite file (its WAL beside it). */
    sqliteFile?: string;
    /** The cluster, its PostgreSQL and databases. */
    cluster?: BenchCluster;
  };
  dev: { pid: number; dataDir: string; state: DevState };
  stop(): Promise<void>;
}

export async function startScaleStack(options: {
  /** Default start-dev. */
  temporal?: TemporalKind;
  workflowCacheSize?: number;
  log: (line: string) => void;
}): Promise<ScaleStack> {
  const root = path.join(tmpdir(), `mve-bench-scale-${process.pid}`);
  const postgres = await startEmbeddedPostgres({ dataDir: path.join(root, 'postgres'), ephemeral: true });
  let dev: ChildProcess | undefined;
  let cluster: BenchCluster | undefined;
  const stop = async () => {
    if (dev) await stopChild(dev);
    await cluster?.stop();
    await postgres.stop();
    await rm(root, { recursive: true, force: true });
  };
  try {
    if (options.temporal === 'cluster') cluster = await startBenchCluster({ namespace: 'default', log: options.log });
    const dataDir = path.join(root, 'dev');
    const devEnv = {
      ...process.env,
      ...(cluster ? { TEMPORAL_ADDRESS: cluster.address, TEMPORAL_NAMESPACE: 'default' } : {}),
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
    const temporal: ScaleStack['temporal'] = cluster
      ? { kind: 'cluster', processes: cluster.processes(), cluster }
      : {
          kind: 'start-dev',
          processes: [{ name: 'temporal server start-dev', pid: await pidIn(path.join(dataDir, TEMPORAL_PID_FILE)) }],
          sqliteFile: path.join(dataDir, TEMPORAL_DB_FILE),
        };
    return { postgres, temporal, dev: { pid: dev.pid!, dataDir, state }, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function pidIn(file: string): Promise<number> {
  return Number.parseInt(await readFile(file, 'utf8'), 10);
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
