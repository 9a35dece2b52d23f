/**
 * `mve-orders serve` stopped as an orchestrator stops it (SIGTERM), as a real process: it tells the load balancer
 * first (/readyz 503 `draining`), then closes its listener (new connections refused), answers the request it has in
 * flight as usual and exits 0; a request still open when the grace period ends is cut, and it exits 1, saying so.
 */
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import anyTest, { type TestFn } from 'ava';
import { issueApiToken } from '../../client/http/index.js';
import { spawnCli, type CliChild } from '../dev/child.js';
import { engineEnv, runCli } from '../helpers/cli.js';
import { sydneyRequest, startOrderEngine, type OrderEngine } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { rawConnection, tryConnect } from '../helpers/raw-http.js';
import { waitFor } from '../helpers/wait.js';

const test = anyTest as TestFn<{ engine: OrderEngine; env: NodeJS.ProcessEnv; token: string }>;
const pg = usePostgres(test);

test.before(async (t) => {
  // Nothing here needs an order to go on once submitted: no worker.
  const engine = await startOrderEngine(pg, { worker: false });
  t.context.engine = engine;
  t.context.env = { ...engineEnv(engine), MVE_ENVIRONMENTS: 'staging' };
  t.context.token = (await issueApiToken(engine.repository, { owner: 'alice', roles: ['requester'] })).token;
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
});

async function startServe(env: NodeJS.ProcessEnv): Promise<{ server: CliChild; url: string; port: number }> {
  const server = spawnCli(['serve', '--host', '127.0.0.1', '--port', '0'], env);
  const [, url] = await server.waitForOutput(/HTTP API listening on (http:\/\/\S+)/, 60_000);
  return { server, url: url, port: Number(new URL(url).port) };
}

/** Waits until serve has logged a line matching `pattern` (its log is its standard error). */
const logged = (server: CliChild, pattern: RegExp) =>
  waitFor(() => Promise.resolve(pattern.test(server.stderr()) || undefined), 20_000, `serve to log ${pattern}`);

/** An order request sent by hand: its headers and the first half of its body now, the rest when told. */
function halfSentOrder(port: number, token: string, ticketId: string) {
  const body = JSON.stringify(sydneyRequest(ticketId));
  const half = Math.floor(body.length / 2);
  const connection = rawConnection(port);
  connection.socket.write(
    `POST /api/v1/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`,
  );
  return { ...connection, sendRest: () => connection.socket.write(body.slice(half)) };
}

test.serial(
  'SIGTERM: /readyz says draining, the listener closes, the request in flight is answered, exit 0',
  async (t) => {
    const { server, url, port } = await startServe({
      ...t.context.env,
      MVE_SHUTDOWN_DRAIN: '2s',
      MVE_SHUTDOWN_GRACE: '20s',
    });
    const exited = once(server.child, 'exit') as Promise<[code: number | null, signal: NodeJS.Signals | null]>;
    const inFlight = halfSentOrder(port, t.context.token, 'STOP-1');
    // The request has reached its route (the server waits for the rest of its body) before the signal.
    await sleep(500);
    server.child.kill('SIGTERM');

    await logged(server, /draining: \/readyz answers 503; the listener closes in 2 s \(MVE_SHUTDOWN_DRAIN\)/);
    const ready = await fetch(`${url}/readyz`);
    t.is(ready.status, 503);
    t.is(((await ready.json()) as { status: string }).status, 'draining');
    t.is(ready.headers.get('connection'), 'close', 'a keep-alive client is sent to reconnect (elsewhere)');

    await logged(server, /listener closed; 1 connection with requests in flight/);
    t.is(await tryConnect(port), 'ECONNREFUSED', 'no new connection once the listener is closed');

    inFlight.sendRest();
    const { text } = await inFlight.received;
    t.regex(text, /^HTTP\/1\.1 201 /, text);
    t.regex(text, /\r\nconnection: close\r\n/i);
    t.regex(text, /"created":true/);

    const [code] = await exited;
    t.is(code, 0, server.stderr());
    t.regex(server.stdout(), /SIGTERM: stopping the HTTP API/);
    t.regex(server.stderr(), /every request answered/);
    t.is(
      await t.context.engine.records('STOP-1').then((view) => view?.order.status),
      'RECEIVED',
      'the order was taken',
    );
  },
);

test.serial('a request still open when the grace period ends is cut, and serve exits 1 saying so', async (t) => {
  const { server, port } = await startServe({
    ...t.context.env,
    MVE_SHUTDOWN_DRAIN: '0',
    MVE_SHUTDOWN_GRACE: '3s',
    // The route would wait longer for its body than the grace period lasts.
    MVE_REQUEST_TIMEOUT: '30s',
  });
  const exited = once(server.child, 'exit') as Promise<[code: number | null, signal: NodeJS.Signals | null]>;
  const stuck = halfSentOrder(port, t.context.token, 'STOP-2');
  await sleep(500);
  const signalled = Date.now();
  server.child.kill('SIGTERM');

  const { text } = await stuck.received;
  t.is(text, '', 'cut without an answer');
  const [code] = await exited;
  const tookMs = Date.now() - signalled;
  t.is(code, 1, server.stderr());
  t.regex(server.stderr(), /the grace period is over \(3 s, MVE_SHUTDOWN_GRACE\): 1 connection cut unanswered/);
  t.true(tookMs >= 3_000 && tookMs < 15_000, `exited ${tookMs} ms after the signal`);
});

test('a drain not shorter than the grace period, or a time limit that is not a duration, is refused at start', async (t) => {
  const drain = await runCli(['serve', '--port', '0'], {
    env: { ...t.context.env, MVE_SHUTDOWN_DRAIN: '30s', MVE_SHUTDOWN_GRACE: '25s' },
  });
  t.is(drain.code, 2);
  t.regex(drain.stderr, /MVE_SHUTDOWN_DRAIN: must be shorter than MVE_SHUTDOWN_GRACE, which it is part of/);
  const limit = await runCli(['serve', '--port', '0'], { env: { ...t.context.env, MVE_REQUEST_TIMEOUT: 'soon' } });
  t.is(limit.code, 2);
  t.regex(limit.stderr, /MVE_REQUEST_TIMEOUT: must be a positive whole number of milliseconds, or text like "90s"/);
});
