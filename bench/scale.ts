/**
 * `npm run bench:scale`: the engine with many orders waiting for approval. It runs the `mve-orders dev` stack
 * (bench/scale/stack.ts: an embedded PostgreSQL and `mve-orders dev`, with the real Temporal server under dev),
 * measures with no order parked, parks N orders awaiting a finance approval, and measures again:
 *
 *   - auto-approved orders: orders per second at concurrency C, and their median submit-to-BOUGHT time;
 *   - memory: the Temporal server's RSS, dev's RSS and PostgreSQL's PSS (so its shared buffers count once), and each
 *     process's RSS and PSS; what the state takes on disk (the product's database, Temporal's) (scale/footprint.ts);
 *   - listing the waiting orders (the median of 5 tries each): through visibility (first page of 100, and every
 *     page), and through the HTTP API (`GET /api/v1/approvals?limit=100`, as a finance approver);
 *   - approving over HTTP: orders just parked (still in the worker's cache), and, with N above the cache,
 *     the oldest parked orders (evicted: the approve replays them); the very oldest is also followed to BOUGHT.
 *
 * On `--temporal cluster`, dev runs on a Temporal cluster shaped like production (bench/cluster.ts) with a PostgreSQL
 * of its own; `both` runs the whole bench on each in turn.
 *
 *   npm run bench:scale                          N = 10,000 (takes several minutes to park)
 *   npm run bench:scale -- --parked 2000         another N
 *   npm run bench:scale -- --cache 500           the worker's workflow cache (MVE_WORKFLOW_CACHE_SIZE)
 *   npm run -s bench:scale -- --json             the figures as JSON (progress stays on stderr)
 *   npm run bench:scale -- --temporal cluster    on the cluster
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { DEFAULT_WORKFLOW_CACHE_SIZE } from '../worker/cache.js';
import { readFootprint, type Footprint } from './scale/footprint.js';
import { ScaleOrders } from './scale/orders.js';
import { startScaleStack, type ScaleStack } from './scale/stack.js';
import { percentile } from './stats.js';
import { TEMPORAL_OPTION_HELP, temporalKinds, type TemporalKind } from './temporal-choice.js';

const USAGE = `npm run bench:scale -- [options]
  ${TEMPORAL_OPTION_HELP}
  --parked <n>            orders parked awaiting approval (default 10000)
  --orders <n>            auto-approved orders measured each time (default 200), at --concurrency <n> (default 20)
  --approvals <n>         orders approved for each approve figure (default 20)
  --cache <n>             the worker's workflow cache (default ${DEFAULT_WORKFLOW_CACHE_SIZE})
  --json                  the figures as JSON (progress stays on stderr)
  --help                  this text`;

const { values } = parseArgs({
  options: {
    temporal: { type: 'string', default: 'start-dev' },
    parked: { type: 'string', default: '10000' },
    orders: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '20' },
    approvals: { type: 'string', default: '20' },
    cache: { type: 'string' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
const positive = (name: keyof typeof values) => {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name} must be a whole number of at least 1, not ${values[name]}`);
  return value;
};
let settings: { kinds: TemporalKind[]; parked: number; orders: number; concurrency: number; approvals: number };
try {
  settings = {
    kinds: temporalKinds(values.temporal),
    parked: positive('parked'),
    orders: positive('orders'),
    concurrency: positive('concurrency'),
    approvals: positive('approvals'),
  };
} catch (error) {
  process.stderr.write(`bench:scale: ${(error as Error).message}\n\n${USAGE}\n`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const PARKED = settings.parked;
const AUTO_ORDERS = settings.orders;
const CONCURRENCY = settings.concurrency;
const APPROVALS = settings.approvals;
const CACHE = values.cache === undefined ? DEFAULT_WORKFLOW_CACHE_SIZE : positive('cache');

const progress = (line: string) => process.stderr.write(`${line}\n`);

interface Figures {
  parked: number;
  autoOrdersPerSecond: number;
  autoP50Ms: number;
  /** `temporal`: start-dev's own process (under dev), or the cluster's processes (PSS): scale/footprint.ts. */
  rssMiB: Footprint['rssMiB'];
  /** Each process of the stack. */
  processes: Footprint['processes'];
  storageMiB: Footprint['storageMiB'];
  visibilityFirstPageMs: number;
  visibilityAllMs: number;
  visibilityListed: number;
  approvalsRouteFirstPageMs: number;
  approveCachedP50Ms: number;
  /** Null while everything parked still fits the worker's cache. */
  approveUncachedP50Ms: number | null;
  /** The oldest parked order, approved over HTTP and followed to BOUGHT; null with none parked. */
  oldestApprovedToBoughtMs: number | null;
}

/** One run of the bench on one Temporal. */
interface Run {
  temporal: { kind: TemporalKind; processes: string[]; parkSeconds: number };
  before: Figures;
  after: Figures;
}

async function main(): Promise<void> {
  const runs: Run[] = [];
  for (const kind of settings.kinds) {
    runs.push(await runOn(kind));
    if (!values.json) report(runs.at(-1)!);
  }
  if (values.json) {
    const json = runs.map((run) => ({ cache: CACHE, ...run }));
    process.stdout.write(`${JSON.stringify(json.length === 1 ? json[0] : json, null, 2)}\n`);
  }
}

async function runOn(kind: TemporalKind): Promise<Run> {
  progress(`starting the stack (PostgreSQL, Temporal ${kind}, dev with a workflow cache of ${CACHE})…`);
  const stack = await startScaleStack({ temporal: kind, workflowCacheSize: CACHE, log: (line) => progress(line) });
  try {
    const orders = await ScaleOrders.connect(stack, progress);
    await orders.autoOrders(10, 5); // warms catalogs, token, connections, the bundle's code paths
    const before = await measure(stack, orders, 0, APPROVALS);
    const { seconds } = await orders.park(PARKED);
    const after = await measure(stack, orders, PARKED, APPROVALS);
    await orders.close();
    const processes = stack.temporal.processes.map(({ name, pid }) => `${name} (pid ${pid})`);
    return { temporal: { kind, processes, parkSeconds: Math.round(seconds) }, before, after };
  } finally {
    await stack.stop();
  }
}

/** Every figure once, with `parked` orders waiting; `approvals` orders approved for each approve figure. */
async function measure(stack: ScaleStack, orders: ScaleOrders, parked: number, approvals: number): Promise<Figures> {
  progress(`measuring with ${parked} parked…`);
  const { parkedTickets } = orders;
  const http = devHttp(stack);
  const auto = await orders.autoOrders(AUTO_ORDERS, CONCURRENCY);
  const footprint = await readFootprint(stack);
  const firstPage = await medianOf(LISTING_REPEATS, () => orders.listWaiting(100, false));
  const all = await medianOf(LISTING_REPEATS, () => orders.listWaiting(1000, true));
  const route = await medianOf(LISTING_REPEATS, () => http('GET', '/api/v1/approvals?limit=100', 'fiona'));
  // Orders parked just now are in the cache; with more parked than the cache holds, the oldest are not. With none
  // parked, a few are parked for the cached approve (approved at once, so none stays parked).
  const fresh = parked === 0 ? await parkFresh(orders, approvals) : parkedTickets.slice(-approvals);
  const approveCached = await approve(http, fresh);
  const oldest = parked === 0 ? null : await approveToBought(http, orders, parkedTickets.shift()!);
  const approveUncached = parked > CACHE + approvals ? await approve(http, parkedTickets.slice(0, approvals)) : null;
  return {
    parked,
    autoOrdersPerSecond: auto.perSecond,
    autoP50Ms: auto.p50,
    ...footprint,
    visibilityFirstPageMs: firstPage.ms,
    visibilityAllMs: all.ms,
    visibilityListed: all.listed,
    approvalsRouteFirstPageMs: route.ms,
    approveCachedP50Ms: approveCached,
    approveUncachedP50Ms: approveUncached,
    oldestApprovedToBoughtMs: oldest,
  };
}

async function parkFresh(orders: ScaleOrders, count: number): Promise<string[]> {
  await orders.park(count);
  return orders.parkedTickets.splice(-count);
}

/** A timed call to dev's HTTP API as one of dev's users: the time and the JSON answer; an error status throws. */
type Http = (method: string, route: string, as: string, body?: unknown) => Promise<{ ms: number; json: unknown }>;

function devHttp(stack: ScaleStack): Http {
  const { state } = stack.dev;
  const token = (id: string) => state.users.find((user) => user.id === id)!.token;
  return async (method, route, as, body) => {
    const t0 = performance.now();
    const response = await fetch(new URL(route, state.http.url), {
      method,
      headers: { authorization: `Bearer ${token(as)}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json: unknown = await response.json();
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(json)}`);
    return { ms: performance.now() - t0, json };
  };
}

const inboxPage = z.object({
  approvals: z.array(z.object({ monthlyRate: z.number().nullable(), currency: z.string().nullable() })),
});

/** Every parked order is the same request, so one quote (from the approver's inbox) is every order's quote. */
async function inboxQuote(http: Http): Promise<{ monthlyRate: number | null; currency: string | null }> {
  const inbox = inboxPage.parse((await http('GET', '/api/v1/approvals?limit=1', 'fiona')).json);
  const { monthlyRate, currency } = inbox.approvals[0];
  return { monthlyRate, currency };
}

/** Approves the given parked orders one at a time over HTTP, as the finance approver; the median time. */
async function approve(http: Http, tickets: string[]): Promise<number> {
  const quote = await inboxQuote(http);
  const times: number[] = [];
  for (const ticketId of tickets)
    times.push((await http('POST', `/api/v1/orders/${ticketId}/approve`, 'fiona', quote)).ms);
  times.sort((a, b) => a - b);
  return percentile(times, 50);
}

/** Approves one parked order over HTTP and follows it to BOUGHT: the time from the approve to BOUGHT. */
async function approveToBought(http: Http, orders: ScaleOrders, ticketId: string): Promise<number> {
  const quote = await inboxQuote(http);
  const t0 = performance.now();
  await http('POST', `/api/v1/orders/${ticketId}/approve`, 'fiona', quote);
  await orders.untilBought(ticketId);
  return performance.now() - t0;
}

/** One request's time is noise on this machine: each listing is made this many times and its median kept. */
const LISTING_REPEATS = 5;

/** Runs `measure` `times` times, one after another; the run with the median time. */
async function medianOf<R extends { ms: number }>(times: number, measure: () => Promise<R>): Promise<R> {
  const runs: R[] = [];
  for (let i = 0; i < times; i++) runs.push(await measure());
  return runs.sort((a, b) => a.ms - b.ms)[Math.floor(times / 2)];
}

function report({ temporal, before, after }: Run): void {
  process.stdout.write(
    `\nbench:scale — Temporal ${temporal.kind}; ${PARKED} orders parked awaiting approval (in ${temporal.parkSeconds} s); worker cache ${CACHE}; auto-approved: ${AUTO_ORDERS} at concurrency ${CONCURRENCY}\n`,
  );
  console.table(figureRows(temporal.kind, before, after));
  console.table(targetRows(before, after));
  process.stdout.write('Each process (RSS; PSS: pages shared between processes counted once):\n');
  console.table(processRows(before, after));
}

/** Each process's RSS and PSS, with none parked and with PARKED parked. */
function processRows(before: Figures, after: Figures): Array<Record<string, string | number>> {
  return after.processes.map((row, at) => ({
    process: row.process,
    processes: row.processes,
    'RSS, none parked': mib(before.processes[at]['RSS MiB']),
    'PSS, none parked': mib(before.processes[at]['PSS MiB']),
    [`RSS, ${PARKED} parked`]: mib(row['RSS MiB']),
    [`PSS, ${PARKED} parked`]: mib(row['PSS MiB']),
  }));
}

const ms = (value: number | null) => (value === null ? 'n/a' : `${value.toFixed(1)} ms`);
const mib = (value: number | null) => (value === null ? 'n/a' : `${value.toFixed(0)} MiB`);
const ratio = (value: number) => `${(value * 100).toFixed(0)} %`;

/** Each figure with none parked and with PARKED parked. */
function figureRows(kind: TemporalKind, before: Figures, after: Figures): Array<Record<string, string>> {
  const row = (figure: string, none: string, parked: string) => ({
    figure,
    'none parked': none,
    [`${PARKED} parked`]: parked,
  });
  const both = (figure: string, format: (value: number) => string, pick: (figures: Figures) => number) =>
    row(figure, format(pick(before)), format(pick(after)));
  const perSecond = (value: number) => value.toFixed(1);
  return [
    both('auto-approved orders/s', perSecond, (figures) => figures.autoOrdersPerSecond),
    both('auto-approved p50', ms, (figures) => figures.autoP50Ms),
    kind === 'cluster'
      ? both("Temporal cluster's processes (PSS)", mib, (figures) => figures.rssMiB.temporal)
      : both('RSS temporal server start-dev', mib, (figures) => figures.rssMiB.temporal),
    both('RSS dev (worker, HTTP API, simulator)', mib, (figures) => figures.rssMiB.dev),
    both('PostgreSQL (PSS)', mib, (figures) => figures.rssMiB.postgres),
    ...(kind === 'cluster'
      ? [both("Temporal's PostgreSQL (PSS)", mib, (figures) => figures.rssMiB.temporalPostgres ?? 0)]
      : []),
    ...Object.keys(after.storageMiB).map((part) =>
      both(`on disk: ${STORAGE_LABELS[part] ?? part}`, mib, (figures) => figures.storageMiB[part]),
    ),
    both('visibility: first page of 100', ms, (figures) => figures.visibilityFirstPageMs),
    both(`visibility: every waiting order (${after.visibilityListed})`, ms, (figures) => figures.visibilityAllMs),
    both('GET /api/v1/approvals?limit=100', ms, (figures) => figures.approvalsRouteFirstPageMs),
    both('approve (cached order), p50', ms, (figures) => figures.approveCachedP50Ms),
    row('approve (evicted order), p50', 'n/a', ms(after.approveUncachedP50Ms)),
    row('oldest parked order: approve to BOUGHT', 'n/a', ms(after.oldestApprovedToBoughtMs)),
  ];
}

const STORAGE_LABELS: Record<string, string> = {
  product: "the product's database",
  temporal: "Temporal's database (temporal)",
  temporalVisibility: "Temporal's visibility database (temporal_visibility)",
  temporalSqlite: "start-dev's SQLite file and WAL",
};

/** The targets, with PARKED parked (against none parked where the target is a share). */
function targetRows(before: Figures, after: Figures) {
  const throughputShare = after.autoOrdersPerSecond / before.autoOrdersPerSecond;
  const p50Share = before.autoP50Ms / after.autoP50Ms;
  const uncachedRatio =
    after.approveUncachedP50Ms === null ? null : after.approveUncachedP50Ms / after.approveCachedP50Ms;
  return [
    {
      target: 'auto-approved orders/s kept',
      measured: ratio(throughputShare),
      goal: '>= 80 %',
      met: throughputShare >= 0.8,
    },
    {
      target: 'auto-approved p50 kept (none / parked)',
      measured: ratio(p50Share),
      goal: '>= 80 %',
      met: p50Share >= 0.8,
    },
    {
      target: 'whole stack memory',
      measured: mib(after.rssMiB.total),
      goal: '< 1024 MiB',
      met: after.rssMiB.total < 1024,
    },
    {
      target: 'visibility first page',
      measured: ms(after.visibilityFirstPageMs),
      goal: '<= 100 ms',
      met: after.visibilityFirstPageMs <= 100,
    },
    {
      target: 'visibility, all waiting',
      measured: ms(after.visibilityAllMs),
      goal: '<= 1000 ms',
      met: after.visibilityAllMs <= 1000,
    },
    {
      target: 'approvals route, first page',
      measured: ms(after.approvalsRouteFirstPageMs),
      goal: '<= 100 ms',
      met: after.approvalsRouteFirstPageMs <= 100,
    },
    {
      target: 'approve evicted / cached',
      measured:
        uncachedRatio === null ? `n/a (${PARKED} parked fit the cache of ${CACHE})` : `${uncachedRatio.toFixed(2)}x`,
      goal: '<= 3x',
      met: uncachedRatio === null ? 'n/a' : uncachedRatio <= 3,
    },
  ];
}

await main();
