/**
 * The whole engine, measured: the real Temporal server (`temporal server start-dev`, durable in SQLite as dev runs
 * it: bench/temporal.ts), the API simulator, an embedded PostgreSQL, the real worker and activities, the encrypting
 * codec. Auto-approved orders are submitted at several concurrencies; for each, the end-to-end time per order (submit
 * to BOUGHT, median and p95), orders per second, history events and bytes per order, and API calls per order. A
 * one-activity workflow on the same server and worker runtime is measured in the same run as the baseline: the
 * targets of a lean order are printed as ratios against it (docs/order-workflow.md), with the CPU behind them
 * (bench/cpu-time.ts).
 *
 * Each round runs on a server of its own, fresh, with SQLite's own settings (`defaults`) or dev's (`tuned`); with
 * both, the rounds alternate which goes first, so both see the machine's drift alike, and a last table gives the
 * medians of the rounds and the ratio tuned / defaults.
 *
 *   npm run bench:orders                               (or as part of `npm run bench`) one round, SQLite tuned
 *   npm run bench:orders -- --sqlite both --rounds 3   both settings, three rounds each
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
import { openBenchIntake, type BenchIntake } from './intake.js';
import { runOneActivityWorkflows, startOneActivityWorker, type OneActivityFigures } from './one-activity.js';
import { simulatorApiClient } from './simulator-client.js';
import { median, percentile, pool } from './stats.js';
import { SQLITE_SETTINGS, startBenchTemporal, type BenchTemporal, type SqliteSettings } from './temporal.js';

const CONCURRENCY = [1, 10, 50];
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

/** The one-activity workflow on the round's server: at 50 and 100 the mean of a round before and one after the orders. */
interface BaselineFigures {
  p50AtOne: number;
  p50AtFifty: number;
  perSecondAtFifty: number;
  perSecondAtHundred: number;
  /** Per workflow at concurrency 100, a reading each before and after the orders. */
  cpuAtHundred: CpuPerUnit[];
}

interface ServerRound {
  sqlite: SqliteSettings;
  orders: OrderFigures[];
  baseline: BaselineFigures;
  cpuPerOrderAtFifty: CpuPerUnit | undefined;
}

/** What every round shares: the database, the provider and the keys; each round brings its own Temporal server. */
interface Engine {
  postgres: { url: string; dataDir: string };
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
  server: BenchTemporal;
  /** Through the encrypting codec, as the engine's own clients are. */
  client: Client;
  /** The baseline as plain Temporal runs it: plain payloads, no codec. */
  plainClient: Client;
  intake: BenchIntake;
  readCpu(): CpuTimes | undefined;
  /** API calls the simulator has served so far. */
  totalCalls(): number;
}

export async function runOrdersBench(options: { sqlite: SqliteSettings[]; rounds: number }): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const engine = await openEngine();
  try {
    const rounds: ServerRound[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      const settings = round % 2 === 1 ? options.sqlite : [...options.sqlite].reverse();
      for (const sqlite of settings) rounds.push(await measureRound(engine, sqlite, `${round}/${options.rounds}`));
    }
    if (rounds.length > 1) printSummary(rounds, options.sqlite);
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
async function measureRound(engine: Engine, sqlite: SqliteSettings, label: string): Promise<ServerRound> {
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const stack = await startRoundStack(engine, sqlite, stops);
    const baseline = baselineRunner(stack);
    // Not reported: warm-ups as deep as the rounds measured. They fill the caches (catalogs, token, connections, the
    // server's), and V8 is still optimising code for each side's first thousand runs or so: a side measured colder
    // looks slower (the baseline measured before the orders did, by 4 to 41 % in three runs, when only 50 runs warmed
    // it).
    await measureOrders(engine, stack, Math.max(...CONCURRENCY));
    await baseline(100, 1000);
    const atOne = await baseline(1, 50);
    // The baseline at 50 and 100 runs before and after the orders, and the ratios are taken against the mean: a
    // machine whose speed drifts during the run (shared cores) weighs on both sides alike.
    const before: BaselinePair = [await baseline(50, ordersAt(50)), await baseline(100, 1000)];
    const measured: MeasuredOrders[] = [];
    for (const concurrency of CONCURRENCY) measured.push(await measureOrders(engine, stack, concurrency));
    const after: BaselinePair = [await baseline(50, ordersAt(50)), await baseline(100, 1000)];
    const result = roundFigures(sqlite, measured, atOne, [before, after]);
    printRound(result, label, stack.server.description, [before, after]);
    return result;
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

/** The round's server, clients, the order worker and the baseline's; each pushes how to stop it onto `stops`. */
async function startRoundStack(
  engine: Engine,
  sqlite: SqliteSettings,
  stops: Array<() => Promise<unknown>>,
): Promise<RoundStack> {
  const server = await startBenchTemporal({ sqlite, log: (line) => process.stderr.write(`${line}\n`) });
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
    readCpu: () => readCpuTimes({ postgresDataDir: engine.postgres.dataDir, temporalPid: server.pid }),
    totalCalls: () => Object.values(engine.sim.state().calls).reduce((sum, count) => sum + count, 0),
  };
}

/** The real order worker and activities on the round's server, its shutdown pushed onto `stops`. */
async function startOrderWorker(
  engine: Engine,
  server: BenchTemporal,
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
}

/** Auto-approved orders at `concurrency`, each submitted as the HTTP API does and followed to BOUGHT. */
async function measureOrders(engine: Engine, stack: RoundStack, concurrency: number): Promise<MeasuredOrders> {
  const e2e: number[] = [];
  const orderIds: string[] = [];
  const total = ordersAt(concurrency);
  const callsBefore = stack.totalCalls();
  const cpuBefore = stack.readCpu();
  const started = performance.now();
  await pool(total, concurrency, async () => {
    const ticketId = engine.newTicketId();
    const t0 = performance.now();
    orderIds.push(await stack.intake.buyAutoApproved(ticketId));
    e2e.push(performance.now() - t0);
  });
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = stack.readCpu();
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
/** The baseline at concurrency 50 and 100, once before or after the orders. */
type BaselinePair = readonly [BaselineRun, BaselineRun];

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

/** The round's figures: the orders, and the baseline at 50 and 100 as the mean of before and after them. */
function roundFigures(
  sqlite: SqliteSettings,
  measured: MeasuredOrders[],
  atOne: OneActivityFigures,
  [before, after]: readonly [BaselinePair, BaselinePair],
): ServerRound {
  const mean = (pick: (pair: BaselinePair) => number) => (pick(before) + pick(after)) / 2;
  return {
    sqlite,
    orders: measured.map(({ figures }) => figures),
    baseline: {
      p50AtOne: atOne.p50,
      p50AtFifty: mean(([fifty]) => fifty.p50),
      perSecondAtFifty: mean(([fifty]) => fifty.perSecond),
      perSecondAtHundred: mean(([, hundred]) => hundred.perSecond),
      cpuAtHundred: [before[1].cpu, after[1].cpu].filter((cpu) => cpu !== undefined),
    },
    cpuPerOrderAtFifty: measured.find(({ figures }) => figures.concurrency === 50)?.cpu,
  };
}

function printRound(
  round: ServerRound,
  label: string,
  server: string,
  baselineRounds: readonly [BaselinePair, BaselinePair],
): void {
  process.stdout.write(
    `\nRound ${label}, ${server}.\nAuto-approved orders end to end (simulator, embedded PostgreSQL; ${ROUNDS} times the concurrency, at least ${MIN_ORDERS}, orders each, kept in flight; warm caches):\n`,
  );
  console.table(round.orders);
  const { baseline } = round;
  const [before, after] = baselineRounds;
  const beforeAndAfter = (index: 0 | 1) =>
    `${before[index].perSecond.toFixed(1)} before the orders, ${after[index].perSecond.toFixed(1)} after`;
  process.stdout.write(
    `Baseline, one-activity workflow on the same server: p50 ${baseline.p50AtOne.toFixed(1)} ms at concurrency 1; ` +
      `p50 ${baseline.p50AtFifty.toFixed(1)} ms and ${baseline.perSecondAtFifty.toFixed(1)} workflows/s at concurrency 50 ` +
      `(${beforeAndAfter(0)}); ${baseline.perSecondAtHundred.toFixed(1)} workflows/s at concurrency 100 ` +
      `(${beforeAndAfter(1)})\n`,
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
}

/** An order's figures against the baseline's of the same round. */
function roundRatios(round: ServerRound) {
  const fifty = orderAt(round, 50);
  return {
    p50AtOne: orderAt(round, 1)['median e2e ms'] / round.baseline.p50AtOne,
    p50AtFifty: fifty['median e2e ms'] / round.baseline.p50AtFifty,
    shareOfFifty: fifty['orders/s'] / round.baseline.perSecondAtFifty,
    shareOfHundred: fifty['orders/s'] / round.baseline.perSecondAtHundred,
  };
}

function orderAt(round: ServerRound, concurrency: number): OrderFigures {
  return round.orders.find((row) => row.concurrency === concurrency)!;
}

/** The medians of the rounds, per SQLite setting; with both, tuned against defaults. */
function printSummary(rounds: ServerRound[], settings: SqliteSettings[]): void {
  const figures = {
    'order p50 at c50, ms': (round: ServerRound) => orderAt(round, 50)['median e2e ms'],
    'one-activity p50 at c50, ms': (round: ServerRound) => round.baseline.p50AtFifty,
    'order p50 / one-activity p50, at c50': (round: ServerRound) => roundRatios(round).p50AtFifty,
    'orders/s at c50': (round: ServerRound) => orderAt(round, 50)['orders/s'],
    'one-activity wf/s at c50': (round: ServerRound) => round.baseline.perSecondAtFifty,
    'orders/s / one-activity wf/s, at c50': (round: ServerRound) => roundRatios(round).shareOfFifty,
    'order p50 at c1, ms': (round: ServerRound) => orderAt(round, 1)['median e2e ms'],
    'order p50 / one-activity p50, at c1': (round: ServerRound) => roundRatios(round).p50AtOne,
    'orders/s at c50 / one-activity wf/s at c100': (round: ServerRound) => roundRatios(round).shareOfHundred,
    'CPU ms per order at c50': (round: ServerRound) => round.cpuPerOrderAtFifty?.total ?? Number.NaN,
  };
  const medianOf = (sqlite: SqliteSettings, figure: (round: ServerRound) => number) =>
    median(rounds.filter((round) => round.sqlite === sqlite).map(figure));
  const count = rounds.filter((round) => round.sqlite === settings[0]).length;
  process.stdout.write(`\nMedians of ${count} rounds per setting (each ratio taken within its round):\n`);
  console.table(
    Object.entries(figures).map(([figure, pick]) => ({
      figure,
      ...Object.fromEntries(settings.map((sqlite) => [`SQLite ${sqlite}`, round2(medianOf(sqlite, pick))])),
      ...(settings.length === 2
        ? { 'tuned / defaults': round2(medianOf('tuned', pick) / medianOf('defaults', pick)) }
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
    ['in all', 'total'],
  ] as const;
  process.stdout.write(
    'CPU ms per order at concurrency 50 and per one-activity workflow at concurrency 100 (/proc):\n',
  );
  console.table(
    parts.map(([label, part]) => ({
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

/** `--sqlite`'s value: one setting, or both (defaults first). */
function sqliteSettings(value: string): SqliteSettings[] {
  if (value === 'both') return [...SQLITE_SETTINGS];
  if ((SQLITE_SETTINGS as readonly string[]).includes(value)) return [value as SqliteSettings];
  throw new Error(`--sqlite must be ${SQLITE_SETTINGS.join(', ')} or both, not ${value}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: { sqlite: { type: 'string', default: 'tuned' }, rounds: { type: 'string', default: '1' } },
  });
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number of at least 1`);
  await runOrdersBench({ sqlite: sqliteSettings(values.sqlite), rounds });
}
