/**
 * `npm run walkthrough`: what a newcomer does with the README, command by command, on a fresh clone of this
 * checkout's HEAD (uncommitted changes are not in it), and a failure as soon as any of it stops working.
 *
 * In a temporary folder: `git clone`, `npm ci` (from the npm cache where it can), `npm start` in the background
 * until its `ready:` line, then every ```bash block of the README in order, as written (the one saying
 * `npm ci && npm start` is what the two steps before did), the commands the ready line suggests, a check that
 * every order those placed is bought, `npm run demo`; then in chromium every console page each seeded user reaches at
 * 1280×800 and 390×844 (nothing wider than the window: scripts/page-fit.ts) and the README's order in the Temporal
 * Web UI, decoded for ops with nothing set in the UI; fiona's approval overtaken by a 10 % price rise (the notice must
 * say the order is back awaiting approval); a buy whose answer was lost, settled by ops, and `status` of it;
 * every timeline in time order; `npm run bench:cli` (the CLI's start-up against its targets); `--help` of the CLI (which must list every command of the
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
 * --keep leaves the clone in place. Needs git, jq, curl and chromium. Exit 0 when every step passed, 1 when one failed, 2
 * when git, jq, curl or npm is missing.
 */ import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchChromium } from './chromium.js';
import { cliStartBench, settledUncertainBuy, timelinesInOrder } from './walkthrough/change-of-course.js';
import { consoleFits, reQuoteNotice, webUiDecodes } from './walkthrough/in-browser.js';
import { NpmStart, STOP_MS, stopDev, type DevState } from './walkthrough/npm-start.js';
import { bashBlocks, blockLabel, commandTable, failingCurl, runBlock, type BashBlock } from './walkthrough/readme.js';
import { COMMAND_MS, ENV, run, shell, sleep, StepFailure, withTimeout, type StepResult } from './walkthrough/shell.js';

const { values: flags } = parseArgs({
  options: { verbose: { type: 'boolean', default: false }, keep: { type: 'boolean', default: false } },
});

const NPM_CI_MS = 600_000;
const LIVE_MS = 120_000;
const FAILED_ENDS = [
  'REJECTED',
  'EXPIRED',
  'CANCELLED',
  'FAILED',
  'BUY_UNCERTAIN',
  'PROVISIONING_FAILED',
  'PROVISIONING_STALLED',
];

// ---- the steps

let failed = false;

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
    await firstHour(walk, dev.started);
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

/**
 * What a new user meets next: the console in a browser at a laptop's and a phone's size as each seeded user, the
 * README's order decoded in the Temporal Web UI, a vote overtaken by a price rise, a lost buy settled by ops, timelines,
 * and the CLI's start-up.
 */
async function firstHour(walk: Walk, dev: NpmStart): Promise<void> {
  const { clone } = walk;
  const state = walk.state!;
  const browser = await launchChromium();
  try {
    await step('the console fits 1280×800 and 390×844, as each seeded user', () => consoleFits(browser, state), dev);
    await step(
      'ops read CHG-2101 in the Temporal Web UI, decoded',
      () => webUiDecodes(browser, state, 'CHG-2101'),
      dev,
    );
    await step(
      'a price rise as fiona approves: the notice says it is back',
      () => reQuoteNotice(browser, state, clone),
      dev,
    );
  } finally {
    await browser.close();
  }
  await step('a lost buy, settled by ops: status tells it bought', () => settledUncertainBuy(state, clone), dev);
  await step('every timeline runs forward in time', () => timelinesInOrder(state, clone), dev);
  await step('npm run bench:cli: the CLI starts within its targets', () => cliStartBench(clone), dev);
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
