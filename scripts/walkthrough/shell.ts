/**
 * Commands as a user's terminal runs them for the walk-through: without the project's settings or npm's, each in a
 * process group of its own (so a timeout ends all of it), its output collected; a failure is a StepFailure.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

/** A README command's patience. */
export const COMMAND_MS = 180_000;

/** What a step says on its line, and what it printed (shown with --verbose). */
export interface StepResult {
  note?: string;
  output?: string;
}

/** A step that did not work: what ran and everything it printed. */
export class StepFailure extends Error {
  constructor(
    message: string,
    readonly output = '',
  ) {
    super(message);
  }
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

const NPM_SETTINGS_KEPT = [
  'npm_config_cache',
  'npm_config_registry',
  'npm_config_userconfig',
  'npm_config_globalconfig',
];

/** What the user's shell would have: this process's environment without the project's settings and npm's. */
export function newTerminalEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    // Where npm finds its cache, registry and configuration stays; the rest `npm run` sets (its flags, such as
    // -s, which would silence npm ci's errors; the package's fields; this checkout as the prefix) does not.
    const fromNpmRun = /^npm_/i.test(name) && !NPM_SETTINGS_KEPT.includes(name.toLowerCase());
    if (/^(MVE_|TEMPORAL_)/.test(name) || fromNpmRun || ['DATABASE_URL', 'INIT_CWD'].includes(name)) continue;
    env[name] = value;
  }
  // `npm run` puts this checkout's node_modules/.bin on PATH; the clone must manage without it.
  env['PATH'] = (process.env['PATH'] ?? '')
    .split(path.delimiter)
    .filter((dir) => !dir.includes(`${path.sep}node_modules${path.sep}`) && !dir.endsWith('node-gyp-bin'))
    .join(path.delimiter);
  return env;
}

export const ENV = newTerminalEnv();

/** Runs a command in a process group of its own (so a timeout ends all of it) and collects stdout and stderr. */
export function run(command: string, args: string[], cwd: string, timeoutMs: number, env = ENV): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => {
      output += `\n[walkthrough: no end after ${timeoutMs / 1000} s; killed]\n`;
      killGroup(child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group has ended already
  }
}

/** A shell command line as a user types it, in the clone; a non-zero exit fails the step. */
export async function shell(line: string, cwd: string, timeoutMs = COMMAND_MS): Promise<string> {
  const done = await run('bash', ['-c', line], cwd, timeoutMs);
  if (done.code !== 0) throw new StepFailure(`\`${line}\` exited ${done.code ?? done.signal}`, done.output);
  return done.output;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StepFailure(`${what} within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
