/**
 * No request hangs: over real HTTP, routes made slow for real — PostgreSQL tables locked by a transaction held open,
 * a Temporal frontend that takes connections and never answers, a client that sends its request a little at a time —
 * are answered 503 TIMEOUT with Retry-After within their time (or 408 for headers that never end), logged once, and
 * the server goes on answering; a late result is dropped, and a late write is one the client can safely send again.
 */
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import anyTest, { type TestFn } from 'ava';
import { Client, Connection } from '@temporalio/client';
import { buildApiServer, handlersEnded } from '../../client/http/index.js';
import type { OrderServiceParts } from '../../client/orders/index.js';
import type { ApiOrder, SubmitResult } from '../../client/http-client/index.js';
import { connectDatabase } from '../../infra/db/index.js';
import { waitFor } from '../helpers/wait.js';
import {
  contextWith,
  namedRequest,
  partsOver,
  productsFor,
  startApiEngine,
  waitForApiState,
  type ApiEngine,
  type TestUser,
} from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import { callApi } from '../helpers/api-call.js';
import { json, type ErrorBody } from '../helpers/json.js';
import { rawConnection } from '../helpers/raw-http.js';

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.api = await startApiEngine(pg);
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

type Teardown = { teardown(fn: () => Promise<void>): void };

/** A server on the engine's context (parts of it swapped) with a time limit of `budgetMs`, on a loopback port. */
async function limitedServer(t: Teardown, api: ApiEngine, budgetMs: number, swapped: Partial<OrderServiceParts> = {}) {
  const log: string[] = [];
  const logged = (line: string) => void log.push(line);
  const context = contextWith(api, { ...swapped, log: logged }, { log: logged });
  const temporal = swapped.temporal ?? api.parts.temporal;
  const app = await buildApiServer({
    context,
    requestTimeoutMs: budgetMs,
    readiness: {
      temporal: async () => void (await temporal.connection.workflowService.getSystemInfo({})),
      postgres: async () => void (await api.db.sql`SELECT 1`),
    },
  });
  t.teardown(async () => {
    await app.close();
    // Handlers answered TIMEOUT may still run: their connections must outlive them.
    await handlersEnded(app, 10_000);
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const port = Number(new URL(url).port);
  const call = async (method: string, path: string, body?: unknown, as: TestUser = 'olga') => {
    const started = Date.now();
    const answer = await callApi(url, method, path, { token: api.tokens[as], body });
    return { ...answer, ms: Date.now() - started };
  };
  return { url, port, log, call };
}

/** Takes `table` in an ACCESS EXCLUSIVE lock in a transaction of its own, held until the returned function is called. */
async function lockTable(api: ApiEngine, table: string): Promise<() => Promise<void>> {
  const sql = connectDatabase(api.db.url, { maxConnections: 1 });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const holding = new Promise<void>((resolve) => (locked = resolve));
  const transaction = sql.begin(async (tx) => {
    await tx.unsafe(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    locked();
    await released;
  });
  await holding;
  return async () => {
    release();
    await transaction;
    await sql.end();
  };
}

const isTimeout = (budgetSeconds: number) =>
  new RegExp(
    `^this server could not answer within ${budgetSeconds} s, its time limit for this request; try again in 5 s`,
  );

test.serial(
  'PostgreSQL locked: 503 TIMEOUT with Retry-After within the time, one log line; then answers again',
  async (t) => {
    const { api } = t.context;
    const server = await limitedServer(t, api, 1_000);
    const unlock = await lockTable(api, 'orders');
    try {
      const slow = await server.call('GET', '/api/v1/orders');
      t.is(slow.status, 503, JSON.stringify(slow.body));
      t.is(slow.headers.get('retry-after'), '5');
      t.is(json<ErrorBody>(slow).error.code, 'TIMEOUT');
      t.regex(json<ErrorBody>(slow).error.message, isTimeout(1));
      t.true(slow.ms >= 1_000 && slow.ms < 5_000, `answered after ${slow.ms} ms`);
      // Meanwhile the server answers what does not need the locked table.
      t.is((await fetch(`${server.url}/healthz`)).status, 200);
      t.is((await server.call('GET', '/api/v1/me')).status, 200);
    } finally {
      await unlock();
    }
    t.deepEqual(server.log, ['GET /api/v1/orders: 503, no answer within 1 s (MVE_REQUEST_TIMEOUT)']);
    const again = await server.call('GET', '/api/v1/orders');
    t.is(again.status, 200, JSON.stringify(again.body));
    t.deepEqual(server.log.length, 1, 'the late answer of the first request was dropped without a word');
  },
);

test.serial(
  'a write answered TIMEOUT takes effect late; sent again, it is the same order, never a second',
  async (t) => {
    const { api } = t.context;
    const server = await limitedServer(t, api, 1_000);
    const body = namedRequest('TL-LATE');
    const unlock = await lockTable(api, 'tickets');
    let first;
    try {
      first = await server.call('POST', '/api/v1/orders', body, 'alice');
    } finally {
      await unlock();
    }
    t.is(first.status, 503, JSON.stringify(first.body));
    t.is(json<ErrorBody>(first).error.code, 'TIMEOUT');
    t.regex(
      json<ErrorBody>(first).error.message,
      /the request may still take effect: sending the same request again is safe/,
    );
    // The handler went on once the lock was released: the ticket is registered and its order recorded. Its start at
    // Temporal came after the request's deadline, which Temporal holds to: the order waits to be started.
    const waiting = await waitFor(async () => {
      const order = await api.call('GET', '/api/v1/orders/TL-LATE', { as: 'alice' });
      return order.status === 200 ? json<ApiOrder>(order) : undefined;
    }, 20_000);
    t.like(waiting, { state: 'RECEIVED', source: 'records' });
    t.truthy(waiting.waitingForWorkerSince);
    // Sent again as the answer said: the same order is started (once), and bought once.
    const again = await server.call('POST', '/api/v1/orders', body, 'alice');
    t.is(again.status, 201, JSON.stringify(again.body));
    t.like(again.body, { created: true, order: { orderId: waiting.orderId } });
    await waitForApiState(api, 'TL-LATE', 'BOUGHT');
    const third = await server.call('POST', '/api/v1/orders', body, 'alice');
    t.is(third.status, 200, JSON.stringify(third.body));
    t.false(json<SubmitResult>(third).created);
    t.is(productsFor(api, 'TL-LATE').length, 1);
    t.deepEqual(server.log, ['POST /api/v1/orders: 503, no answer within 1 s (MVE_REQUEST_TIMEOUT)']);
  },
);

test.serial('the order history, which reads a whole workflow history, has four times the time', async (t) => {
  const { api } = t.context;
  const server = await limitedServer(t, api, 1_000);
  t.is((await server.call('POST', '/api/v1/orders', namedRequest('TL-HIST'), 'alice')).status, 201);
  await waitForApiState(api, 'TL-HIST', 'BOUGHT');
  const unlock = await lockTable(api, 'order_notes');
  try {
    // The order itself is read from its workflow, not the locked table: it answers as usual.
    t.is((await server.call('GET', '/api/v1/orders/TL-HIST')).status, 200);
    const history = await server.call('GET', '/api/v1/orders/TL-HIST/history');
    t.is(history.status, 503, JSON.stringify(history.body));
    t.regex(json<ErrorBody>(history).error.message, isTimeout(4));
    t.true(history.ms >= 4_000, `answered after ${history.ms} ms`);
  } finally {
    await unlock();
  }
  t.is((await server.call('GET', '/api/v1/orders/TL-HIST/history')).status, 200);
});

test.serial('a Temporal that takes connections and never answers: 503 with Retry-After within the time', async (t) => {
  const { api } = t.context;
  const body = namedRequest('TL-HOLE', { size: 'MVE 8/32' });
  t.is((await api.call('POST', '/api/v1/orders', { as: 'alice', body })).status, 201);
  await waitForApiState(api, 'TL-HOLE', 'AWAITING_APPROVAL');
  const taken = new Set<Socket>();
  const hole = createServer((socket) => void taken.add(socket));
  await new Promise<void>((resolve) => hole.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    for (const socket of taken) socket.destroy();
    await new Promise<void>((resolve) => hole.close(() => resolve()));
  });
  const address = `127.0.0.1:${(hole.address() as AddressInfo).port}`;
  const connection = Connection.lazy({ address, connectTimeout: '1s' });
  t.teardown(() => connection.close().catch(() => undefined));
  const silent = new Client({ connection, namespace: api.temporal.namespace });
  const server = await limitedServer(t, api, 2_000, partsOver(api, silent));
  const cancel = await server.call('POST', '/api/v1/orders/TL-HOLE/cancel', { reason: 'testing' });
  t.is(cancel.status, 503, JSON.stringify(cancel.body));
  t.is(cancel.headers.get('retry-after'), '5');
  t.false(
    json<ErrorBody>(cancel).error.mayHaveTakenEffect,
    'its read before it got no answer: the cancel was never sent',
  );
  t.true(cancel.ms < 2_000 + 1_000, `answered after ${cancel.ms} ms`);
  t.is((await fetch(`${server.url}/healthz`)).status, 200);
});

test.serial('a body sent a little at a time: 503 TIMEOUT within the time, and the connection is closed', async (t) => {
  const { api } = t.context;
  const server = await limitedServer(t, api, 1_000);
  const { socket, received } = rawConnection(server.port);
  socket.write(
    `POST /api/v1/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${api.tokens.alice}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 4000\r\n\r\n{"ticketId": ',
  );
  const drip = setInterval(() => socket.writable && socket.write(' '), 200);
  const { text, ms } = await received.finally(() => clearInterval(drip));
  t.regex(text, /^HTTP\/1\.1 503 /);
  t.regex(text, /"code":"TIMEOUT"/);
  t.true(ms < 5_000, `closed after ${ms} ms`);
  t.is((await fetch(`${server.url}/healthz`)).status, 200);
});

test.serial('headers that never end: 408 and the connection closed, after twice the time', async (t) => {
  const { api } = t.context;
  const server = await limitedServer(t, api, 1_000);
  const { socket, received } = rawConnection(server.port);
  socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  const drip = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 200);
  const { text, ms } = await received.finally(() => clearInterval(drip));
  t.regex(text, /^HTTP\/1\.1 408 /);
  // Twice the time, found by Node's check every 2 s.
  t.true(ms >= 2_000 && ms < 8_000, `closed after ${ms} ms`);
});
