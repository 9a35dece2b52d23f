/**
 * Runs one feature as the suite's Go runner does: the harness's own entry point in a process of its own,
 * given the server, a namespace and `<feature>:<task queue>` (a task queue per feature). The server is a
 * fresh one per feature (./servers.ts: the devserver or the real one), with a random namespace registered as
 * the Go runner's dev server gets one. The harness exits 0 when the feature passed and prints
 * "Feature <dir> failed with <error>" when it did not.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { PreparedSuite } from './prepare.js';
import type { StartFeatureServer } from './servers.js';
import type { FeatureEntry } from './suite.js';

export interface FeatureResult {
  feature: string;
  outcome: 'pass' | 'fail' | 'skip';
  durationMs: number;
  /** First line of the error (fail) or the reason (skip). */
  error?: string;
  /** RPCs the server answered UNIMPLEMENTED during the feature. */
  unimplemented?: Record<string, number>;
  /** The server's warnings (the real server's errors) during the feature. */
  serverWarnings?: string[];
  /** The harness's output (stdout and stderr, interleaved), for --verbose. */
  output?: string;
}

interface ChildOutcome {
  code: number | null;
  timedOut: boolean;
  output: string;
}

function runHarness(suite: PreparedSuite, args: string[], timeoutMs: number): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', 'tsconfig-paths/register', suite.main, ...args], {
      cwd: suite.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => (output += chunk.toString('utf8'));
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut, output });
    });
  });
}

/** The harness prints the error and then its stack, whose first line repeats a one-line error. */
function withoutRepeat(text: string): string {
  const half = (text.length - 1) / 2;
  return Number.isInteger(half) && text.slice(0, half) === text.slice(half + 1) ? text.slice(0, half) : text;
}

/** The harness's own one-line account of the failure, or the best line the output has. */
function firstErrorLine(feature: string, outcome: ChildOutcome, timeoutMs: number): string {
  if (outcome.timedOut) return `timed out after ${timeoutMs / 1000} s`;
  const prefix = `Feature ${feature} failed with `;
  const line = outcome.output.split('\n').find((l) => l.startsWith(prefix));
  if (line) return withoutRepeat(line.slice(prefix.length).trim());
  const lines = outcome.output
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.find((l) => /error/i.test(l)) ?? lines.at(-1) ?? `exit code ${outcome.code}`;
}

export async function runFeature(
  suite: PreparedSuite,
  feature: FeatureEntry,
  timeoutMs: number,
  startServer: StartFeatureServer,
): Promise<FeatureResult> {
  if (feature.skip) return { feature: feature.dir, outcome: 'skip', durationMs: 0, error: feature.skip };
  const namespace = `features-ns-${randomUUID()}`;
  const server = await startServer(namespace);
  const started = performance.now();
  try {
    const taskQueue = `features-${feature.dir}-${randomUUID()}`;
    const outcome = await runHarness(
      suite,
      ['--server', server.address, '--namespace', namespace, `${feature.dir}:${taskQueue}`],
      timeoutMs,
    );
    const durationMs = Math.round(performance.now() - started);
    const passed = outcome.code === 0 && !outcome.timedOut;
    const unimplemented = server.unimplementedCalls();
    const warnings = server.warnings();
    return {
      feature: feature.dir,
      outcome: passed ? 'pass' : 'fail',
      durationMs,
      ...(passed ? {} : { error: firstErrorLine(feature.dir, outcome, timeoutMs) }),
      ...(Object.keys(unimplemented).length ? { unimplemented } : {}),
      ...(warnings.length ? { serverWarnings: warnings } : {}),
      output: outcome.output,
    };
  } finally {
    await server.close();
  }
}
