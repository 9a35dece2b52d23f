/**
 * `npm run walkthrough`: what a newcomer does with the README, command by command, on a fresh clone of this
 * checkout's HEAD (uncommitted changes are not in it), and a failure as soon as any of it stops working.
 *
 * In a temporary folder: `git clone`, `npm ci` (from the npm cache where it can), `npm start` in the background
 * until its `ready:` line, then every ```bash block of the README in order, as written (the one saying
 * `npm ci && npm start` is what the two steps before did), the commands the ready line suggests, a check that
 * every order those placed is bought, `npm run demo`, `--help` of the CLI (which must list every command of the
 * README's table) and of each command the README uses, Ctrl-C to `npm start` (dev stops in order and exits 0, its
 * ports free, no process of the clone left), and `npx mve-orders dev --reset` (the data folder and what dev kept elsewhere gone).
 *
 * A README block runs under bash with `set -eo pipefail`, and curl fails on an HTTP error status (it runs with
 * `--fail-with-body`): a refused request stops the block, naming its README line. The commands run with
 * none of this shell's MVE_*, TEMPORAL_*, DATABASE_URL or the variables `npm run` sets, as in a new terminal.
 *
 *   npm run walkthrough [-- --verbose --keep]
 *
 * Prints one line per step (seconds, ok or failed); on the first failure, the step's command and output (and the
 * end of `npm start`'s), then stops dev, resets and removes the clone. --verbose prints each step's output too;
 * --keep leaves the clone in place. Needs git, jq and curl. Exit 0 when every step passed, 1 when one failed, 2
 * when git, jq, curl or npm is missing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: flags } = parseArgs({
  options: { verbose: { type: 'boolean', default: false }, keep: { type: 'boolean', default: false } },
});

/** Generous: a cold initdb and the workflow bundle on a machine that is running the test suites too. */
const READY_MS = 300_000;
const COMMAND_MS = 180_000;
const NPM_CI_MS = 600_000;
const STOP_MS = 120_000;
const LIVE_MS = 120_000;
const DEV_TAIL_LINES = 60;
const FAILED_ENDS = [
  'REJECTED',
  'EXPIRED',
  'CANCELLED',
  'FAILED',
  'BUY_UNCERTAIN',
  'PROVISIONING_FAILED',
  'PROVISIONING_STALLED',
];

/** A step that did not work: what ran and everything it printed. */
class StepFailure extends Error {
  constructor(
    message: string,
    readonly output = '',
  ) {
    super(message);
  }
}

interface Finished {
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
function newTerminalEnv(): NodeJS.ProcessEnv {
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

const ENV = newTerminalEnv();

/** Runs a command in a process group of its own (so a timeout ends all of it) and collects stdout and stderr. */
function run(command: string, args: string[], cwd: string, timeoutMs: number, env = ENV): Promise<Finished> {
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

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group has ended already
  }
}

/** A shell command line as a user types it, in the clone; a non-zero exit fails the step. */
async function shell(line: string, cwd: string, timeoutMs = COMMAND_MS): Promise<string> {
  const done = await run('bash', ['-c', line], cwd, timeoutMs);
  if (done.code !== 0) throw new StepFailure(`\`${line}\` exited ${done.code ?? done.signal}`, done.output);
  return done.output;
}

// ---- the README

interface BashBlock {
  /** README line of the block's first command. */
  firstLine: number;
  lines: string[];
  /** The first line of the paragraph before the fence, which says what the block is for. */
  lead: string;
}

/** Every ```bash block of the README, in order. */
function bashBlocks(readme: string): BashBlock[] {
  const lines = readme.split('\n');
  const blocks: BashBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (lines[index].trim() !== '```bash') continue;
    const end = lines.findIndex((line, at) => at > index && line.trim() === '```');
    if (end === -1) throw new StepFailure(`README.md line ${index + 1}: a \`\`\`bash block that never ends`);
    blocks.push({ firstLine: index + 2, lines: lines.slice(index + 1, end), lead: paragraphBefore(lines, index) });
    index = end;
  }
  return blocks;
}

/** The first line of the paragraph just before line `index`. */
function paragraphBefore(lines: string[], index: number): string {
  let at = index - 1;
  while (at >= 0 && lines[at].trim() === '') at--;
  while (at > 0 && lines[at - 1].trim() !== '') at--;
  return at >= 0 ? lines[at].trim() : '';
}

/** The commands a README table's first column names (`approve` / `reject <order> …` names two). */
function commandTable(readme: string, heading: string): string[] {
  const section = readme.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  if (!section) throw new StepFailure(`README.md has no "## ${heading}" section`);
  const names: string[] = [];
  for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
    const firstCell = row.split('|')[1] ?? '';
    for (const span of firstCell.matchAll(/`([a-z][a-z-]*)/g)) names.push(span[1]);
  }
  if (names.length === 0) throw new StepFailure(`README.md's "## ${heading}" table names no command`);
  return names;
}

function blockLabel(block: BashBlock): string {
  const last = block.firstLine + block.lines.length - 1;
  const about = block.lead.length > 40 ? `${block.lead.slice(0, 40).trimEnd()}…` : block.lead;
  return `README lines ${block.firstLine}-${last} (${about})`;
}

/**
 * A folder whose `curl` is the real one with `--fail-with-body`, to put first on PATH: an HTTP error status fails
 * the command (a README line that got a 4xx goes no further), and its answer is still printed.
 */
async function failingCurl(root: string): Promise<string> {
  const real = spawnSync('bash', ['-c', 'command -v curl'], { env: ENV, encoding: 'utf8' }).stdout.trim();
  const dir = path.join(root, 'bin');
  await mkdir(dir);
  await writeFile(path.join(dir, 'curl'), `#!/bin/sh\nexec ${JSON.stringify(real)} --fail-with-body "$@"\n`, {
    mode: 0o755,
  });
  return dir;
}

/** Runs a README block as written, stopping at its first failing command and naming that command's line. */
async function runBlock(block: BashBlock, cwd: string, curlDir: string): Promise<string> {
  const preamble = [
    'set -eo pipefail',
    `trap 'echo >&2; echo "walkthrough: README.md line $((LINENO + ${block.firstLine - 3})) failed (exit $?): $BASH_COMMAND" >&2' ERR`,
  ];
  const script = path.join(cwd, '..', `readme-${block.firstLine}.sh`);
  await writeFile(script, [...preamble, ...block.lines, ''].join('\n'));
  const env = { ...ENV, PATH: `${curlDir}${path.delimiter}${ENV['PATH'] ?? ''}` };
  const done = await run('bash', [script], cwd, COMMAND_MS, env);
  if (done.code !== 0) {
    const source = block.lines.map((line, at) => `  ${String(block.firstLine + at).padStart(4)}  ${line}`).join('\n');
    throw new StepFailure(`the README block exited ${done.code ?? done.signal}:\n${source}`, done.output);
  }
  return done.output;
}

// ---- npm start in the background

interface DevState {
  pid: number;
  temporal: { address: string; uiUrl?: string };
  databaseUrl: string;
  api: { simulatorUrl?: string };
  http: { url: string };
  users: Array<{ id: string; roles: string[]; token: string }>;
}

/** `npm start` as a terminal runs it: the leader of its own process group, which Ctrl-C signals whole. */
class NpmStart {
  private output = '';
  private readonly child;
  /** How npm ended: its exit code, or the signal that ended it. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** When every process that holds its output (dev included) has ended. */
  readonly closed: Promise<void>;

  constructor(cwd: string) {
    this.child = spawn('npm', ['start'], { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => (this.output += chunk));
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.output += chunk));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    this.closed = new Promise((resolve) => this.child.once('close', () => resolve()));
  }

  printed(): string {
    return this.output;
  }

  tail(): string {
    return this.output.split('\n').slice(-DEV_TAIL_LINES).join('\n');
  }

  running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async waitForReady(): Promise<string> {
    const deadline = Date.now() + READY_MS;
    for (;;) {
      const ready = /^ready: .*$/m.exec(this.output);
      if (ready) return ready[0];
      if (!this.running()) throw new StepFailure('npm start ended before its ready: line', this.output);
      if (Date.now() > deadline)
        throw new StepFailure(`npm start printed no ready: line within ${READY_MS / 1000} s`, this.output);
      await sleep(200);
    }
  }

  /** Ctrl-C: SIGINT to the whole foreground group. */
  interrupt(): void {
    killGroup(this.child.pid, 'SIGINT');
  }

  kill(): void {
    killGroup(this.child.pid, 'SIGKILL');
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
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

/** The ports dev listens on, as its state file says (the README reads its API URL from there too). */
function devPorts(state: DevState): Array<{ what: string; port: number }> {
  const portOf = (address: string) => Number(new URL(address.includes('://') ? address : `x://${address}`).port);
  const ports = [
    { what: 'HTTP API', port: portOf(state.http.url) },
    { what: 'Temporal', port: portOf(state.temporal.address) },
    { what: 'PostgreSQL', port: portOf(state.databaseUrl) },
  ];
  if (state.api.simulatorUrl) ports.push({ what: 'simulator', port: portOf(state.api.simulatorUrl) });
  if (state.temporal.uiUrl) ports.push({ what: 'Temporal Web UI', port: portOf(state.temporal.uiUrl) });
  return ports;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Processes whose command line or working folder is under one of `places`. */
function processesUnder(places: string[]): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      const inside = (place: string) => args.includes(place) || cwd === place || cwd.startsWith(`${place}/`);
      if (places.some(inside)) found.push(`${entry} (in ${cwd}): ${args}`);
    } catch {
      // ended meanwhile, or a kernel thread
    }
  }
  return found;
}

// ---- the steps

let failed = false;

/** What a step says on its line, and what it printed (shown with --verbose). */
interface StepResult {
  note?: string;
  output?: string;
}

/** Runs one step and prints its line; a failure prints what ran and its output, and ends the walk-through. */
async function step(name: string, action: () => StepResult | Promise<StepResult>, dev?: NpmStart): Promise<void> {
  const started = Date.now();
  const line = (outcome: string) =>
    process.stdout.write(
      `${name.padEnd(64)} ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s  ${outcome}\n`,
    );
  try {
    const { note, output } = await action();
    line(note ? `ok  ${note}` : 'ok');
    if (flags.verbose && output?.trim()) process.stdout.write(indent(output));
  } catch (error) {
    line('failed');
    failed = true;
    const failure = error instanceof StepFailure ? error : new StepFailure(String(error));
    process.stdout.write(`\n${failure.message}\n`);
    if (failure.output) process.stdout.write(`--- its output\n${failure.output.trimEnd()}\n`);
    if (dev) process.stdout.write(`--- the last lines of npm start\n${dev.tail().trimEnd()}\n`);
    throw failure;
  }
}

function indent(text: string): string {
  return `${text
    .trimEnd()
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n')}\n`;
}

async function main(): Promise<number> {
  const missing = ['git', 'jq', 'curl', 'npm'].filter(
    (program) => spawnSync('bash', ['-c', `command -v ${program}`], { env: ENV }).status !== 0,
  );
  if (missing.length > 0) {
    process.stderr.write(
      `walkthrough: ${missing.join(', ')} not found on PATH; the README's commands need them (Debian: apt-get install ${missing.join(' ')})\n`,
    );
    return 2;
  }
  const checkout = fileURLToPath(new URL('..', import.meta.url));
  const root = await mkdtemp(path.join(tmpdir(), 'mve-walkthrough-'));
  const clone = path.join(root, 'mve-orders');
  const walk: Walk = { checkout, root, clone, dataDir: path.join(clone, '.data') };
  const walkStarted = Date.now();
  try {
    const readme = await cloneAndRead(walk);
    const dev = await installAndStart(walk);
    await followReadme(walk, dev, readme);
    await helpPages(clone, readme);
    await stopAndReset(walk, dev);
    process.stdout.write(`walkthrough: every step passed in ${((Date.now() - walkStarted) / 1000).toFixed(0)} s\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof StepFailure)) throw error;
    return 1;
  } finally {
    await cleanUp(walk.dev, clone, root, failed);
  }
}

/** Where the walk-through happens, and what the steps learn on the way (dev once started, its state once ready). */
interface Walk {
  checkout: string;
  root: string;
  clone: string;
  dataDir: string;
  dev?: NpmStart;
  /** dev.json, once dev is ready. */
  state?: DevState;
  /** The embedded cluster's folder, as dev printed it, when it is outside the data folder. */
  clusterDir?: string;
}

/** What the README holds for the walk: its bash blocks, the one that says `npm ci && npm start`, the CLI table. */
interface Readme {
  blocks: BashBlock[];
  setup: BashBlock;
  tableCommands: string[];
}

async function cloneAndRead(walk: Walk): Promise<Readme> {
  const { checkout, clone, root } = walk;
  let text = '';
  await step('git clone of HEAD', async () => {
    const head = (await shell('git rev-parse --short HEAD', checkout)).trim();
    const dirty = (await shell('git status --porcelain --untracked-files=no', checkout)).trim() !== '';
    await shell(`git clone --quiet ${JSON.stringify(checkout)} ${JSON.stringify(clone)}`, root);
    text = readFileSync(path.join(clone, 'README.md'), 'utf8');
    return { note: `${head}${dirty ? ' (uncommitted changes of the checkout are not in it)' : ''}` };
  });
  let readme: Readme | undefined;
  await step('README says `npm ci && npm start`', () => {
    const blocks = bashBlocks(text);
    const tableCommands = commandTable(text, 'Command line');
    const setup = blocks.find((block) => block.lines.some((line) => /^npm ci && npm start\b/.test(line.trim())));
    if (!setup) throw new StepFailure('no ```bash block of README.md has the line `npm ci && npm start`');
    readme = { blocks, setup, tableCommands };
    return { note: `lines ${setup.firstLine}-${setup.firstLine + setup.lines.length - 1}` };
  });
  return readme!;
}

/** `npm ci`, then `npm start` in the background until ready: dev, and its ready line. */
async function installAndStart(walk: Walk): Promise<{ started: NpmStart; readyLine: string }> {
  const { clone, dataDir } = walk;
  await step('npm ci', async () => {
    const done = await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], clone, NPM_CI_MS);
    if (done.code !== 0) throw new StepFailure(`npm ci exited ${done.code ?? done.signal}`, done.output);
    const added = /added \d+ packages[^\n]*/.exec(done.output)?.[0] ?? 'done';
    return { note: added, output: done.output };
  });

  const started = (walk.dev = new NpmStart(clone));
  let readyLine = '';
  await step(
    'npm start (in the background, until ready:)',
    async () => {
      readyLine = await started.waitForReady();
      const statePath = path.join(dataDir, 'dev.json');
      if (!existsSync(statePath)) throw new StepFailure(`ready, but ${statePath} is missing`, started.printed());
      const state = (walk.state = JSON.parse(readFileSync(statePath, 'utf8')) as DevState);
      const shown = /\(embedded; data in ([^)]+)\)/.exec(started.printed())?.[1];
      if (shown) walk.clusterDir = path.resolve(clone, shown);
      const temporal = /^ {2}Temporal +\S+ \(temporal server start-dev: (Server [^,]+)/m.exec(started.printed())?.[1];
      return { note: `${state.http.url}, Temporal: ${temporal ?? '?'}`, output: started.printed() };
    },
    started,
  );
  return { started, readyLine };
}

/** Every README block but the set-up, the commands the ready line suggests, what they placed, and the demo. */
async function followReadme(
  walk: Walk,
  { started: dev, readyLine }: { started: NpmStart; readyLine: string },
  readme: Readme,
): Promise<void> {
  const { clone } = walk;
  const curlDir = await failingCurl(walk.root);
  for (const block of readme.blocks.filter((block) => block !== readme.setup)) {
    await step(blockLabel(block), async () => ({ output: await runBlock(block, clone, curlDir) }), dev);
  }

  const suggested = [...readyLine.matchAll(/`((?:npx|npm) [^`]+)`/g)].map((match) => match[1]);
  for (const command of suggested.filter((command) => command !== 'npm run demo')) {
    await step(`ready line: ${command}`, async () => ({ output: await shell(command, clone) }), dev);
  }

  await step('every order so far is bought and LIVE', () => allLive(walk.state!), dev);

  await step('npm run demo', async () => ({ output: await shell('npm run demo', clone) }), dev);
}

/** `--help` lists the README's command table, and each command the README uses has a `--help` of its own. */
async function helpPages(clone: string, { blocks, tableCommands }: Readme): Promise<void> {
  await step('npx mve-orders --help lists the README table', async () => {
    const help = await shell('npx mve-orders --help', clone);
    const absent = tableCommands.filter((name) => !new RegExp(`^ {2}${name}\\b`, 'm').test(help));
    if (absent.length > 0)
      throw new StepFailure(`--help does not list ${absent.join(', ')} (README's Command line table)`, help);
    return { note: `${tableCommands.length} commands`, output: help };
  });
  const used = new Set(['dev']);
  for (const line of blocks.flatMap((block) => block.lines))
    for (const match of line.matchAll(/npx mve-orders ([a-z][a-z-]*)/g)) used.add(match[1]);
  for (const name of used) {
    await step(`npx mve-orders ${name} --help`, async () => {
      const help = await shell(`npx mve-orders ${name} --help`, clone);
      if (!/^Usage: mve-orders /m.test(help)) throw new StepFailure('no Usage: line', help);
      return { output: help };
    });
  }
}

/** Ctrl-C to dev, then `dev --reset`: nothing of dev left. */
async function stopAndReset(walk: Walk, { started }: { started: NpmStart }): Promise<void> {
  const { clone, dataDir, clusterDir } = walk;
  await step('Ctrl-C to npm start: exit 0, nothing left running', () =>
    stopDev(started, walk.state!, clone, clusterDir),
  );

  await step('npx mve-orders dev --reset', async () => {
    const said = await shell('npx mve-orders dev --reset', clone);
    const removed = [...said.matchAll(/^ {2}(\/.*)$/gm)].map((match) => match[1]);
    const left = [dataDir, ...(clusterDir ? [clusterDir] : []), ...removed].filter((place) => existsSync(place));
    if (left.length > 0) throw new StepFailure(`still there after --reset: ${left.join(', ')}`, said);
    return { note: `removed ${removed.length} folder${removed.length === 1 ? '' : 's'}`, output: said };
  });
}

/** Every order visible to ops is bought and LIVE (dev follows products): what the README's commands placed went through. */
async function allLive(state: DevState): Promise<StepResult> {
  const ops = state.users.find((user) => user.roles.includes('ops'));
  if (!ops) throw new StepFailure('dev.json names no user with the ops role');
  const deadline = Date.now() + LIVE_MS;
  for (;;) {
    const answer = await fetch(`${state.http.url}/api/v1/orders?limit=500`, {
      headers: { authorization: `Bearer ${ops.token}` },
    });
    const body = await answer.text();
    if (!answer.ok) throw new StepFailure(`GET /api/v1/orders as ${ops.id} answered ${answer.status}`, body);
    const { orders } = JSON.parse(body) as { orders: Array<{ ticketId: string; state: string }> };
    const listed = orders.map((order) => `${order.ticketId} ${order.state}`).join('\n');
    if (orders.length === 0) throw new StepFailure('the README commands placed no order that ops can see');
    const wrong = orders.filter((order) => FAILED_ENDS.includes(order.state));
    if (wrong.length > 0) throw new StepFailure('an order ended other than LIVE', listed);
    if (orders.every((order) => order.state === 'LIVE')) return { note: `${orders.length} orders`, output: listed };
    if (Date.now() > deadline) throw new StepFailure(`not all bought and LIVE within ${LIVE_MS / 1000} s`, listed);
    await sleep(500);
  }
}

/**
 * Ctrl-C, as docs/running.md says it behaves: dev stops in order and exits 0, and nothing of it stays.
 *
 * npm runs the script through `sh -c`; Debian's sh (dash) waits for dev and then ends by the SIGINT it received
 * itself, whatever dev's exit code, and npm ends as its child did. So npm's own end may be that SIGINT (130 in a
 * shell) with dev's exit code unseen; dev's 0 is then read from its report: `stopping (SIGINT)`, a line per part,
 * `stopped` and nothing after, which it prints only on the way to exit 0.
 */
async function stopDev(
  dev: NpmStart,
  state: DevState,
  clone: string,
  clusterDir: string | undefined,
): Promise<StepResult> {
  dev.interrupt();
  const npm = await withTimeout(dev.exited, STOP_MS, 'npm start did not exit');
  await withTimeout(dev.closed, STOP_MS, 'dev did not stop');
  const printed = dev.printed();
  if (npm.code !== 0 && npm.signal !== 'SIGINT')
    throw new StepFailure(`npm start ended with ${npm.code ?? npm.signal} at Ctrl-C`, printed);
  if (!/\nstopping \(SIGINT\)\n(?: {2}.*\n)+stopped\n$/.test(printed))
    throw new StepFailure('dev did not stop in order: no "stopping (SIGINT)" … "stopped" at the end', printed);
  if (/TypeError|^\s+at /m.test(printed)) throw new StepFailure('an error or stack trace on the way out', printed);
  if (existsSync(path.join(clone, '.data', 'dev.json')))
    throw new StepFailure('.data/dev.json is still there after dev stopped', printed);
  const left = processesUnder([clone, ...(clusterDir ? [clusterDir] : [])]);
  if (left.length > 0) throw new StepFailure('processes left running', left.join('\n'));
  const ports = devPorts(state);
  const taken: string[] = [];
  for (const { what, port } of ports) if (await accepts(port)) taken.push(`${what} ${port}`);
  if (taken.length > 0) throw new StepFailure(`ports still answering: ${taken.join(', ')}`, printed);
  const npmEnd = npm.code === 0 ? 'npm exit 0' : 'npm ended by the SIGINT (sh re-raises it)';
  return { note: `dev stopped in order; ${npmEnd}; ${ports.length} ports free`, output: printed };
}

/** Whatever happened: dev stopped, what it keeps outside the clone removed (`--reset`), the clone removed. */
async function cleanUp(dev: NpmStart | undefined, clone: string, root: string, afterFailure: boolean): Promise<void> {
  if (dev && afterFailure) {
    dev.interrupt();
    await withTimeout(dev.closed, STOP_MS, 'dev did not stop').catch(() => dev.kill());
  }
  if (afterFailure && existsSync(path.join(clone, 'node_modules')))
    await run('npx', ['mve-orders', 'dev', '--reset'], clone, COMMAND_MS);
  if (flags.keep) {
    process.stdout.write(`walkthrough: the clone is left in ${clone}\n`);
    return;
  }
  await rm(root, { recursive: true, force: true });
}

process.exitCode = await main();
