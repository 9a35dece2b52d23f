/**
 * One `mve-orders` command (`worker`, `serve`, `migrate`) in a process of its own, as an operator runs it:
 * configured by environment variables only. It runs under the same supervisor as the embedded PostgreSQL (a shell
 * that stops it when this process ends, however it ends, SIGKILL too), so a test that dies leaves no orphan.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { superviseServer } from '../../tooling/postgres/index.js';
import { withTimeout } from '../orders/fixtures/restart-env.js';

const execFileAsync = promisify(execFile);
const CLI = fileURLToPath(new URL('../../bin/mve-orders.js', import.meta.url));
/**
 * Node's own options for every command started here, space-separated: `TOPOLOGY_NODE_ARGS='--cpu-prof
 * --cpu-prof-dir=/tmp/prof'` writes a CPU profile of each worker and server as it ends (NODE_OPTIONS refuses --cpu-prof).
 */
const NODE_ARGS = (process.env['TOPOLOGY_NODE_ARGS'] ?? '').split(/\s+/).filter(Boolean);

export interface CliProcess {
  /** The command's own process id (not its supervisor's). */
  pid: number;
  /** The first match of the ready pattern in what it printed. */
  ready: RegExpExecArray;
  /** Settles when it has ended, saying how: `exit code 0`, `signal SIGKILL`. */
  exited: Promise<string>;
  alive(): boolean;
  /** SIGKILL: no shutdown, no goodbye; resolves once it is gone. */
  kill(): Promise<void>;
  /** SIGINT (what the command takes as "stop"), then SIGKILL if it is still there after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  /** The last few thousand characters it printed. */
  recent(): string;
}

export interface CliProcessOptions {
  args: string[];
  env: NodeJS.ProcessEnv;
  /** What it prints once it serves (`HTTP API listening on (\S+)`). */
  readyPattern: RegExp;
  /** How it is named in errors and the log: `worker 2`. */
  name: string;
  readyTimeoutMs?: number;
  /** Each line it prints. */
  log?: (line: string) => void;
}

export async function startCliProcess(options: CliProcessOptions): Promise<CliProcess> {
  let recent = '';
  let partial = '';
  let ready: ((match: RegExpExecArray) => void) | undefined;
  const readyMatch = new Promise<RegExpExecArray>((resolve) => (ready = resolve));
  const supervised = await superviseServer(process.execPath, [...NODE_ARGS, CLI, ...options.args], {
    name: `${options.name.replace(/\s+/g, '-')}-supervisor`,
    env: options.env,
    output: (chunk) => {
      recent = (recent + chunk).slice(-4_000);
      const match = options.readyPattern.exec(recent);
      if (match) ready?.(match);
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) options.log?.(`[${options.name}] ${line}`);
    },
  });
  let ended: string | undefined;
  void supervised.exited.then((how) => (ended = how));
  const kill = async () => {
    try {
      process.kill(supervised.pid, 'SIGKILL');
    } catch {
      // it has just ended on its own
    }
    await supervised.exited;
  };
  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        void kill().then(() =>
          reject(new Error(`${options.name} was not ready within ${timeoutMs / 1000} s:\n${recent.trim()}`)),
        ),
      timeoutMs,
    );
    void readyMatch.then((found) => {
      clearTimeout(timer);
      resolve(found);
    });
    void supervised.exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} ended (${how}) before it was ready:\n${recent.trim()}`));
    });
  });
  return {
    pid: supervised.pid,
    ready: match,
    exited: supervised.exited,
    alive: () => ended === undefined,
    kill,
    async stop(graceMs = 15_000) {
      if (ended !== undefined) return;
      const stopping = supervised.stop();
      if (
        (await withTimeout(
          stopping.then(() => true),
          graceMs,
        )) === undefined
      )
        await kill();
    },
    recent: () => recent,
  };
}

/** Runs a command to its end (`migrate`), failing with what it printed unless it exits 0; resolves to its output. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  try {
    const { stdout } = await execFileAsync(process.execPath, [CLI, ...args], { env, timeout: 60_000 });
    return stdout;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`mve-orders ${args[0]} failed (${(error as Error).message.split('\n')[0]}):\n${stdout}${stderr}`);
  }
}
