/**
 * The `mve-orders dev` stack for bench:scale and bench:servers: an embedded PostgreSQL and `mve-orders dev` pointed
 * at it (the worker, the HTTP API and the API simulator in one process) on either Temporal dev can start: the
 * devserver, in dev's process, durable in that database (`--temporal embedded`), or the real server, `temporal server
 * start-dev` under dev, its state in SQLite in dev's data folder (`--temporal real`). Split, the devserver runs as
 * `mve-orders devserver` in a process of its own, so that its memory and the worker's can be told apart (the pair
 * then has one Node runtime more than dev alone).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from '../../infra/db/embedded.js';
import { TEMPORAL_PID_FILE } from '../../client/dev/real-temporal.js';
import type { DevState } from '../../client/dev/state.js';

const CLI = fileURLToPath(new URL('../../bin/mve-orders.js', import.meta.url));

export const STACK_TEMPORALS = ['embedded', 'real'] as const;
export type StackTemporal = (typeof STACK_TEMPORALS)[number];

/** `--temporal`'s value, checked. */
export function stackTemporal(value: string): StackTemporal {
  if ((STACK_TEMPORALS as readonly string[]).includes(value)) return value as StackTemporal;
  throw new Error(`--temporal must be one of ${STACK_TEMPORALS.join(', ')}, not ${value}`);
}

export interface ScaleStack {
  temporal: StackTemporal;
  postgres: EmbeddedPostgresServer;
  /** Only when split: in one process, the devserver is part of dev. */
  devserver: { pid: number; address: string } | undefined;
  /** The real Temporal server's own process (under dev), on the real server. */
  realServer: { pid: number } | undefined;
  dev: { pid: number; dataDir: string; state: DevState };
  stop(): Promise<void>;
}

export async function startScaleStack(options: {
  temporal: StackTemporal;
  split: boolean;
  workflowCacheSize?: number;
  log: (line: string) => void;
}): Promise<ScaleStack> {
  const root = path.join(tmpdir(), `mve-bench-scale-${process.pid}-${options.temporal}`);
  const postgres = await startEmbeddedPostgres({ dataDir: path.join(root, 'postgres'), ephemeral: true });
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const child of children.reverse()) await stopChild(child);
    await postgres.stop();
    await rm(root, { recursive: true, force: true });
  };
  try {
    let devserver: ScaleStack['devserver'];
    if (options.split) {
      // as dev runs it: idle histories in a scratch file
      const child = spawnCli(
        ['devserver', '--port', '0', '--database-url', postgres.url, '--history-spill-dir', root],
        process.env,
        options.log,
      );
      children.push(child);
      devserver = {
        pid: child.pid!,
        address: (await waitForLine(child, /export TEMPORAL_ADDRESS=(\S+)/, 'the devserver'))[1]!,
      };
    }
    const dataDir = path.join(root, 'dev');
    const devEnv = {
      ...process.env,
      MVE_DATA_DIR: dataDir,
      DATABASE_URL: postgres.url,
      // The figures are of orders up to the buy (as before the follow-up existed), and of many API calls per second.
      MVE_FOLLOW_PROVISIONING: 'false',
      MVE_RATE_LIMIT: '0',
      ...(devserver ? { TEMPORAL_ADDRESS: devserver.address } : {}),
      ...(options.workflowCacheSize === undefined
        ? {}
        : { MVE_WORKFLOW_CACHE_SIZE: String(options.workflowCacheSize) }),
    };
    const ports = ['--temporal-port', '0', '--temporal-ui-port', '0', '--sim-port', '0', '--http-port', '0'];
    // split, dev is given the devserver's address (TEMPORAL_ADDRESS) and starts no Temporal server
    const temporal = devserver ? [] : ['--temporal', options.temporal];
    const dev = spawnCli(['dev', ...temporal, ...ports], devEnv, options.log);
    children.push(dev);
    const state = await waitForDevState(dataDir, dev);
    const realServer =
      options.temporal === 'real'
        ? { pid: Number.parseInt(await readFile(path.join(dataDir, TEMPORAL_PID_FILE), 'utf8'), 10) }
        : undefined;
    return {
      temporal: options.temporal,
      postgres,
      devserver,
      realServer,
      dev: { pid: dev.pid!, dataDir, state },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function spawnCli(args: string[], env: NodeJS.ProcessEnv, log: (line: string) => void): ChildProcess {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  // Warnings and errors of the stack reach the bench's stderr: a failing worker explains a slow figure.
  child.stderr!.on('data', (chunk: Buffer) => log(`[${args[0]}] ${chunk.toString().trimEnd()}`));
  return child;
}

function waitForLine(child: ChildProcess, pattern: RegExp, what: string): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match) resolve(match);
    });
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before it was ready:\n${seen}`)));
  });
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
