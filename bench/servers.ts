/**
 * `npm run bench:servers`: the devserver against the real Temporal server (`temporal server start-dev`), on one
 * machine in one run. Two `mve-orders dev` stacks run side by side (bench/scale/stack.ts, each with an embedded
 * PostgreSQL of its own): one on the devserver (`--temporal embedded`: in dev's process, durable in PostgreSQL), one
 * on the real server (`--temporal real`: under dev, its state in SQLite). Every measurement is taken on one and then
 * on the other, which goes first alternating, so both see the machine's load alike:
 *
 *   - one-activity workflows (bench/fixtures/one-activity-workflow.ts, a worker in this process per stack): p50 at
 *     concurrency 1, workflows/s at concurrency 100;
 *   - auto-approved orders, through each stack's own worker, submitted as the HTTP API does: p50 at concurrency 1,
 *     orders/s at concurrency 50;
 *   - the whole stack's memory: dev and everything under it (the real server included) and PostgreSQL, each process
 *     by its proportional set size; fresh, after the rounds above, and with each count of orders parked awaiting a
 *     finance approval (parked 1,000 at a time, on one stack then the other).
 *
 * It prints the median of the rounds for each figure and the ratio devserver / real server.
 *
 *   npm run bench:servers                                   3 rounds; memory with 1,000 and 10,000 parked
 *   npm run bench:servers -- --rounds 5 --parked 1000       other counts (--parked 0: no parking)
 *   npm run bench:servers -- --workflows 1000 --orders 500  how many per round at concurrency 100 and 50
 *   npm run bench:servers -- --park-minutes 15             a server that has parked this long parks no more
 *   npm run -s bench:servers -- --json                      the figures as JSON (progress stays on stderr)
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { throughput } from '@mve-orders/devserver/bench';
import { postgresPssMiB, pssMiB, treePssMiB } from './scale/memory.js';
import { connectOrders, type StackOrders } from './scale/orders.js';
import { startScaleStack, type ScaleStack, type StackTemporal } from './scale/stack.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    parked: { type: 'string', default: '1000,10000' },
    workflows: { type: 'string', default: '1000' },
    orders: { type: 'string', default: '500' },
    'park-minutes': { type: 'string', default: '15' },
    json: { type: 'boolean', default: false },
  },
});

function wholeNumber(name: string, text: string, least: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < least)
    throw new Error(`--${name} must be a whole number of at least ${least}, not ${text}`);
  return value;
}
const ROUNDS = wholeNumber('rounds', values.rounds, 1);
const WORKFLOWS = wholeNumber('workflows', values.workflows, 1);
const ORDERS = wholeNumber('orders', values.orders, 1);
/** A server that has spent this long parking parks no more: its memory is taken with the orders it got to. */
const PARK_LIMIT_S = wholeNumber('park-minutes', values['park-minutes'], 1) * 60;
/** Ascending, each a total: 1000,10000 parks 1,000 and then 9,000 more. */
const PARKED = values.parked
  .split(',')
  .map((part) => wholeNumber('parked', part.trim(), 0))
  .filter((count) => count > 0)
  .sort((a, b) => a - b);

const SERVERS = ['devserver', 'real'] as const;
type Server = (typeof SERVERS)[number];
const LABELS: Record<Server, string> = { devserver: 'devserver', real: 'real server' };
const TEMPORAL_OF: Record<Server, StackTemporal> = { devserver: 'embedded', real: 'real' };
const BASELINE_QUEUE = 'bench-one-activity';
const ONE_AT_A_TIME = { workflows: 50, orders: 30 };
const PARK_CHUNK = 1_000;
const MEMORY_SAMPLES = 5;

const progress = (line: string) => process.stderr.write(`${line}\n`);

interface Side {
  stack: ScaleStack;
  orders: StackOrders;
  plain: Client;
  worker: Worker;
  running: Promise<void>;
}

/** The whole stack's memory, MiB: dev alone, the real server alone (none on the devserver), PostgreSQL, in all. */
interface Memory {
  /** Orders parked awaiting approval when it was taken. */
  parked: number;
  dev: number;
  server: number | null;
  postgres: number;
  total: number;
}

async function startSide(server: Server, workflowBundle: { code: string }): Promise<Side> {
  progress(`starting the stack on the ${LABELS[server]}…`);
  const stack = await startScaleStack({
    temporal: TEMPORAL_OF[server],
    split: false,
    log: (line) => progress(`[${server}] ${line}`),
  });
  try {
    const orders = await connectOrders(stack, (line) => progress(`[${server}] ${line}`), `SERVERS-${server}`);
    const { address, namespace } = stack.dev.state.temporal;
    const worker = await Worker.create({
      connection: await NativeConnection.connect({ address }),
      namespace,
      taskQueue: BASELINE_QUEUE,
      workflowBundle,
      activities: { echo: async (text: string) => text },
    });
    // as the devserver package's bench runs it: plain payloads, no codec
    const plain = new Client({ connection: orders.connection, namespace });
    return { stack, orders, plain, worker, running: worker.run() };
  } catch (error) {
    await stack.stop();
    throw error;
  }
}

async function stopSide(side: Side): Promise<void> {
  side.worker.shutdown();
  await side.running;
  await side.orders.close();
  await side.stack.stop();
}

/** The median of MEMORY_SAMPLES readings a second apart (a garbage collection moves one reading). */
async function memoryOf(stack: ScaleStack, parked: number): Promise<Memory> {
  const samples: Memory[] = [];
  for (let i = 0; i < MEMORY_SAMPLES; i++) {
    if (i) await new Promise((resolve) => setTimeout(resolve, 1_000));
    const dev = pssMiB(stack.dev.pid);
    const server = stack.realServer ? pssMiB(stack.realServer.pid) : null;
    const postgres = postgresPssMiB(stack.postgres.dataDir);
    samples.push({ parked, dev, server, postgres, total: treePssMiB(stack.dev.pid) + postgres });
  }
  return samples.sort((a, b) => a.total - b.total)[Math.floor(MEMORY_SAMPLES / 2)]!;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Each measurement of a round, on one server: what `ROUNDS` rounds give a median of. */
const MEASURES = {
  'one-activity p50 at concurrency 1 (ms)': async (side: Side, tag: string) =>
    (await throughput(side.plain, BASELINE_QUEUE, 1, ONE_AT_A_TIME.workflows, `c1-${tag}`)).p50,
  'one-activity workflows/s at concurrency 100': async (side: Side, tag: string) =>
    (await throughput(side.plain, BASELINE_QUEUE, 100, WORKFLOWS, `c100-${tag}`)).perSecond,
  'auto-approved order p50 at concurrency 1 (ms)': async (side: Side) =>
    (await side.orders.autoOrders(ONE_AT_A_TIME.orders, 1)).p50,
  'auto-approved orders/s at concurrency 50': async (side: Side) =>
    (await side.orders.autoOrders(ORDERS, 50)).perSecond,
} as const;

type Figures = Record<string, Record<Server, number[]>>;

function record(figures: Figures, figure: string, server: Server, value: number): void {
  (figures[figure] ??= { devserver: [], real: [] })[server].push(value);
}

/** The servers in the order they go in round `round`: each goes first every other time. */
const inTurn = (round: number): Server[] => (round % 2 ? [...SERVERS].reverse() : [...SERVERS]);

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const startedAt = performance.now();
  const loadBefore = loadavg()[0]!;
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./fixtures/one-activity-workflow.ts', import.meta.url)),
    logger: new DefaultLogger('ERROR'),
  });
  const sides: Partial<Record<Server, Side>> = {};
  const figures: Figures = {};
  const memory: Record<string, Record<Server, Memory>> = {};
  /** Orders parked on each server so far, and the seconds it took. */
  const parked: Record<Server, { count: number; seconds: number }> = {
    devserver: { count: 0, seconds: 0 },
    real: { count: 0, seconds: 0 },
  };
  const measureMemory = async (when: string, round: number) => {
    const taken: Partial<Record<Server, Memory>> = {};
    for (const server of inTurn(round)) taken[server] = await memoryOf(sides[server]!.stack, parked[server].count);
    memory[when] = taken as Record<Server, Memory>;
  };
  try {
    // one after the other: both starting at once would each take as long, and time nothing
    for (const server of SERVERS) sides[server] = await startSide(server, workflowBundle);
    const side = (server: Server) => sides[server]!;
    await measureMemory('fresh', 0);

    // Not reported: as deep as the rounds, so that V8 has optimised each side's code paths before they are timed.
    progress('warming both stacks…');
    for (const server of SERVERS) {
      await side(server).orders.autoOrders(ORDERS, 50);
      await throughput(side(server).plain, BASELINE_QUEUE, 100, WORKFLOWS, `warm-${server}-${process.pid}`);
    }
    for (let round = 0; round < ROUNDS; round++) {
      progress(`round ${round + 1}/${ROUNDS}`);
      for (const [figure, measure] of Object.entries(MEASURES))
        for (const server of inTurn(round)) {
          const value = await measure(side(server), `${server}-${round}-${process.pid}`);
          record(figures, figure, server, value);
          progress(`  ${figure} on the ${LABELS[server]}: ${value.toFixed(1)}`);
        }
    }
    await measureMemory('none parked (after the rounds)', 0);

    // a thousand at a time, on one server then the other, until each has the count or has parked for long enough
    const parking = (server: Server, target: number) =>
      parked[server].count < target && parked[server].seconds < PARK_LIMIT_S;
    for (const [step, target] of PARKED.entries()) {
      for (let chunk = 0; SERVERS.some((server) => parking(server, target)); chunk++)
        for (const server of inTurn(chunk)) {
          if (!parking(server, target)) continue;
          const count = Math.min(PARK_CHUNK, target - parked[server].count);
          parked[server].seconds += (await side(server).orders.park(count)).seconds;
          parked[server].count += count;
        }
      await measureMemory(`${target} parked`, step + 1);
    }
    for (const server of SERVERS)
      if (parked[server].count)
        record(figures, 'orders parked/s', server, parked[server].count / parked[server].seconds);
    report(figures, memory, { startedAt, loadBefore });
  } finally {
    for (const server of SERVERS) if (sides[server]) await stopSide(sides[server]);
  }
}

function report(
  figures: Figures,
  memory: Record<string, Record<Server, Memory>>,
  run: { startedAt: number; loadBefore: number },
): void {
  const minutes = (performance.now() - run.startedAt) / 60_000;
  const load = { before: run.loadBefore, after: loadavg()[0]! };
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ rounds: ROUNDS, workflows: WORKFLOWS, orders: ORDERS, parked: PARKED, minutes, load, figures, memory }, null, 2)}\n`,
    );
    return;
  }
  const one = (value: number) => value.toFixed(1);
  const spread = (values: number[]) =>
    values.length > 1 ? ` (${one(Math.min(...values))}–${one(Math.max(...values))})` : '';
  process.stdout.write(
    `\nbench:servers — ${ROUNDS} rounds, taken in turn; ${WORKFLOWS} one-activity workflows at concurrency 100, ` +
      `${ORDERS} orders at 50; ${minutes.toFixed(0)} minutes; load average ${load.before.toFixed(1)} before, ${load.after.toFixed(1)} after\n`,
  );
  console.table(
    Object.entries(figures).map(([figure, by]) => ({
      figure,
      'devserver, median (range)': `${one(median(by.devserver))}${spread(by.devserver)}`,
      'real server, median (range)': `${one(median(by.real))}${spread(by.real)}`,
      'devserver / real': `${(median(by.devserver) / median(by.real)).toFixed(2)}x`,
    })),
  );
  process.stdout.write(
    'Memory of the whole stack (PSS, MiB: dev + the real server + PostgreSQL), median of 5 readings:\n',
  );
  const mib = (value: number | null) => (value === null ? '-' : value.toFixed(0));
  console.table(
    Object.entries(memory).map(([when, by]) => {
      // a server that stopped parking at the time limit: its memory with what it got to, and no ratio
      const short = (taken: Memory) =>
        when.endsWith(' parked') && !when.startsWith(`${taken.parked} `) ? `; ${taken.parked} parked` : '';
      return {
        when,
        devserver: `${mib(by.devserver.total)} (dev ${mib(by.devserver.dev)}, PostgreSQL ${mib(by.devserver.postgres)}${short(by.devserver)})`,
        'real server': `${mib(by.real.total)} (dev ${mib(by.real.dev)}, server ${mib(by.real.server)}, PostgreSQL ${mib(by.real.postgres)}${short(by.real)})`,
        'devserver / real':
          by.devserver.parked === by.real.parked ? `${(by.devserver.total / by.real.total).toFixed(2)}x` : '-',
      };
    }),
  );
}

await main();
