/**
 * The whole engine, measured: the real Temporal server (`temporal server start-dev`, durable in SQLite as dev runs
 * it: bench/temporal.ts), the API simulator, an embedded PostgreSQL, the real worker and activities, the encrypting
 * codec. Auto-approved orders are submitted at several concurrencies; for each, the end-to-end time per order (submit
 * to BOUGHT, median and p95), orders per second, history events and bytes per order, and API calls per order. A
 * one-activity workflow on the same server and worker runtime is measured in the same run as the baseline: the
 * targets of a lean order are printed as ratios against it (docs/order-workflow.md), with the CPU behind them
 * (bench/cpu-time.ts).
 *
 * Each round runs on a server of its own, fresh: start-dev with SQLite's own settings (`defaults`) or dev's (`tuned`),
 * or a Temporal cluster shaped like production on PostgreSQL (bench/cluster.ts). With two or more, the rounds
 * alternate which goes first, so each sees the machine's drift alike, and a last table gives the medians of the
 * rounds and, for two, the ratio of the second to the first. Each round also prints what Temporal did per order (its
 * own metrics; on a cluster its PostgreSQL's statements: bench/server-cost.ts) and the memory of every process of
 * the stack.
 *
 *   npm run bench:orders                               (or as part of `npm run bench`) one round, SQLite tuned
 *   npm run bench:orders -- --sqlite both --rounds 3   both settings, three rounds each
 *   npm run bench:orders -- --temporal both --concurrency 1,50,200 --rounds 2
 *                                                      start-dev and the cluster side by side, also at 200
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import protoRoot from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { ApiClient } from '../infra/ordering-api/index.js';
import { connectDatabase, createRepository, runMigrations, type Repository } from '../infra/db/index.js';
import { startEmbeddedPostgres } from '../tooling/dev/embedded-postgres.js';
import { orderWorkflowId } from '../client/orders/index.js';
import { encryptingDataConverter, Keyring } from '../codec/index.js';
import { SIM_KIND_MAP, startSimulator, type Simulator } from '../tooling/sim/index.js';
import { defaultApprovalPolicies } from '../domain/approval/index.js';
import { callbackPolicyFromEnv, temporalOrderRequests } from '../activities/order/index.js';
import { createEnvironmentActivities, createOrderWorker } from '../worker/index.js';
import { cpuPerUnit, readCpuTimes, type CpuPerUnit, type CpuTimes } from './cpu-time.js';
import { processMemory, type ProcessMemory } from './scale/memory.js';
import { goHeapInUseMiB, readServerCounters, serverCostPerUnit, type ServerCounters } from './server-cost.js';
import { TEMPORAL_OPTION_HELP, temporalKinds } from './temporal-choice.js';
import { openBenchIntake, type BenchIntake } from './intake.js';
import { runOneActivityWorkflows, startOneActivityWorker, type OneActivityFigures } from './one-activity.js';
import { simulatorApiClient } from './simulator-client.js';
import { median, percentile, pool } from './stats.js';
import { SQLITE_SETTINGS, startBenchServer, type BenchServer, type SqliteSettings } from './temporal.js';

const DEFAULT_CONCURRENCY = [1, 10, 50];
/** The one-activity baseline runs at these, and at every concurrency of the orders above 100. */
const BASELINE_CONCURRENCY = [50, 100];
/**
 * Orders per concurrency: this many times the concurrency, kept in flight as the baseline's are (a new one as each
 * ends). As deep as the baseline at concurrency 100 (1,000 workflows), so ramp-up and drain weigh alike in both.
 */
const ROUNDS = 10;
/** At least this many orders per concurrency, so a median at concurrency 1 is not the middle of three. */
const MIN_ORDERS = 30;
const ordersAt = (concurrency: number) => Math.max(ROUNDS * concurrency, MIN_ORDERS);

/** The targets for an auto-approved order, against the one-activity workflow of the same run. */
const TARGETS = { events: 32, bytes: 10_000, p50Ratio: 4, throughputShare: 0.4 };

interface OrderFigures {
  concurrency: number;
  'median e2e ms': number;
  'p95 e2e ms': number;
  'orders/s': number;
  'history events/order': number;
  'history bytes/order': number;
  'API calls/order': number;
}

/**
 * The one-activity workflow on the round's server: at 50, 100 and above, the mean of a round before and one after the
 * orders, by concurrency.
 */
interface BaselineFigures {
  p50AtOne: number;
  p50At: Record<number, number>;
  perSecondAt: Record<number, number>;
  /** Per workflow at concurrency 100, a reading each before and after the orders. */
  cpuAtHundred: CpuPerUnit[];
}

/** The Temporal a round runs on: start-dev with one of SQLite's settings, or a cluster. */
type Variant = { temporal: 'start-dev'; sqlite: SqliteSettings } | { temporal: 'cluster' };

const variantLabel = (variant: Variant) =>
  variant.temporal === 'cluster' ? 'cluster' : `start-dev, SQLite ${variant.sqlite}`;

interface ServerRound {
  variant: Variant;
  orders: OrderFigures[];
  baseline: BaselineFigures;
  cpuPerOrderAtFifty: CpuPerUnit | undefined;
  /** What Temporal did per order, by concurrency. */
  serverCost: Array<Record<string, number | string>>;
  /** Every process of the stack, right after the orders at the highest concurrency. */
  memory: StackMemory;
}

/** Temporal's processes also say their Go heap in use (their /metrics). */
type StackMemory = Array<ProcessMemory & { 'Go heap in use MiB'?: number }>;

/** What every round shares: the database, the provider and the keys; each round brings its own Temporal server. */
interface Engine {
  postgres: { url: string; dataDir: string; pid: number };
  sim: Simulator;
  apiClient: ApiClient;
  repository: Repository;
  codecKeys: Keyring;
  actionKeys: Keyring;
  /** A ticket id no order of this run has had: the ticket registry outlives each round's server. */
  newTicketId(): string;
  close(): Promise<void>;
}

/** One round's server and what runs on it; `stops` undoes it, last first. */
interface RoundStack {
  server: BenchServer;
  /** Through the encrypting codec, as the engine's own clients are. */
  client: Client;
  /** The baseline as plain Temporal runs it: plain payloads, no codec. */
  plainClient: Client;
  intake: BenchIntake;
  readCpu(): CpuTimes | undefined;
  readCounters(): Promise<ServerCounters>;
  /** API calls the simulator has served so far. */
  totalCalls(): number;
}

export interface OrdersBenchOptions {
  sqlite: SqliteSettings[];
  temporal: Array<Variant['temporal']>;
  rounds: number;
  /** The orders' concurrencies; 1 and 50 among them (the targets read them). */
  concurrency?: number[];
}

export async function runOrdersBench(options: OrdersBenchOptions): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const variants = options.temporal.flatMap((temporal): Variant[] =>
    temporal === 'cluster' ? [{ temporal }] : options.sqlite.map((sqlite) => ({ temporal, sqlite })),
  );
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const engine = await openEngine();
  try {
    const rounds: ServerRound[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      const order = round % 2 === 1 ? variants : [...variants].reverse();
      for (const variant of order)
        rounds.push(await measureRound(engine, variant, concurrency, `${round}/${options.rounds}`));
    }
    if (rounds.length > 1) printSummary(rounds, variants);
  } finally {
    await engine.close();
  }
}

/** The embedded PostgreSQL (migrated), the simulator and a client on it, fresh keys. */
async function openEngine(): Promise<Engine> {
  // Not created here: the embedded server creates it, owned by the account PostgreSQL runs as.
  const dataDir = path.join(tmpdir(), `mve-bench-pg-${process.pid}`);
  const postgres = await startEmbeddedPostgres({ dataDir, ephemeral: true });
  const sim = await startSimulator();
  const sql = connectDatabase(postgres.url);
  // The worker's own patience: a busy machine answers slowly, and a timeout would fail an order being measured.
  const apiClient = simulatorApiClient(sim, { connectTimeoutMs: 5_000, responseTimeoutMs: 30_000 });
  const close = async () => {
    apiClient.close();
    await sql.end({ timeout: 5 });
    await sim.close();
    await postgres.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  let tickets = 0;
  try {
    await runMigrations(sql);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    postgres,
    sim,
    apiClient,
    repository: createRepository(sql),
    codecKeys: Keyring.fromText(`bench:${randomBytes(32).toString('base64')}`),
    actionKeys: Keyring.fromText(`bench:${randomBytes(32).toString('base64')}`, 'bench', 'action keys'),
    newTicketId: () => `BENCH-${process.pid}-${++tickets}`,
    close,
  };
}

/** One round on a fresh server: the orders at each concurrency and the baseline around them, printed and returned. */
async function measureRound(
  engine: Engine,
  variant: Variant,
  concurrency: number[],
  label: string,
): Promise<ServerRound> {
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const stack = await startRoundStack(engine, variant, stops);
    const baseline = baselineRunner(stack);
    const baselineAt = [...BASELINE_CONCURRENCY, ...concurrency.filter((each) => each > 100)];
    const baselineSet = async () => {
      const runs = new Map<number, BaselineRun>();
      for (const each of baselineAt) runs.set(each, await baseline(each, ordersAt(each)));
      return runs;
    };
    // Not reported: warm-ups as deep as the rounds measured. They fill the caches (catalogs, token, connections, the
    // server's), and V8 is still optimising code for each side's first thousand runs or so: a side measured colder
    // looks slower (the baseline measured before the orders did, by 4 to 41 % in three runs, when only 50 runs warmed
    // it).
    await measureOrders(engine, stack, Math.max(...concurrency));
    await baseline(100, 1000);
    const atOne = await baseline(1, 50);
    // The baseline at 50 and above runs before and after the orders, and the ratios are taken against the mean: a
    // machine whose speed drifts during the run (shared cores) weighs on both sides alike.
    const before = await baselineSet();
    const measured: MeasuredOrders[] = [];
    for (const each of concurrency) measured.push(await measureOrders(engine, stack, each));
    const memory = await stackMemory(engine, stack);
    const after = await baselineSet();
    const result = { ...roundFigures(variant, measured, atOne, [before, after]), memory };
    printRound(result, label, stack.server.description, [before, after]);
    return result;
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

/** The round's server, clients, the order worker and the baseline's; each pushes how to stop it onto `stops`. */
async function startRoundStack(
  engine: Engine,
  variant: Variant,
  stops: Array<() => Promise<unknown>>,
): Promise<RoundStack> {
  const server = await startBenchServer({
    kind: variant.temporal,
    sqlite: variant.temporal === 'start-dev' ? variant.sqlite : 'tuned',
    log: (line) => process.stderr.write(`${line}\n`),
  });
  stops.push(() => server.stop());
  const connection = await Connection.connect({ address: server.address });
  stops.push(() => connection.close());
  const client = new Client({
    connection,
    namespace: 'default',
    dataConverter: encryptingDataConverter(engine.codecKeys),
  });
  await startOrderWorker(engine, server, client, stops);
  const baselineWorker = await startOneActivityWorker(server.address);
  stops.push(() => baselineWorker.stop());
  return {
    server,
    client,
    plainClient: new Client({ connection, namespace: 'default' }),
    intake: await openBenchIntake({
      client,
      taskQueue: 'bench',
      repository: engine.repository,
      actionKeys: engine.actionKeys,
    }),
    readCpu: () =>
      readCpuTimes({
        postgresDataDir: engine.postgres.dataDir,
        temporalPids: server.processes().map(({ pid }) => pid),
        ...(server.postgres ? { temporalPostgresDataDir: server.postgres.dataDir } : {}),
      }),
    readCounters: () => readServerCounters(server.metrics),
    totalCalls: () => Object.values(engine.sim.state().calls).reduce((sum, count) => sum + count, 0),
  };
}

/**
 * Every process of the round's stack: Temporal's (with its Go heap in use), its PostgreSQL (a cluster's), the
 * product's, this one.
 */
async function stackMemory(engine: Engine, stack: RoundStack): Promise<StackMemory> {
  const { server } = stack;
  const temporal = server.processes();
  const heaps = await Promise.all(temporal.map(({ metricsUrl }) => goHeapInUseMiB(metricsUrl)));
  return [
    ...temporal.map(({ name, pid }, at) => ({ ...processMemory(name, pid), 'Go heap in use MiB': heaps[at] })),
    ...(server.postgres
      ? [processMemory("Temporal's PostgreSQL (postmaster and backends)", server.postgres.pid, { tree: true })]
      : []),
    processMemory("the product's PostgreSQL (postmaster and backends)", engine.postgres.pid, { tree: true }),
    processMemory('this bench (order worker, one-activity worker, clients, simulator)', process.pid),
  ];
}

/** The real order worker and activities on the round's server, its shutdown pushed onto `stops`. */
async function startOrderWorker(
  engine: Engine,
  server: BenchServer,
  client: Client,
  stops: Array<() => Promise<unknown>>,
): Promise<void> {
  const activities = createEnvironmentActivities({
    apiClient: engine.apiClient,
    repository: engine.repository,
    actionKeys: engine.actionKeys,
    kindMap: SIM_KIND_MAP,
    policies: { version: 'bench', source: 'defaults', policies: defaultApprovalPolicies() },
    callbackSecret: undefined,
    callbackPolicy: callbackPolicyFromEnv({}),
    // As the worker does: the buy and the journal read the request from the run's start input.
    orderRequests: temporalOrderRequests(client),
  });
  const workerConnection = await NativeConnection.connect({ address: server.address });
  stops.push(() => workerConnection.close());
  const worker = await createOrderWorker({
    connection: workerConnection,
    namespace: 'default',
    taskQueue: 'bench',
    environment: 'staging',
    activities,
    codecKeys: engine.codecKeys,
    actionKeys: engine.actionKeys,
  });
  const running = worker.run();
  stops.push(async () => {
    worker.shutdown();
    await running;
  });
}

interface MeasuredOrders {
  figures: OrderFigures;
  cpu?: CpuPerUnit;
  /** What Temporal did per order (bench/server-cost.ts). */
  serverCost: Record<string, number | string>;
}

/** Auto-approved orders at `concurrency`, each submitted as the HTTP API does and followed to BOUGHT. */
async function measureOrders(engine: Engine, stack: RoundStack, concurrency: number): Promise<MeasuredOrders> {
  const e2e: number[] = [];
  const orderIds: string[] = [];
  const total = ordersAt(concurrency);
  const callsBefore = stack.totalCalls();
  const cpuBefore = stack.readCpu();
  const countersBefore = await stack.readCounters();
  const started = performance.now();
  await pool(total, concurrency, async () => {
    const ticketId = engine.newTicketId();
    const t0 = performance.now();
    orderIds.push(await stack.intake.buyAutoApproved(ticketId));
    e2e.push(performance.now() - t0);
  });
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = stack.readCpu();
  const countersAfter = await stack.readCounters();
  const calls = stack.totalCalls() - callsBefore;
  const { events, bytes } = await historySize(stack.client, orderIds);
  e2e.sort((a, b) => a - b);
  return {
    figures: {
      concurrency,
      'median e2e ms': Math.round(percentile(e2e, 50)),
      'p95 e2e ms': Math.round(percentile(e2e, 95)),
      'orders/s': round1(orderIds.length / elapsed),
      'history events/order': Math.round(events / orderIds.length),
      'history bytes/order': Math.round(bytes / orderIds.length),
      'API calls/order': Math.round((calls / orderIds.length) * 100) / 100,
    },
    ...(cpuBefore && cpuAfter ? { cpu: cpuPerUnit(cpuBefore, cpuAfter, total) } : {}),
    serverCost: { concurrency, ...serverCostPerUnit(countersBefore, countersAfter, total) },
  };
}

/** The orders' histories in all: events, and bytes as the server stores them (encoded). */
async function historySize(client: Client, orderIds: string[]): Promise<{ events: number; bytes: number }> {
  const { History } = protoRoot.temporal.api.history.v1;
  let events = 0;
  let bytes = 0;
  for (const orderId of orderIds) {
    const { history } = await client.workflowService.getWorkflowExecutionHistory({
      namespace: 'default',
      execution: { workflowId: orderWorkflowId(orderId) },
    });
    events += history?.events?.length ?? 0;
    bytes += History.encode(History.create(history ?? {})).finish().length;
  }
  return { events, bytes };
}

type BaselineRun = OneActivityFigures & { cpu: CpuPerUnit | undefined };
/** The baseline at concurrency 50, 100 and above, once before or after the orders, by concurrency. */
type BaselineSet = ReadonlyMap<number, BaselineRun>;

/** Runs of the one-activity workflow on the round's server, each with the CPU behind it and ids of its own. */
function baselineRunner(stack: RoundStack): (concurrency: number, total: number) => Promise<BaselineRun> {
  let runs = 0;
  return async (concurrency, total) => {
    const before = stack.readCpu();
    const figures = await runOneActivityWorkflows(stack.plainClient, concurrency, total, `one-${++runs}`);
    const after = stack.readCpu();
    return { ...figures, cpu: before && after ? cpuPerUnit(before, after, total) : undefined };
  };
}

/** The round's figures: the orders, and the baseline at 50 and above as the mean of before and after them. */
function roundFigures(
  variant: Variant,
  measured: MeasuredOrders[],
  atOne: OneActivityFigures,
  [before, after]: readonly [BaselineSet, BaselineSet],
): Omit<ServerRound, 'memory'> {
  const mean = (pick: (run: BaselineRun) => number) =>
    Object.fromEntries([...before.keys()].map((at) => [at, (pick(before.get(at)!) + pick(after.get(at)!)) / 2]));
  return {
    variant,
    orders: measured.map(({ figures }) => figures),
    baseline: {
      p50AtOne: atOne.p50,
      p50At: mean((run) => run.p50),
      perSecondAt: mean((run) => run.perSecond),
      cpuAtHundred: [before.get(100)!.cpu, after.get(100)!.cpu].filter((cpu) => cpu !== undefined),
    },
    cpuPerOrderAtFifty: measured.find(({ figures }) => figures.concurrency === 50)?.cpu,
    serverCost: measured.map(({ serverCost }) => serverCost),
  };
}

function printRound(
  round: ServerRound,
  label: string,
  server: string,
  [before, after]: readonly [BaselineSet, BaselineSet],
): void {
  process.stdout.write(
    `\nRound ${label}, ${server}.\nAuto-approved orders end to end (simulator, embedded PostgreSQL; ${ROUNDS} times the concurrency, at least ${MIN_ORDERS}, orders each, kept in flight; warm caches):\n`,
  );
  console.table(round.orders);
  const { baseline } = round;
  const at = (concurrency: number) =>
    `p50 ${baseline.p50At[concurrency].toFixed(1)} ms and ${baseline.perSecondAt[concurrency].toFixed(1)} ` +
    `workflows/s at concurrency ${concurrency} (${before.get(concurrency)!.perSecond.toFixed(1)} before the orders, ` +
    `${after.get(concurrency)!.perSecond.toFixed(1)} after)`;
  process.stdout.write(
    `Baseline, one-activity workflow on the same server: p50 ${baseline.p50AtOne.toFixed(1)} ms at concurrency 1; ` +
      `${[...before.keys()].map(at).join('; ')}\n`,
  );
  const ratios = roundRatios(round);
  const single = orderAt(round, 1);
  console.table([
    {
      figure: 'history events per order',
      measured: single['history events/order'],
      target: `<= ${TARGETS.events}`,
      met: single['history events/order'] <= TARGETS.events,
    },
    {
      figure: 'history bytes per order',
      measured: single['history bytes/order'],
      target: `<= ${TARGETS.bytes}`,
      met: single['history bytes/order'] <= TARGETS.bytes,
    },
    {
      figure: 'p50 at c1 / one-activity p50',
      measured: times(ratios.p50AtOne),
      target: `<= ${TARGETS.p50Ratio}x`,
      met: ratios.p50AtOne <= TARGETS.p50Ratio,
    },
    {
      figure: 'orders/s at c50 / one-activity wf/s at c100',
      measured: share(ratios.shareOfHundred),
      target: `>= ${TARGETS.throughputShare * 100} %`,
      met: ratios.shareOfHundred >= TARGETS.throughputShare,
    },
    { figure: 'p50 at c50 / one-activity p50 at c50', measured: times(ratios.p50AtFifty), target: '', met: '' },
    { figure: 'orders/s at c50 / one-activity wf/s at c50', measured: share(ratios.shareOfFifty), target: '', met: '' },
  ]);
  printCpu(round.cpuPerOrderAtFifty, baseline.cpuAtHundred);
  printServerCost(round);
  printMemory(round.memory);
}

/** An order's figures against the baseline's of the same round. */
function roundRatios(round: ServerRound) {
  const fifty = orderAt(round, 50);
  return {
    p50AtOne: orderAt(round, 1)['median e2e ms'] / round.baseline.p50AtOne,
    p50AtFifty: fifty['median e2e ms'] / round.baseline.p50At[50],
    shareOfFifty: fifty['orders/s'] / round.baseline.perSecondAt[50],
    shareOfHundred: fifty['orders/s'] / round.baseline.perSecondAt[100],
  };
}

function orderAt(round: ServerRound, concurrency: number): OrderFigures {
  return round.orders.find((row) => row.concurrency === concurrency)!;
}

/** What Temporal did per order at each concurrency: its own metrics, and a cluster's PostgreSQL statements. */
function printServerCost(round: ServerRound): void {
  process.stdout.write("Temporal's work per order (its /metrics; a cluster's PostgreSQL from pg_stat_statements):\n");
  console.table(round.serverCost);
}

/** Every process of the stack and the sum: RSS, and PSS (pages shared between processes counted once). */
function printMemory(memory: StackMemory): void {
  const total = (field: 'RSS MiB' | 'PSS MiB') => memory.reduce((sum, row) => sum + row[field], 0);
  process.stdout.write('Memory of the whole stack, after the orders at the highest concurrency (/proc):\n');
  console.table([
    ...memory,
    {
      process: 'whole stack',
      pid: '',
      processes: memory.reduce((sum, row) => sum + row.processes, 0),
      'RSS MiB': total('RSS MiB'),
      'PSS MiB': total('PSS MiB'),
    },
  ]);
}

const stackPss = (round: ServerRound) => round.memory.reduce((sum, row) => sum + row['PSS MiB'], 0);

type Figure = [string, (round: ServerRound) => number];

/** The orders at a concurrency above 50, and the baseline at it where it ran (above 100). */
function figuresAt(at: number): Figure[] {
  const orders: Figure[] = [
    [`order p50 at c${at}, ms`, (round) => orderAt(round, at)['median e2e ms']],
    [`orders/s at c${at}`, (round) => orderAt(round, at)['orders/s']],
  ];
  if (at <= 100) return orders;
  return [
    ...orders,
    [`one-activity p50 at c${at}, ms`, (round) => round.baseline.p50At[at]],
    [`one-activity wf/s at c${at}`, (round) => round.baseline.perSecondAt[at]],
  ];
}

/** The medians of the rounds, per variant; with two, the second against the first. */
function printSummary(rounds: ServerRound[], variants: Variant[]): void {
  const labels = variants.map(variantLabel);
  const above = rounds[0].orders.map((row) => row.concurrency).filter((each) => each > 50);
  const figures: Record<string, (round: ServerRound) => number> = {
    'order p50 at c50, ms': (round) => orderAt(round, 50)['median e2e ms'],
    'one-activity p50 at c50, ms': (round) => round.baseline.p50At[50],
    'order p50 / one-activity p50, at c50': (round) => roundRatios(round).p50AtFifty,
    'orders/s at c50': (round) => orderAt(round, 50)['orders/s'],
    'one-activity wf/s at c50': (round) => round.baseline.perSecondAt[50],
    'orders/s / one-activity wf/s, at c50': (round) => roundRatios(round).shareOfFifty,
    ...Object.fromEntries(above.flatMap(figuresAt)),
    'order p50 at c1, ms': (round) => orderAt(round, 1)['median e2e ms'],
    'order p50 / one-activity p50, at c1': (round) => roundRatios(round).p50AtOne,
    'orders/s at c50 / one-activity wf/s at c100': (round) => roundRatios(round).shareOfHundred,
    'CPU ms per order at c50': (round) => round.cpuPerOrderAtFifty?.total ?? Number.NaN,
    'whole stack PSS, MiB': stackPss,
  };
  const medianOf = (label: string, figure: (round: ServerRound) => number) =>
    median(rounds.filter((round) => variantLabel(round.variant) === label).map(figure));
  const count = rounds.filter((round) => variantLabel(round.variant) === labels[0]).length;
  process.stdout.write(`\nMedians of ${count} rounds per Temporal (each ratio taken within its round):\n`);
  console.table(
    Object.entries(figures).map(([figure, pick]) => ({
      figure,
      ...Object.fromEntries(labels.map((label) => [label, round2(medianOf(label, pick))])),
      ...(labels.length === 2
        ? { [`${labels[1]} / ${labels[0]}`]: round2(medianOf(labels[1], pick) / medianOf(labels[0], pick)) }
        : {}),
    })),
  );
}

/**
 * The CPU behind the throughput share: per order at concurrency 50 against per one-activity workflow at 100 (the mean
 * of its two rounds), by part. Nothing where /proc cannot tell.
 */
function printCpu(order: CpuPerUnit | undefined, baselineRounds: CpuPerUnit[]): void {
  if (!order || baselineRounds.length === 0) return;
  const baseline = (part: keyof typeof order) =>
    baselineRounds.reduce((sum, round) => sum + round[part], 0) / baselineRounds.length;
  const parts = [
    ['main thread', 'main'],
    ['other Node threads (workflow thread, V8 helpers)', 'nodeThreads'],
    ['SDK Rust core', 'rustCore'],
    ['PostgreSQL', 'postgres'],
    ['Temporal server', 'temporal'],
    ["Temporal's PostgreSQL", 'temporalPostgres'],
    ['in all', 'total'],
  ] as const;
  process.stdout.write(
    'CPU ms per order at concurrency 50 and per one-activity workflow at concurrency 100 (/proc):\n',
  );
  console.table(
    // start-dev has no PostgreSQL of its own: its row is left out
    parts
      .filter(([, part]) => order[part] > 0 || baseline(part) > 0 || part === 'total')
      .map(([label, part]) => ({
        part: label,
        order: round2(order[part]),
        'one-activity workflow': round2(baseline(part)),
      })),
  );
  process.stdout.write(
    `An order costs ${(order.total / baseline('total')).toFixed(2)}x the CPU of the one-activity workflow.\n`,
  );
}

const round1 = (value: number) => Math.round(value * 10) / 10;
const round2 = (value: number) => Math.round(value * 100) / 100;
const times = (ratio: number) => `${ratio.toFixed(2)}x`;
const share = (ratio: number) => `${(ratio * 100).toFixed(0)} %`;

const USAGE = `npm run bench:orders -- [options]
  ${TEMPORAL_OPTION_HELP}
  --sqlite <setting>      start-dev's SQLite (start-dev only): defaults, tuned (default: dev's) or both
  --rounds <n>            rounds on each Temporal (default 1); the rounds alternate which Temporal goes first
  --concurrency <list>    the orders' concurrencies, comma-separated, 1 and 50 among them (default 1,10,50); the
                          one-activity baseline also runs at each above 100
  --help                  this text`;

/** `--sqlite`'s value: one setting, or both (defaults first). */
function sqliteSettings(value: string): SqliteSettings[] {
  if (value === 'both') return [...SQLITE_SETTINGS];
  if ((SQLITE_SETTINGS as readonly string[]).includes(value)) return [value as SqliteSettings];
  throw new Error(`--sqlite must be ${SQLITE_SETTINGS.join(', ')} or both, not ${value}`);
}

/** `--concurrency`'s list: whole numbers of at least 1, ascending, with 1 and 50 (the targets read them). */
function concurrencyList(value: string): number[] {
  const list = [...new Set(value.split(',').map((each) => Number(each.trim())))].sort((a, b) => a - b);
  if (list.some((each) => !Number.isInteger(each) || each < 1) || !list.includes(1) || !list.includes(50))
    throw new Error(`--concurrency must list whole numbers of at least 1, 1 and 50 among them, not ${value}`);
  return list;
}

function ordersBenchOptions(): OrdersBenchOptions | undefined {
  const { values } = parseArgs({
    options: {
      temporal: { type: 'string', default: 'start-dev' },
      sqlite: { type: 'string', default: 'tuned' },
      rounds: { type: 'string', default: '1' },
      concurrency: { type: 'string', default: DEFAULT_CONCURRENCY.join(',') },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return undefined;
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number of at least 1`);
  return {
    temporal: temporalKinds(values.temporal),
    sqlite: sqliteSettings(values.sqlite),
    rounds,
    concurrency: concurrencyList(values.concurrency),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let options: OrdersBenchOptions | undefined;
  try {
    options = ordersBenchOptions();
  } catch (error) {
    process.stderr.write(`bench:orders: ${(error as Error).message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (options) await runOrdersBench(options);
  else process.stdout.write(`${USAGE}\n`);
}
