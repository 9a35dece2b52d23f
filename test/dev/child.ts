import { spawn, type ChildProcess } from 'node:child_process';
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
}

export function spawnCli(args: string[], env: NodeJS.ProcessEnv): CliChild {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
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
  };
}
