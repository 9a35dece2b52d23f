/**
 * `npm run bench:cli`: how long the `mve-orders` command takes to start and answer, run as users run it
 * (`node bin/mve-orders.js`, which runs the compiled CLI of dist/ while that build is current):
 *
 *   - `mve-orders --help`: the list of commands;
 *   - `mve-orders status <order> --as alice`: one order read through the HTTP API of a real `mve-orders dev` the
 *     bench starts (bench/scale/stack.ts: embedded PostgreSQL, Temporal's own server, the simulator, the worker and
 *     the API; about 10 s), after it has submitted the order and waited for it to come to rest;
 *   - `mve-orders status <order>` with no engine to talk to: it must fail at once, saying what to start (exit 2).
 *
 * Each is run `--runs` times, in rounds that take each command in turn (after one round not counted, which warms the
 * file cache), beside `node -e 0`, the start of Node itself, as the baseline: medians, p90 and each median as a
 * multiple of the baseline's. Targets (issue 41): `--help` median under 0.3 s, `status` (both) under 0.5 s; exit 1
 * when one is missed. When dist/ is not current (no build, or a source changed since), it is built first (`npm run
 * build`), as `npm ci` leaves it; `--no-build` measures the launcher as it finds it (an edited checkout then runs the
 * sources through tsx, seconds slower: `from` says which ran).
 *
 *   npm run bench:cli                       15 runs of each
 *   npm run bench:cli -- --runs 40
 *   npm run bench:cli -- --npx              also `npx mve-orders --help` (npm's own start added; no target)
 *   npm run -s bench:cli -- --json          the figures as JSON on stdout (progress on stderr)
 *
 * bench/cli.md says what the figures mean and logs runs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { compiledIsCurrent } from '../bin/build-stamp.js';
import { FINAL_STATES, type OrderState } from '../domain/lifecycle/index.js';
import { startScaleStack, type ScaleStack } from './scale/stack.js';
import { median, percentile } from './stats.js';

const USAGE = `usage: npm run bench:cli [-- --runs N] [--npx] [--no-build] [--json]

Times \`mve-orders --help\` and \`mve-orders status <order>\` (against a real dev it starts, and with no engine)
against the targets --help < 0.3 s and status < 0.5 s (medians); exit 1 when one is missed. See bench/cli.md.
`;

const PROJECT = fileURLToPath(new URL('../', import.meta.url));
const CLI = path.join(PROJECT, 'bin/mve-orders.js');
/** The order the bench submits and reads: a requester's own order, auto-approved below the policy's line. */
const REQUEST = path.join(PROJECT, 'examples/k01-key-only-router.json');
const TICKET = 'CHG-1001';
const TARGETS = { help: 300, status: 500 } as const;

interface Options {
  runs: number;
  npx: boolean;
  build: boolean;
  json: boolean;
}

/** One command to time: how to run it, what says it did its work, and its target. */
interface Timed {
  name: string;
  /** As a user types it. */
  label: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** Why the run does not count (it failed), or undefined when it did what it is for. */
  check(run: Run): string | undefined;
  targetMs?: number;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

interface Figure {
  name: string;
  command: string;
  medianMs: number;
  p90Ms: number;
  /** The median over the baseline's (`node -e 0`). */
  ratio: number;
  targetMs: number | null;
  met: boolean | null;
}

interface CliStartFigures {
  runs: number;
  /** What the launcher ran: the compiled CLI of dist/, or the sources through tsx. */
  from: 'compiled' | 'sources';
  node: string;
  cpus: number;
  loadAverage: { before: number; after: number };
  figures: Figure[];
  /** Every target met. */
  met: boolean;
}

const progress = (line: string) => process.stderr.write(`${line}\n`);

function options(): Options | undefined {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '15' },
      npx: { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return undefined;
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 3)
    throw new Error(`--runs must be a whole number of at least 3, not ${values.runs}`);
  return { runs, npx: values.npx, build: !values['no-build'], json: values.json };
}

/** Runs `command` to its end; `ms` from the spawn to the exit of the process and the close of its output. */
function run(command: string, args: string[], env?: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd: PROJECT, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
  });
}

/** The environment of a CLI run: no API or token of the caller's own, the data folder given. */
function cliEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, MVE_DATA_DIR: dataDir };
  delete env.MVE_API_URL;
  delete env.MVE_TOKEN;
  return env;
}

/** dist/ as `npm ci` leaves it: built, unless `--no-build`. What the launcher will run. */
function prepareBuild(build: boolean): 'compiled' | 'sources' {
  const project = pathToFileURL(PROJECT);
  if (build && !compiledIsCurrent(project)) {
    progress('dist/ is not current: npm run build …');
    const started = performance.now();
    const built = spawnSync(process.execPath, ['--import', 'tsx', path.join(PROJECT, 'scripts/build.ts')], {
      cwd: PROJECT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    progress(
      built.status === 0
        ? `built in ${((performance.now() - started) / 1000).toFixed(1)} s`
        : 'the build failed (above): the launcher runs the sources',
    );
  }
  return compiledIsCurrent(project) ? 'compiled' : 'sources';
}

/** A dev of the bench's own, with the order submitted and at rest (waiting for a person, or ended). */
async function startDev(): Promise<ScaleStack> {
  progress('starting mve-orders dev (embedded PostgreSQL, Temporal, simulator, worker, API) …');
  const started = performance.now();
  const lines: string[] = [];
  const stack = await startScaleStack({ log: (line) => lines.push(line) }).catch((error: unknown) => {
    progress(lines.slice(-20).join('\n'));
    throw error;
  });
  try {
    const env = cliEnv(stack.dev.dataDir);
    const submitted = await run(process.execPath, [CLI, 'submit', REQUEST, '--as', 'alice'], env);
    if (submitted.code !== 0) throw new Error(`submit failed (exit ${submitted.code}): ${submitted.stderr}`);
    const state = await waitForRest(env);
    progress(`dev ready, ${TICKET} ${state}, in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return stack;
  } catch (error) {
    await stack.stop();
    throw error;
  }
}

/** Polls the order until it waits for a person or has ended: the worker then leaves the machine to the bench. */
async function waitForRest(env: NodeJS.ProcessEnv): Promise<OrderState> {
  const deadline = Date.now() + 120_000;
  let state: OrderState | undefined;
  while (Date.now() < deadline) {
    const status = await run(process.execPath, [CLI, 'status', TICKET, '--as', 'alice', '--json'], env);
    if (status.code === 0) state = (JSON.parse(status.stdout) as { state: OrderState }).state;
    if (state === 'AWAITING_APPROVAL' || (state && FINAL_STATES.has(state))) return state;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${TICKET} did not come to rest within 2 minutes (last: ${state ?? 'no answer'})`);
}

function commands(devDataDir: string, noDevDataDir: string, npx: boolean): Timed[] {
  const timed: Timed[] = [
    {
      name: 'help',
      label: 'mve-orders --help',
      command: process.execPath,
      args: [CLI, '--help'],
      check: (r) => (r.code === 0 && r.stdout.startsWith('Usage: mve-orders') ? undefined : `exit ${r.code}`),
      targetMs: TARGETS.help,
    },
    {
      name: 'status',
      label: `mve-orders status ${TICKET} --as alice`,
      command: process.execPath,
      args: [CLI, 'status', TICKET, '--as', 'alice'],
      env: cliEnv(devDataDir),
      check: (r) => (r.code === 0 && r.stdout.includes(TICKET) ? undefined : `exit ${r.code}: ${r.stderr.trim()}`),
      targetMs: TARGETS.status,
    },
    {
      name: 'status-no-engine',
      label: `mve-orders status ${TICKET} (no engine: exit 2)`,
      command: process.execPath,
      args: [CLI, 'status', TICKET, '--as', 'alice'],
      env: cliEnv(noDevDataDir),
      check: (r) => (r.code === 2 && r.stderr.includes('no API to talk to') ? undefined : `exit ${r.code}`),
      targetMs: TARGETS.status,
    },
  ];
  if (npx) {
    timed.push({
      name: 'npx-help',
      label: 'npx mve-orders --help',
      command: 'npx',
      args: ['--offline', 'mve-orders', '--help'],
      check: (r) => (r.code === 0 && r.stdout.startsWith('Usage: mve-orders') ? undefined : `exit ${r.code}`),
    });
  }
  return timed;
}

/** `runs` rounds (and one not counted first), each running the baseline and every command once, in turn. */
async function measure(timed: Timed[], runs: number): Promise<{ baseline: number[]; times: number[][] }> {
  const baseline: number[] = [];
  const times = timed.map(() => [] as number[]);
  for (let round = 0; round <= runs; round++) {
    const node = await run(process.execPath, ['-e', '0']);
    if (round > 0) baseline.push(node.ms);
    for (const [index, command] of timed.entries()) {
      const result = await run(command.command, command.args, command.env);
      const failed = command.check(result);
      if (failed) throw new Error(`${command.label} did not do its work (${failed})`);
      if (round > 0) times[index].push(result.ms);
    }
    if (round > 0 && round % 5 === 0) progress(`${round} of ${runs} rounds`);
  }
  return { baseline, times };
}

function figure(name: string, command: string, values: number[], baselineMedian: number, targetMs?: number): Figure {
  const sorted = [...values].sort((a, b) => a - b);
  const medianMs = Math.round(median(values));
  return {
    name,
    command,
    medianMs,
    p90Ms: Math.round(percentile(sorted, 90)),
    ratio: Math.round((medianMs / baselineMedian) * 10) / 10,
    targetMs: targetMs ?? null,
    met: targetMs === undefined ? null : medianMs < targetMs,
  };
}

function printFigures(result: CliStartFigures): void {
  const lines = [
    `mve-orders start-up: ${result.runs} runs each, the ${result.from === 'compiled' ? 'compiled CLI (dist/ current)' : 'sources through tsx (dist/ not current)'}; ` +
      `node ${result.node}, ${result.cpus} CPUs, load average ${result.loadAverage.before} before, ${result.loadAverage.after} after`,
    '',
    `${'command'.padEnd(48)}${'median'.padStart(9)}${'p90'.padStart(9)}${'× node'.padStart(9)}   target`,
  ];
  for (const f of result.figures) {
    const target = f.targetMs === null ? '' : `< ${f.targetMs} ms  ${f.met ? 'met' : 'MISSED'}`;
    lines.push(
      `${f.command.padEnd(48)}${`${f.medianMs} ms`.padStart(9)}${`${f.p90Ms} ms`.padStart(9)}${`${f.ratio.toFixed(1)}×`.padStart(9)}   ${target}`,
    );
  }
  lines.push('', result.met ? 'every target met' : 'a target was missed');
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(): Promise<number> {
  const chosen = options();
  if (!chosen) {
    process.stdout.write(USAGE);
    return 0;
  }
  const from = prepareBuild(chosen.build);
  const stack = await startDev();
  const noDev = await mkdtemp(path.join(tmpdir(), 'mve-bench-cli-no-dev-'));
  try {
    const before = loadavg()[0];
    const timed = commands(stack.dev.dataDir, noDev, chosen.npx);
    progress(`timing ${timed.length} commands and node -e 0, ${chosen.runs} rounds …`);
    const { baseline, times } = await measure(timed, chosen.runs);
    const base = median(baseline);
    const figures = [
      figure('baseline', 'node -e 0 (the baseline)', baseline, base),
      ...timed.map((command, index) => figure(command.name, command.label, times[index], base, command.targetMs)),
    ];
    const result: CliStartFigures = {
      runs: chosen.runs,
      from,
      node: process.version,
      cpus: cpus().length,
      loadAverage: { before: round1(before), after: round1(loadavg()[0]) },
      figures,
      met: figures.every((f) => f.met !== false),
    };
    if (chosen.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else printFigures(result);
    return result.met ? 0 : 1;
  } finally {
    await stack.stop();
    await rm(noDev, { recursive: true, force: true });
  }
}

const round1 = (value: number) => Math.round(value * 10) / 10;

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`bench:cli: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
}
