import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { ApplicationFailure } from '@temporalio/common';
import { Secret } from '../../infra/ordering-api/index.js';
import { callbackPolicyFromEnv } from '../../activities/order/index.js';
import { createNotifyActivity } from '../../activities/order/notify.js';
import type { TicketNotification } from '../../workflows/order/activity-types.js';
import { usePostgres } from '../helpers/postgres.js';
import { orderOf, startOrderEngine, sydneyRequest, type OrderEngine } from '../helpers/orders.js';

// Where ticket-system callbacks may go, and that an order's end never waits long on a ticket system.

const test = anyTest as TestFn<{ engine: OrderEngine }>;
const pg = usePostgres(test);

const NOTIFICATION: TicketNotification = {
  workflowId: 'mve-order-CB',
  ticketId: 'CB',
  seq: 1,
  at: new Date(0).toISOString(),
  state: 'RECEIVED',
  event: 'received',
  message: 'order received',
};

function notifier(env: NodeJS.ProcessEnv) {
  return createNotifyActivity({
    callbackSecret: new Secret('s'),
    timeoutMs: 2_000,
    callbackPolicy: callbackPolicyFromEnv(env),
    now: Date.now,
  });
}

/** A loopback HTTP server answering `status` (with a Location when it is a redirect); counts what it got. */
async function receiver(status: number, location?: string) {
  const hits: IncomingMessage[] = [];
  const server = createServer((request, response) => {
    hits.push(request);
    request.resume();
    response.writeHead(status, location ? { location } : {}).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { port, hits, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function refusal(t: ExecutionContext<unknown>, promise: Promise<unknown>): Promise<ApplicationFailure> {
  return (await t.throwsAsync(promise, { instanceOf: ApplicationFailure })) as ApplicationFailure;
}

test('plain http is refused outside dev; internal addresses are refused unless their network is allowed', async (t) => {
  const target = await receiver(204);
  t.teardown(target.close);
  const strict = notifier({});
  const http = await refusal(
    t,
    strict.notifyTicketSystem({ callbackUrl: `http://127.0.0.1:${target.port}/t`, notification: NOTIFICATION }),
  );
  t.is(http.type, 'CallbackRefusedByPolicy');
  t.true(http.nonRetryable);
  t.regex(http.message, /https URLs only/);

  const httpOnly = notifier({ MVE_CALLBACK_ALLOW_HTTP: 'true' });
  for (const url of [
    `http://127.0.0.1:${target.port}/t`,
    `http://localhost:${target.port}/t`,
    'http://169.254.169.254/latest/meta-data/',
    'http://10.1.2.3/t',
    'http://[::1]:9/t',
  ]) {
    const refused = await refusal(t, httpOnly.notifyTicketSystem({ callbackUrl: url, notification: NOTIFICATION }));
    t.is(refused.type, 'CallbackRefusedByPolicy', url);
    t.regex(refused.message, /private, loopback or link-local address.*MVE_CALLBACK_ALLOWED_NETWORKS/, url);
  }
  t.is(target.hits.length, 0, 'nothing reached the internal address');

  const allowed = notifier({ MVE_CALLBACK_ALLOW_HTTP: 'true', MVE_CALLBACK_ALLOWED_NETWORKS: '127.0.0.0/8' });
  await allowed.notifyTicketSystem({ callbackUrl: `http://localhost:${target.port}/t`, notification: NOTIFICATION });
  t.is(target.hits.length, 1);
  t.regex(String(target.hits[0]!.headers['x-mve-signature']), /^v1=[0-9a-f]{64}$/);
});

test('a redirect is not followed: the callback fails for good, naming where it was sent', async (t) => {
  const elsewhere = await receiver(204);
  const redirecting = await receiver(302, `http://127.0.0.1:${elsewhere.port}/internal`);
  t.teardown(elsewhere.close);
  t.teardown(redirecting.close);
  const allowed = notifier({ MVE_CALLBACK_ALLOW_HTTP: 'true', MVE_CALLBACK_ALLOWED_NETWORKS: '127.0.0.1' });
  const refused = await refusal(
    t,
    allowed.notifyTicketSystem({ callbackUrl: `http://127.0.0.1:${redirecting.port}/t`, notification: NOTIFICATION }),
  );
  t.is(refused.type, 'CallbackRedirected');
  t.true(refused.nonRetryable);
  t.regex(refused.message, /redirect \(302 to http:\/\/127\.0\.0\.1:\d+\/internal\)/);
  t.is(elsewhere.hits.length, 0);
});

test('a bad allowed-networks entry names the variable and the rule', (t) => {
  const error = t.throws(() => callbackPolicyFromEnv({ MVE_CALLBACK_ALLOWED_NETWORKS: '10.0.0.0/33' }));
  t.regex(error!.message, /MVE_CALLBACK_ALLOWED_NETWORKS: "10\.0\.0\.0\/33" must be an address or a CIDR network/);
});

test.serial('an order that ends does not wait on a ticket system that never takes its notifications', async (t) => {
  const engine = await startOrderEngine(pg);
  t.teardown(() => engine.stop());
  const failing = await receiver(503);
  t.teardown(failing.close);
  const submitted = await engine.submit(
    sydneyRequest('CB-END-1', { size: 'MVE 4/16', callbackUrl: `http://127.0.0.1:${failing.port}/t` }),
  );
  const outcome = await engine.orders.result(orderOf('CB-END-1'));
  t.is(outcome.state, 'BOUGHT');
  t.true(failing.hits.length >= 1, 'the ticket system was tried');
  const notes = (await engine.repository.getOrder(submitted.workflowId))!.notes;
  t.true(
    notes.some((note) =>
      /the order ended with \d+ notification\(s\) the ticket system did not take/.test(note.message),
    ),
    JSON.stringify(notes.map((n) => n.message)),
  );
});
