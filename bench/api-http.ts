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
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { connectDatabase, createRepository, runMigrations } from '../infra/db/index.js';
import { startEmbeddedPostgres } from '../tooling/dev/embedded-postgres.js';
import { writeSimKindMap } from '../tooling/dev/kind-map.js';
import { issueApiToken } from '../client/http/index.js';
import { startApiServer } from '../client/server/index.js';
import { Keyring } from '../codec/index.js';
import { kindMapFromEnv } from '../infra/catalog/index.js';
import { startSimulator } from '../tooling/sim/index.js';
import { runWorker } from '../worker/index.js';
import { autocannon, type AutocannonOptions } from './autocannon.js';
import { percentile } from './stats.js';
import { startBenchTemporal } from './temporal.js';

const CONNECTIONS = 10;
/** Orders read by the GET runs (each kind) and orders approved by the approve run. */
const READ_ORDERS = 20;
const APPROVE_ORDERS = 50;
const HOST = '127.0.0.1';
const TASK_QUEUE = 'bench-http';

export interface Row {
  name: string;
  method: string;
  how: string;
  requests: number;
  /** Median latency, ms. */
  p50Ms: number;
  p99Ms: number;
  /** Requests per second over the run (autocannon: total / duration); null for the sequential approve loop. */
  requestsPerSecond: number | null;
  /** The median of the per-second request counts (autocannon only). */
  medianRequestsPerSecond: number | null;
  failures: number;
  /** p50 against /healthz's p50. */
  p50VsHealthz: number;
  /** Requests per second as a fraction of /healthz's. */
  throughputVsHealthz: number | null;
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

export async function runApiHttpBench(options: {
  durationSeconds: number;
  log: (line: string) => void;
}): Promise<{ rows: Row[]; setup: Record<string, unknown> }> {
  const { log } = options;
  const started = performance.now();
  const stops: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse())
      await stop().catch((error: unknown) => log(`while stopping: ${(error as Error).message}`));
  };
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    // The cluster's folder is not created here: the embedded server creates it, owned by the account it runs as.
    const pgDir = path.join(tmpdir(), `mve-bench-api-http-pg-${process.pid}-${randomBytes(3).toString('hex')}`);
    const postgres = await startEmbeddedPostgres({ dataDir: pgDir, ephemeral: true });
    stops.push(
      () => rm(pgDir, { recursive: true, force: true }),
      () => postgres.stop(),
    );
    const scratch = await mkdtemp(path.join(tmpdir(), 'mve-bench-api-http-'));
    stops.push(() => rm(scratch, { recursive: true, force: true }));

    const sql = connectDatabase(postgres.url);
    stops.push(() => sql.end({ timeout: 5 }));
    await runMigrations(sql);
    const repository = createRepository(sql);
    await repository.addApprover({ id: 'fiona', displayName: 'Fiona (bench)', roles: ['finance-approver'] });
    const token = async (owner: string, roles: string[]) =>
      (await issueApiToken(repository, { owner, roles, description: 'bench' })).token;
    const tokens = { alice: await token('alice', ['requester']), fiona: await token('fiona', ['finance-approver']) };

    const temporal = await startBenchTemporal({ sqlite: 'tuned', log });
    stops.push(() => temporal.stop());
    const sim = await startSimulator({ host: HOST });
    stops.push(() => sim.close());

    const env: NodeJS.ProcessEnv = {
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      MVE_API_BASE_URL: sim.baseUrl,
      MVE_AUTH_URL: sim.authUrl,
      MVE_ENVIRONMENT: sim.environment,
      MVE_CLIENT_ID: sim.clientId,
      MVE_CLIENT_SECRET: sim.clientSecret,
      MVE_KIND_MAP: await writeSimKindMap(scratch),
      // The server's own cost is measured, many requests a second under one token: no per-credential limit.
      MVE_RATE_LIMIT: '0',
      // Bought orders stay BOUGHT, as they were when these figures began: no provisioning follow-up to read.
      MVE_FOLLOW_PROVISIONING: 'false',
    };
    const keyring = Keyring.fromText(`bench:${randomBytes(32).toString('base64')}`);
    const actionKeys = Keyring.fromText(`bench-action:${randomBytes(32).toString('base64')}`, 'bench', 'action keys');
    const worker = await runWorker({
      env,
      temporalAddress: temporal.address,
      databaseUrl: postgres.url,
      keyring,
      actionKeys,
      log: () => undefined,
    });
    stops.push(() => worker.shutdown());
    const api = await startApiServer({
      env,
      temporalAddress: temporal.address,
      databaseUrl: postgres.url,
      codecKeys: keyring,
      actionKeys,
      kindMap: kindMapFromEnv(env),
      host: HOST,
      port: 0,
      log: (line) => log(`[http] ${line}`),
    });
    stops.push(() => api.close());
    const startupSeconds = round((performance.now() - started) / 1000, 1);
    log(
      `stack up in ${startupSeconds} s (API ${api.url}, Temporal ${temporal.address}, policy ${worker.dependencies.policies.version})`,
    );

    const call = async (method: string, urlPath: string, bearer: string, body?: unknown) => {
      const response = await fetch(`${api.url}${urlPath}`, {
        method,
        headers: {
          authorization: `Bearer ${bearer}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${urlPath}: ${response.status} ${text.slice(0, 300)}`);
      return JSON.parse(text) as any;
    };

    // Sydney, 12 months (the simulator's prices): MVE 4/16 is 809.10 AUD, under the default staging policy's
    // auto-approval line (3000 AUD); MVE 16/64 is 3236.40 AUD, which needs one finance approver.
    const example = JSON.parse(
      await readFile(new URL('../examples/k09-license-file-firewall.json', import.meta.url), 'utf8'),
    );
    const run = `${process.pid}`;
    const bought = Array.from({ length: READ_ORDERS }, (_, i) => `BENCH-HTTP-${run}-BOUGHT-${i}`);
    const awaiting = Array.from({ length: READ_ORDERS + APPROVE_ORDERS }, (_, i) => `BENCH-HTTP-${run}-WAIT-${i}`);
    const submit = (ticketId: string, size: string) =>
      call('POST', '/api/v1/orders', tokens.alice, { ...example, ticketId, requestedBy: 'alice', size });
    const submitStarted = performance.now();
    for (let i = 0; i < Math.max(bought.length, awaiting.length); i += 10) {
      await Promise.all([
        ...bought.slice(i, i + 10).map((ticketId) => submit(ticketId, 'MVE 4/16')),
        ...awaiting.slice(i, i + 10).map((ticketId) => submit(ticketId, 'MVE 16/64')),
      ]);
    }
    // Until every order has settled: the bought ones BOUGHT, the others waiting for fiona.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const [boughtPage, waitingPage] = await Promise.all([
        call('GET', `/api/v1/orders?status=BOUGHT&limit=500`, tokens.alice),
        call('GET', `/api/v1/approvals?limit=1000`, tokens.fiona),
      ]);
      const boughtCount = (boughtPage.orders as Array<{ ticketId: string }>).filter((order) =>
        bought.includes(order.ticketId),
      ).length;
      const waitingCount = (waitingPage.approvals as Array<{ ticketId: string }>).filter((item) =>
        awaiting.includes(item.ticketId),
      ).length;
      if (boughtCount === bought.length && waitingCount === awaiting.length) break;
      if (Date.now() > deadline)
        throw new Error(
          `orders did not settle within 60 s: ${boughtCount}/${bought.length} bought, ${waitingCount}/${awaiting.length} awaiting approval`,
        );
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const settleSeconds = round((performance.now() - submitStarted) / 1000, 1);
    log(`${bought.length + awaiting.length} orders submitted and settled in ${settleSeconds} s`);

    // Latencies are taken from autocannon's per-response event (sub-millisecond; its own histogram counts whole
    // milliseconds, which rounds /healthz to 0), 2xx responses only, after a 2 s warm-up that is not counted.
    const load = async (
      name: string,
      requests: AutocannonOptions['requests'],
      headers: Record<string, string> = {},
    ): Promise<Omit<Row, 'p50VsHealthz' | 'throughputVsHealthz'>> => {
      log(`autocannon: ${name} (${CONNECTIONS} connections, ${options.durationSeconds} s after a 2 s warm-up)`);
      const latencies: number[] = [];
      const running = autocannon({
        url: api.url,
        connections: CONNECTIONS,
        duration: options.durationSeconds,
        warmup: { connections: CONNECTIONS, duration: 2 },
        headers,
        ...(requests ? { requests } : {}),
      });
      running.on('response', (_client, statusCode, _bytes, milliseconds) => {
        if (statusCode >= 200 && statusCode < 300) latencies.push(milliseconds);
      });
      const result = await running;
      latencies.sort((a, b) => a - b);
      return {
        name,
        method: 'GET',
        how: `autocannon in this process, ${CONNECTIONS} connections, ${options.durationSeconds} s (+2 s warm-up)`,
        requests: result.requests.total,
        p50Ms: round(percentile(latencies, 50), 3),
        p99Ms: round(percentile(latencies, 99), 3),
        requestsPerSecond: round(result.requests.total / result.duration, 0),
        medianRequestsPerSecond: result.requests.p50,
        failures: result.errors + result.timeouts + result.non2xx,
      };
    };
    const auth = { authorization: `Bearer ${tokens.fiona}` };
    const rotate = (tickets: string[]) =>
      tickets.map((ticketId) => ({ method: 'GET', path: `/api/v1/orders/${ticketId}` }));
    const measured: Array<Omit<Row, 'p50VsHealthz' | 'throughputVsHealthz'>> = [
      await load('GET /healthz', [{ method: 'GET', path: '/healthz' }]),
      await load('GET /api/v1/orders/{ticketId} (awaiting approval)', rotate(awaiting.slice(0, READ_ORDERS)), auth),
      await load('GET /api/v1/orders/{ticketId} (bought, workflow closed)', rotate(bought), auth),
    ];

    // Approve: each of the orders left waiting, once, one call at a time; the quote is read beforehand.
    const inbox = (await call('GET', '/api/v1/approvals?limit=1000', tokens.fiona)).approvals as Array<{
      ticketId: string;
      monthlyRate: number;
      currency: string;
    }>;
    const toApprove = inbox.filter((item) => awaiting.slice(READ_ORDERS).includes(item.ticketId));
    log(`approving ${toApprove.length} orders, one HTTP call at a time`);
    const approveMs: number[] = [];
    let approveFailures = 0;
    for (const item of toApprove) {
      const t0 = performance.now();
      try {
        const result = await call('POST', `/api/v1/orders/${item.ticketId}/approve`, tokens.fiona, {
          monthlyRate: item.monthlyRate,
          currency: item.currency,
        });
        if (!Array.isArray(result.approvedBy) || !result.approvedBy.includes('fiona')) approveFailures++;
      } catch (error) {
        approveFailures++;
        log((error as Error).message);
      }
      approveMs.push(performance.now() - t0);
    }
    approveMs.sort((a, b) => a - b);
    measured.push({
      name: 'POST /api/v1/orders/{ticketId}/approve',
      method: 'POST',
      how: `timed loop of real HTTP calls, sequential, ${toApprove.length} orders once each`,
      requests: approveMs.length,
      p50Ms: round(percentile(approveMs, 50)),
      p99Ms: round(percentile(approveMs, 99)),
      requestsPerSecond: null,
      medianRequestsPerSecond: null,
      failures: approveFailures,
    });

    const baseline = measured[0]!;
    const rows: Row[] = measured.map((row) => ({
      ...row,
      p50VsHealthz: round(row.p50Ms / baseline.p50Ms, 1),
      throughputVsHealthz:
        row.requestsPerSecond === null ? null : round(row.requestsPerSecond / baseline.requestsPerSecond!, 3),
    }));
    return {
      rows,
      setup: {
        node: process.version,
        connections: CONNECTIONS,
        durationSeconds: options.durationSeconds,
        ordersRead: READ_ORDERS,
        ordersApproved: toApprove.length,
        startupSeconds,
        settleSeconds,
        totalSeconds: round((performance.now() - started) / 1000, 1),
      },
    };
  } finally {
    await stopAll();
  }
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
      `HTTP API latency and throughput, whole stack on loopback (${setup['totalSeconds']} s in all):\n`,
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
