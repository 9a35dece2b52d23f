import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/mve-orders.js', import.meta.url));

/** A long-running `mve-orders` command (dev, worker) as a child process, read as it runs. */
export interface CliChild {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout matches; fails with everything printed so far if the child exits or time runs out. */
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** Sends the signal and resolves with the exit code. */
  stop(signal: NodeJS.Signals, timeoutMs: number): Promise<number | null>;
  /**
   * With `ownGroup`: sends the signal to its whole process group, as a terminal's Ctrl-C does (or `kill -9 -<pgid>`),
   * and resolves with its exit code (null when a signal ended it).
   */
  signalGroup(signal: NodeJS.Signals, timeoutMs: number): Promise<number | null>;
}

/** `ownGroup`: the command leads a process group of its own, as a shell starts it. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv, options: { ownGroup?: boolean } = {}): CliChild {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.ownGroup ?? false,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const describe = () => `stdout:\n${stdout}\nstderr:\n${stderr}`;
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    async waitForOutput(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = stdout.match(pattern);
        if (match) return match;
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(
            `mve-orders ${args[0]} exited ${child.exitCode ?? child.signalCode} before printing ${pattern}\n${describe()}`,
          );
        if (Date.now() > deadline)
          throw new Error(`mve-orders ${args[0]} did not print ${pattern} within ${timeoutMs} ms\n${describe()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop(signal, timeoutMs) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    async signalGroup(signal, timeoutMs) {
      if (!options.ownGroup) throw new Error(`mve-orders ${args[0]} was not started in a process group of its own`);
      const signalGroup = (which: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, which);
        } catch {
          // the group has gone already
        }
      };
      if (child.exitCode === null && child.signalCode === null) signalGroup(signal);
      const timer = setTimeout(() => signalGroup('SIGKILL'), timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * `mve-orders dev` in a process group of its own, once it has printed its `ready:` line; one that does not within
 * `readyMs` is killed (its whole group) and the wait's error thrown.
 */
export async function startDevChild(args: string[], env: NodeJS.ProcessEnv, readyMs: number): Promise<CliChild> {
  const dev = spawnCli(['dev', ...args], env, { ownGroup: true });
  await dev.waitForOutput(/^ready: /m, readyMs).catch(async (error: unknown) => {
    await dev.signalGroup('SIGKILL', 10_000);
    throw error;
  });
  return dev;
}

/**
 * Removes a dev's folder after it stopped. A PostgreSQL that dev left behind (its stop ran past its time on a loaded
 * machine) is stopped by its watcher as dev exits, and may still write its WAL meanwhile: ENOTEMPTY is tried again.
 */
export function removeDevFolder(root: string): Promise<void> {
  return rm(root, { recursive: true, force: true, maxRetries: 30, retryDelay: 500 });
}
