/**
 * The `mve-orders dev` stack for bench:scale, as separate processes so that their memory can be told apart:
 * an embedded PostgreSQL, `mve-orders devserver` (durable in that database, as dev runs it) and `mve-orders
 * dev` pointed at both (the worker, the HTTP API and the API simulator). Dev runs the devserver in its own
 * process; apart, the sum has one Node runtime more than dev alone, so it is an upper bound of dev's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from '../../activities/db/embedded.js';
import type { DevState } from '../../client/dev/state.js';

const CLI = fileURLToPath(new URL('../../bin/mve-orders.js', import.meta.url));

export interface ScaleStack {
  postgres: EmbeddedPostgresServer;
  devserver: { pid: number; address: string };
  dev: { pid: number; dataDir: string; state: DevState };
  stop(): Promise<void>;
}

export async function startScaleStack(options: { workflowCacheSize?: number; log: (line: string) => void }): Promise<ScaleStack> {
  const root = path.join(tmpdir(), `mve-bench-scale-${process.pid}`);
  const postgres = await startEmbeddedPostgres({ dataDir: path.join(root, 'postgres'), ephemeral: true });
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const child of children.reverse()) await stopChild(child);
    await postgres.stop();
    await rm(root, { recursive: true, force: true });
  };
  try {
    const devserver = spawnCli(['devserver', '--port', '0', '--database-url', postgres.url], process.env, options.log);
    children.push(devserver);
    const address = (await waitForLine(devserver, /export TEMPORAL_ADDRESS=(\S+)/, 'the devserver'))[1]!;
    const dataDir = path.join(root, 'dev');
    const devEnv = {
      ...process.env,
      MVE_DATA_DIR: dataDir,
      DATABASE_URL: postgres.url,
      TEMPORAL_ADDRESS: address,
      ...(options.workflowCacheSize === undefined ? {} : { MVE_WORKFLOW_CACHE_SIZE: String(options.workflowCacheSize) }),
    };
    const dev = spawnCli(['dev', '--sim-port', '0', '--http-port', '0'], devEnv, options.log);
    children.push(dev);
    const state = await waitForDevState(dataDir, dev);
    return { postgres, devserver: { pid: devserver.pid!, address }, dev: { pid: dev.pid!, dataDir, state }, stop };
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
