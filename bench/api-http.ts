/**
 * The HTTP API under load, with the whole stack as `mve-orders dev` runs it: an embedded PostgreSQL (temporary
 * cluster), the real Temporal server (`temporal server start-dev`, durable with dev's SQLite settings in a scratch
 * folder: bench/temporal.ts), and in this process the API simulator, the real worker (runWorker,
 * default approval policy) and the real API server (startApiServer, API tokens in Postgres). Measured:
 *
 *   - GET /healthz: the server's own floor (routing, hooks, metrics, JSON), the baseline for the rest;
 *   - GET /api/v1/orders/{ticketId} of an order awaiting approval (token check in Postgres, a workflow query
 *     answered by the worker's cached workflow) and of a bought order (its workflow has closed: the query
 *     replays its history on the worker);
 *   both with autocannon (programmatic, in this process), 10 connections for ~10 s each (after a 2 s warm-up),
 *   rotating over 20 orders;
 *   - POST /api/v1/orders/{ticketId}/approve: 50 orders awaiting one approval, each approved once by a timed
 *     loop of real HTTP calls, one at a time (token, status query, directory lookup, a signed workflow update).
 *
 *   npm run bench:api-http                    a table (medians, p99, and each row against /healthz)
 *   npm run -s bench:api-http -- --json       the same figures as JSON (-s: without npm's banner on stdout)
 *   npm run bench:api-http -- --duration 5    seconds per autocannon run (default 10)
 */
import { pathToFileURL } from 'node:url';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { CONNECTIONS, loadRoute, measureApprovals, round, type Measured } from './api-http/measure.js';
import { apiCaller, placeOrders, READ_ORDERS } from './api-http/orders.js';
import { startHttpStack, type Stops } from './api-http/stack.js';

export interface Row extends Measured {
  /** p50 against /healthz's p50. */
  p50VsHealthz: number;
  /** Requests per second as a fraction of /healthz's. */
  throughputVsHealthz: number | null;
}

export interface Setup {
  node: string;
  connections: number;
  durationSeconds: number;
  ordersRead: number;
  ordersApproved: number;
  startupSeconds: number;
  settleSeconds: number;
  totalSeconds: number;
}

export async function runApiHttpBench(options: {
  durationSeconds: number;
  log: (line: string) => void;
}): Promise<{ rows: Row[]; setup: Setup }> {
  const { durationSeconds, log } = options;
  const started = performance.now();
  const seconds = () => round((performance.now() - started) / 1000, 1);
  const stops: Stops = [];
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    const stack = await startHttpStack(log, stops);
    const startupSeconds = seconds();
    log(`stack up in ${startupSeconds} s (${stack.description})`);
    const call = apiCaller(stack.apiUrl);
    const { bought, awaiting, settleSeconds } = await placeOrders(call, stack.tokens);
    log(`${bought.length + awaiting.length} orders submitted and settled in ${settleSeconds} s`);

    const target = { apiUrl: stack.apiUrl, durationSeconds, log };
    const auth = { authorization: `Bearer ${stack.tokens.fiona}` };
    const rotate = (tickets: string[]) =>
      tickets.map((ticketId) => ({ method: 'GET', path: `/api/v1/orders/${ticketId}` }));
    const measured: Measured[] = [
      await loadRoute(target, 'GET /healthz', [{ method: 'GET', path: '/healthz' }]),
      await loadRoute(
        target,
        'GET /api/v1/orders/{ticketId} (awaiting approval)',
        rotate(awaiting.slice(0, READ_ORDERS)),
        auth,
      ),
      await loadRoute(target, 'GET /api/v1/orders/{ticketId} (bought, workflow closed)', rotate(bought), auth),
    ];
    const approvals = await measureApprovals(call, stack.tokens, awaiting.slice(READ_ORDERS), log);
    measured.push(approvals);
    return {
      rows: againstHealthz(measured),
      setup: {
        node: process.version,
        connections: CONNECTIONS,
        durationSeconds,
        ordersRead: READ_ORDERS,
        ordersApproved: approvals.requests,
        startupSeconds,
        settleSeconds,
        totalSeconds: seconds(),
      },
    };
  } finally {
    await stopAll(stops, log);
  }
}

/** Each route against the first, /healthz: the server's own floor. */
function againstHealthz(measured: Measured[]): Row[] {
  const [baseline] = measured;
  return measured.map((row) => ({
    ...row,
    p50VsHealthz: round(row.p50Ms / baseline.p50Ms, 1),
    throughputVsHealthz:
      row.requestsPerSecond === null || baseline.requestsPerSecond === null
        ? null
        : round(row.requestsPerSecond / baseline.requestsPerSecond, 3),
  }));
}

/** Everything started, last first; a part that fails to stop is told, and the rest still stop. */
async function stopAll(stops: Stops, log: (line: string) => void): Promise<void> {
  for (const stop of stops.splice(0).reverse())
    await stop().catch((error: unknown) =>
      log(`while stopping: ${error instanceof Error ? error.message : String(error)}`),
    );
}

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const json = process.argv.includes('--json');
  const durationSeconds = Number(argument('--duration') ?? 10);
  if (!Number.isFinite(durationSeconds) || durationSeconds <= 0) throw new Error('--duration: seconds, greater than 0');
  // Progress to stderr, so that --json leaves stdout to the JSON alone.
  const { rows, setup } = await runApiHttpBench({ durationSeconds, log: (line) => process.stderr.write(`${line}\n`) });
  if (json) {
    process.stdout.write(`${JSON.stringify({ benchmark: 'api-http', setup, rows }, null, 2)}\n`);
  } else {
    process.stdout.write(
      `HTTP API latency and throughput, whole stack on loopback (${setup.totalSeconds} s in all):\n`,
    );
    console.table(
      rows.map((row) => ({
        request: row.name,
        'p50 ms': row.p50Ms,
        'p99 ms': row.p99Ms,
        'req/s': row.requestsPerSecond ?? '-',
        'median req/s': row.medianRequestsPerSecond ?? '-',
        'p50 × healthz': row.p50VsHealthz,
        'req/s ÷ healthz': row.throughputVsHealthz ?? '-',
        requests: row.requests,
        failures: row.failures,
      })),
    );
    process.stdout.write(`${rows.map((row) => `  ${row.name}: ${row.how}`).join('\n')}\n`);
  }
  process.exitCode = rows.some((row) => row.failures > 0) ? 1 : 0;
}
