/**
 * `npm run bench:scale`: the engine with many orders waiting for approval. It runs the `mve-orders dev` stack
 * (bench/scale/stack.ts: an embedded PostgreSQL and `mve-orders dev`, with the real Temporal server under dev),
 * measures with no order parked, parks N orders awaiting a finance approval, and measures again:
 *
 *   - auto-approved orders: orders per second at concurrency C, and their median submit-to-BOUGHT time;
 *   - memory: the Temporal server's RSS, dev's RSS and PostgreSQL's PSS (so its shared buffers count once);
 *   - listing the waiting orders (the median of 5 tries each): through visibility (first page of 100, and every
 *     page), and through the HTTP API (`GET /api/v1/approvals?limit=100`, as a finance approver);
 *   - approving over HTTP: orders just parked (still in the worker's cache), and, with N above the cache,
 *     the oldest parked orders (evicted: the approve replays them).
 *
 *   npm run bench:scale                          N = 10,000 (takes several minutes to park)
 *   npm run bench:scale -- --parked 2000         another N
 *   npm run bench:scale -- --cache 500           the worker's workflow cache (MVE_WORKFLOW_CACHE_SIZE)
 *   npm run -s bench:scale -- --json             the figures as JSON (progress stays on stderr)
 */
import { parseArgs } from 'node:util';
import { DEFAULT_WORKFLOW_CACHE_SIZE } from '../worker/cache.js';
import { postgresPssMiB, rssMiB } from './scale/memory.js';
import { connectOrders } from './scale/orders.js';
import { startScaleStack, type ScaleStack } from './scale/stack.js';
import { percentile } from './stats.js';

const { values } = parseArgs({
  options: {
    parked: { type: 'string', default: '10000' },
    orders: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '20' },
    approvals: { type: 'string', default: '20' },
    cache: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const positive = (name: keyof typeof values) => {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name} must be a whole number of at least 1, not ${values[name]}`);
  return value;
};
const PARKED = positive('parked');
const AUTO_ORDERS = positive('orders');
const CONCURRENCY = positive('concurrency');
const APPROVALS = positive('approvals');
const CACHE = values.cache === undefined ? DEFAULT_WORKFLOW_CACHE_SIZE : positive('cache');

const progress = (line: string) => process.stderr.write(`${line}\n`);

interface Figures {
  parked: number;
  autoOrdersPerSecond: number;
  autoP50Ms: number;
  /** `temporal`: the Temporal server's own process, under dev. */
  rssMiB: { temporal: number; dev: number; postgres: number; total: number };
  visibilityFirstPageMs: number;
  visibilityAllMs: number;
  visibilityListed: number;
  approvalsRouteFirstPageMs: number;
  approveCachedP50Ms: number;
  /** Null while everything parked still fits the worker's cache. */
  approveUncachedP50Ms: number | null;
}

async function main(): Promise<void> {
  progress(`starting the stack (PostgreSQL, dev with a workflow cache of ${CACHE})…`);
  const stack = await startScaleStack({
    workflowCacheSize: CACHE,
    log: (line) => progress(line),
  });
  try {
    const bench = await connect(stack);
    await bench.autoOrders(10, 5); // warms catalogs, token, connections, the bundle's code paths
    const before = await bench.measure(0, APPROVALS);
    await bench.park(PARKED);
    const after = await bench.measure(PARKED, APPROVALS);
    await bench.close();
    report(before, after);
  } finally {
    await stack.stop();
  }
}

async function connect(stack: ScaleStack) {
  const { state } = stack.dev;
  const { autoOrders, park, parkedTickets, listWaiting, close } = await connectOrders(stack, progress);
  const token = (id: string) => state.users.find((user) => user.id === id)!.token;

  async function http(
    method: string,
    route: string,
    as: string,
    body?: unknown,
  ): Promise<{ ms: number; json: unknown }> {
    const t0 = performance.now();
    const response = await fetch(new URL(route, state.http.url), {
      method,
      headers: { authorization: `Bearer ${token(as)}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(json)}`);
    return { ms: performance.now() - t0, json };
  }

  /** Approves the given parked orders one at a time over HTTP, as the finance approver; the median time. */
  async function approve(tickets: string[]): Promise<number> {
    // every parked order is the same request, so one quote (from the approver's inbox) is every order's quote
    const inbox = (await http('GET', '/api/v1/approvals?limit=1', 'fiona')).json as {
      approvals: Array<{ monthlyRate: number; currency: string }>;
    };
    const { monthlyRate, currency } = inbox.approvals[0];
    const times: number[] = [];
    for (const ticketId of tickets)
      times.push((await http('POST', `/api/v1/orders/${ticketId}/approve`, 'fiona', { monthlyRate, currency })).ms);
    times.sort((a, b) => a - b);
    return percentile(times, 50);
  }

  async function measure(parked: number, approvals: number): Promise<Figures> {
    progress(`measuring with ${parked} parked…`);
    const auto = await autoOrders(AUTO_ORDERS, CONCURRENCY);
    const memory = {
      temporal: rssMiB(stack.temporal.pid),
      dev: rssMiB(stack.dev.pid),
      postgres: postgresPssMiB(stack.postgres.dataDir),
    };
    const firstPage = await medianOf(LISTING_REPEATS, () => listWaiting(100, false));
    const all = await medianOf(LISTING_REPEATS, () => listWaiting(1000, true));
    const route = await medianOf(LISTING_REPEATS, () => http('GET', '/api/v1/approvals?limit=100', 'fiona'));
    // Orders parked just now are in the cache; with more parked than the cache holds, the oldest are not.
    const fresh = parked === 0 ? await parkFresh(approvals) : parkedTickets.slice(-approvals);
    const approveCached = await approve(fresh);
    const approveUncached = parked > CACHE + approvals ? await approve(parkedTickets.slice(0, approvals)) : null;
    return {
      parked,
      autoOrdersPerSecond: auto.perSecond,
      autoP50Ms: auto.p50,
      rssMiB: { ...memory, total: memory.temporal + memory.dev + memory.postgres },
      visibilityFirstPageMs: firstPage.ms,
      visibilityAllMs: all.ms,
      visibilityListed: all.listed,
      approvalsRouteFirstPageMs: route.ms,
      approveCachedP50Ms: approveCached,
      approveUncachedP50Ms: approveUncached,
    };
  }

  /** With none parked, a few orders parked for the cached approve (approved at once, so none stays parked). */
  async function parkFresh(count: number): Promise<string[]> {
    await park(count);
    return parkedTickets.splice(-count);
  }

  return { autoOrders, park, measure, close };
}

/** One request's time is noise on this machine: each listing is made this many times and its median kept. */
const LISTING_REPEATS = 5;

/** Runs `measure` `times` times, one after another; the run with the median time. */
async function medianOf<R extends { ms: number }>(times: number, measure: () => Promise<R>): Promise<R> {
  const runs: R[] = [];
  for (let i = 0; i < times; i++) runs.push(await measure());
  return runs.sort((a, b) => a.ms - b.ms)[Math.floor(times / 2)];
}

function report(before: Figures, after: Figures): void {
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ cache: CACHE, before, after }, null, 2)}\n`);
    return;
  }
  const ms = (value: number | null) => (value === null ? 'n/a' : `${value.toFixed(1)} ms`);
  const mib = (value: number | null) => (value === null ? 'n/a' : `${value.toFixed(0)} MiB`);
  const ratio = (value: number) => `${(value * 100).toFixed(0)} %`;
  process.stdout.write(
    `\nbench:scale — ${PARKED} orders parked awaiting approval; worker cache ${CACHE}; auto-approved: ${AUTO_ORDERS} at concurrency ${CONCURRENCY}\n`,
  );
  console.table([
    {
      figure: 'auto-approved orders/s',
      'none parked': before.autoOrdersPerSecond.toFixed(1),
      [`${PARKED} parked`]: after.autoOrdersPerSecond.toFixed(1),
    },
    { figure: 'auto-approved p50', 'none parked': ms(before.autoP50Ms), [`${PARKED} parked`]: ms(after.autoP50Ms) },
    {
      figure: 'RSS temporal server start-dev',
      'none parked': mib(before.rssMiB.temporal),
      [`${PARKED} parked`]: mib(after.rssMiB.temporal),
    },
    {
      figure: 'RSS dev (worker, HTTP API, simulator)',
      'none parked': mib(before.rssMiB.dev),
      [`${PARKED} parked`]: mib(after.rssMiB.dev),
    },
    {
      figure: 'PostgreSQL (PSS)',
      'none parked': mib(before.rssMiB.postgres),
      [`${PARKED} parked`]: mib(after.rssMiB.postgres),
    },
    {
      figure: 'visibility: first page of 100',
      'none parked': ms(before.visibilityFirstPageMs),
      [`${PARKED} parked`]: ms(after.visibilityFirstPageMs),
    },
    {
      figure: `visibility: every waiting order (${after.visibilityListed})`,
      'none parked': ms(before.visibilityAllMs),
      [`${PARKED} parked`]: ms(after.visibilityAllMs),
    },
    {
      figure: 'GET /api/v1/approvals?limit=100',
      'none parked': ms(before.approvalsRouteFirstPageMs),
      [`${PARKED} parked`]: ms(after.approvalsRouteFirstPageMs),
    },
    {
      figure: 'approve (cached order), p50',
      'none parked': ms(before.approveCachedP50Ms),
      [`${PARKED} parked`]: ms(after.approveCachedP50Ms),
    },
    {
      figure: 'approve (evicted order), p50',
      'none parked': 'n/a',
      [`${PARKED} parked`]: ms(after.approveUncachedP50Ms),
    },
  ]);
  const throughputShare = after.autoOrdersPerSecond / before.autoOrdersPerSecond;
  const p50Share = before.autoP50Ms / after.autoP50Ms;
  const uncachedRatio =
    after.approveUncachedP50Ms === null ? null : after.approveUncachedP50Ms / after.approveCachedP50Ms;
  console.table([
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
  ]);
}

await main();
