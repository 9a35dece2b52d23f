import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { Secret } from '../../infra/ordering-api/index.js';
import type { OrderEventRecord, OrderNoteRecord, OrderView } from '../../infra/db/index.js';
import { callbackPolicyFromEnv } from '../../activities/order/index.js';
import { createNotifyActivity, signNotification } from '../../activities/order/notify.js';
import type { TicketNotification, TicketNotificationInput } from '../../workflows/order/activity-types.js';
import { usePostgres } from '../helpers/postgres.js';
import { orderOf, startOrderEngine, sydneyRequest, type OrderEngine } from '../helpers/orders.js';

// Where ticket-system callbacks may go, what they say (the order's records, never the activity's input), and that an
// order's end never waits long on a ticket system.

const test = anyTest as TestFn<{ engine: OrderEngine }>;
const pg = usePostgres(test);

const WORKFLOW_ID = 'mve-order-CB';
const SECRET = 's';
const T0 = Date.parse('2025-03-01T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

function event(sequence: number, from: OrderEventRecord['from'], to: OrderEventRecord['to'], reason: string) {
  return { sequence, from, to, actor: 'engine', reason, details: {}, at: at(sequence) };
}

function note(sequence: number, message: string, details: Record<string, unknown> = {}): OrderNoteRecord {
  return { sequence, actor: 'engine', message, details, at: at(sequence) };
}

/** Order CB as the repository gives it: received (with `callbackUrl`), then looking up (change 2). */
function recordsOf(callbackUrl: string | undefined, more: Partial<OrderView> = {}): OrderView {
  return {
    order: {
      workflowId: WORKFLOW_ID,
      ticketId: 'CB',
      environment: 'staging',
      requestedBy: 'alice',
      runId: 'run-CB',
      submittedBy: 'alice',
      request: { ticketId: 'CB', ...(callbackUrl ? { callbackUrl } : {}) },
      status: 'LOOKING_UP',
      quote: null,
      product: null,
      lastError: null,
      policy: null,
      team: null,
      createdAt: at(0),
      updatedAt: at(2),
    },
    events: [
      event(0, null, 'RECEIVED', 'order received'),
      event(2, 'RECEIVED', 'LOOKING_UP', 'looking up the location and the image'),
    ],
    notes: [],
    approvals: [],
    buyAttempts: [],
    ...more,
  };
}

function notifier(env: NodeJS.ProcessEnv, records: OrderView | null) {
  const activity = createNotifyActivity({
    callbackSecret: new Secret(SECRET),
    timeoutMs: 2_000,
    callbackPolicy: callbackPolicyFromEnv(env),
    now: Date.now,
    repository: { getOrder: (workflowId) => Promise.resolve(workflowId === WORKFLOW_ID ? records : null) },
  });
  // As the worker runs it: for a run of order CB, which the activity knows from its context.
  return (input: unknown) =>
    new MockActivityEnvironment(
      { workflowExecution: { workflowId: WORKFLOW_ID, runId: 'run-CB' } },
      { logger: new DefaultLogger('ERROR') },
    ).run(activity.notifyTicketSystem, input as TicketNotificationInput);
}

const LOOPBACK = { MVE_CALLBACK_ALLOW_HTTP: 'true', MVE_CALLBACK_ALLOWED_NETWORKS: '127.0.0.0/8' };

/** A loopback HTTP server answering `status` (with a Location when it is a redirect); keeps what it got. */
async function receiver(status: number, location?: string) {
  const hits: IncomingMessage[] = [];
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    hits.push(request);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(status, location ? { location } : {}).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/t`,
    hits,
    /** What it was told, each checked against its signature as a ticket system would. */
    told: () =>
      hits.map((hit, i) => {
        const timestamp = String(hit.headers['x-mve-timestamp']);
        if (hit.headers['x-mve-signature'] !== signNotification(new Secret(SECRET), timestamp, bodies[i]))
          throw new Error('a notification was not signed with the callback secret');
        return JSON.parse(bodies[i]) as TicketNotification;
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function refusal(t: ExecutionContext<unknown>, promise: Promise<unknown>): Promise<ApplicationFailure> {
  return t.throwsAsync<ApplicationFailure>(promise, { instanceOf: ApplicationFailure });
}

test('plain http is refused outside dev; internal addresses are refused unless their network is allowed', async (t) => {
  const target = await receiver(204);
  t.teardown(target.close);
  const http = await refusal(t, notifier({}, recordsOf(target.url))({ seq: 2 }));
  t.is(http.type, 'CallbackRefusedByPolicy');
  t.true(http.nonRetryable);
  t.regex(http.message, /https URLs only/);

  for (const url of [
    `http://127.0.0.1:${target.port}/t`,
    `http://localhost:${target.port}/t`,
    'http://169.254.169.254/latest/meta-data/',
    'http://10.1.2.3/t',
    'http://[::1]:9/t',
  ]) {
    const httpOnly = notifier({ MVE_CALLBACK_ALLOW_HTTP: 'true' }, recordsOf(url));
    const refused = await refusal(t, httpOnly({ seq: 2 }));
    t.is(refused.type, 'CallbackRefusedByPolicy', url);
    t.regex(refused.message, /private, loopback or link-local address.*MVE_CALLBACK_ALLOWED_NETWORKS/, url);
  }
  t.is(target.hits.length, 0, 'nothing reached the internal address');

  await notifier(LOOPBACK, recordsOf(`http://localhost:${target.port}/t`))({ seq: 2 });
  t.is(target.hits.length, 1);
  t.regex(String(target.hits[0].headers['x-mve-signature']), /^v1=[0-9a-f]{64}$/);
});

test('a redirect is not followed: the callback fails for good, naming where it was sent', async (t) => {
  const elsewhere = await receiver(204);
  const redirecting = await receiver(302, `http://127.0.0.1:${elsewhere.port}/internal`);
  t.teardown(elsewhere.close);
  t.teardown(redirecting.close);
  const refused = await refusal(t, notifier(LOOPBACK, recordsOf(redirecting.url))({ seq: 2 }));
  t.is(refused.type, 'CallbackRedirected');
  t.true(refused.nonRetryable);
  t.regex(refused.message, /redirect \(302 to http:\/\/127\.0\.0\.1:\d+\/internal\)/);
  t.is(elsewhere.hits.length, 0);
});

test('what is told comes from the records: an input with its own URL and text changes neither', async (t) => {
  const tickets = await receiver(204);
  const attacker = await receiver(204);
  t.teardown(tickets.close);
  t.teardown(attacker.close);
  const notify = notifier(LOOPBACK, recordsOf(tickets.url));
  const forged = { seq: 2, state: 'APPROVED', event: 'state-changed', message: 'APPROVED by fiona' };
  // The input of workflows from before this change, and the new one with fields added.
  await notify({ callbackUrl: attacker.url, notification: { ...forged, workflowId: WORKFLOW_ID, ticketId: 'CB' } });
  await notify({ seq: 2, callbackUrl: attacker.url, message: forged.message });
  t.is(attacker.hits.length, 0, 'nothing went to the URL of the input');
  const lookingUp: TicketNotification = {
    workflowId: WORKFLOW_ID,
    ticketId: 'CB',
    seq: 2,
    at: at(2),
    state: 'LOOKING_UP',
    event: 'state-changed',
    message: 'looking up the location and the image',
  };
  t.deepEqual(tickets.told(), [lookingUp, lookingUp], 'the ticket system was told change 2 as recorded, twice');
});

test('each change is told as the records say at its number: state, event, message, quote and product then', async (t) => {
  const tickets = await receiver(204);
  t.teardown(tickets.close);
  const bought = recordsOf(tickets.url, {
    events: [
      event(0, null, 'RECEIVED', 'order received'),
      event(2, 'RECEIVED', 'LOOKING_UP', 'looking up the location and the image'),
      event(4, 'LOOKING_UP', 'VALIDATING', 'validating at the API'),
      event(6, 'VALIDATING', 'AWAITING_APPROVAL', 'needs team approval'),
      event(9, 'AWAITING_APPROVAL', 'APPROVED', 'approved by fiona'),
      event(10, 'APPROVED', 'BUYING', 'buying at 1618.2 AUD'),
      event(13, 'BUYING', 'BOUGHT', 'created mve-1 (DEPLOYABLE)'),
      event(17, 'BOUGHT', 'PROVISIONING', 'following product mve-1 until it is LIVE'),
      event(19, 'PROVISIONING', 'LIVE', 'product mve-1 is LIVE'),
    ],
    notes: [
      note(7, 'reminder 1: approval still needed (1 more)', { ticketEvent: 'approval-reminder' }),
      note(8, 'a Temporal cancellation request was ignored'),
      note(16, 'product mve-1 is CONFIGURED (DEPLOYABLE for 5 s)', {
        provisioningStatus: 'CONFIGURED',
        previous: 'DEPLOYABLE',
        ticketEvent: 'provisioning-changed',
      }),
      note(18, 'product mve-1 is LIVE (CONFIGURED for 9 s)', {
        provisioningStatus: 'LIVE',
        previous: 'CONFIGURED',
        ticketEvent: 'provisioning-changed',
      }),
    ],
  });
  // The records keep the latest quote (made at 5 s) and product status.
  bought.order.quote = { number: 1, monthlyRate: '1618.2', currency: 'AUD', quotedAt: at(5) };
  bought.order.product = { technicalServiceUid: 'mve-1', provisioningStatus: 'LIVE' };
  const notify = notifier(LOOPBACK, bought);
  for (const seq of [1, 4, 6, 7, 8, 13, 16, 17, 19]) await notify({ seq });
  const quote = { monthlyRate: 1618.2, currency: 'AUD' };
  const product = (provisioningStatus: string) => ({ technicalServiceUid: 'mve-1', provisioningStatus });
  t.deepEqual(
    tickets
      .told()
      .map(({ seq, state, event, message, quote, product }) => ({ seq, state, event, message, quote, product })),
    [
      { seq: 1, state: 'RECEIVED', event: 'received', message: 'order received', quote: undefined, product: undefined },
      {
        seq: 4,
        state: 'VALIDATING',
        event: 'state-changed',
        message: 'validating at the API',
        quote: undefined,
        product: undefined,
      },
      {
        seq: 6,
        state: 'AWAITING_APPROVAL',
        event: 'state-changed',
        message: 'needs team approval',
        quote,
        product: undefined,
      },
      {
        seq: 7,
        state: 'AWAITING_APPROVAL',
        event: 'approval-reminder',
        message: 'reminder 1: approval still needed (1 more)',
        quote,
        product: undefined,
      },
      {
        seq: 13,
        state: 'BOUGHT',
        event: 'state-changed',
        message: 'created mve-1 (DEPLOYABLE)',
        quote,
        product: product('DEPLOYABLE'),
      },
      {
        seq: 16,
        state: 'BOUGHT',
        event: 'provisioning-changed',
        message: 'product mve-1 is CONFIGURED (DEPLOYABLE for 5 s)',
        quote,
        product: product('CONFIGURED'),
      },
      {
        seq: 17,
        state: 'PROVISIONING',
        event: 'state-changed',
        message: 'following product mve-1 until it is LIVE',
        quote,
        product: product('CONFIGURED'),
      },
      {
        seq: 19,
        state: 'LIVE',
        event: 'state-changed',
        message: 'product mve-1 is LIVE',
        quote,
        product: product('LIVE'),
      },
    ],
    'a note the order did not tell (8) is not told',
  );
  t.deepEqual(
    tickets.told().map((told) => told.at),
    [1, 4, 6, 7, 13, 16, 17, 19].map((seq) => at(seq === 1 ? 0 : seq)),
    'when the change was recorded (the order received is its event 0)',
  );
});

test('a change the records do not show yet fails, to be retried, and sends nothing', async (t) => {
  const tickets = await receiver(204);
  t.teardown(tickets.close);
  for (const [records, seq] of [
    [recordsOf(tickets.url), 3],
    [null, 1],
  ] as const) {
    const failure = await refusal(t, notifier(LOOPBACK, records)({ seq }));
    t.is(failure.type, 'NotificationNotRecordedYet');
    t.false(failure.nonRetryable);
  }
  t.is(tickets.hits.length, 0);
});

test('an order recorded without a callback URL is told nothing; an input naming no change is refused', async (t) => {
  const tickets = await receiver(204);
  t.teardown(tickets.close);
  await notifier(LOOPBACK, recordsOf(undefined))({ seq: 2, callbackUrl: tickets.url });
  t.is(tickets.hits.length, 0);
  for (const input of [{}, { seq: 0 }, { seq: '2' }, { callbackUrl: tickets.url, notification: {} }]) {
    const refused = await refusal(t, notifier(LOOPBACK, recordsOf(tickets.url))(input));
    t.is(refused.type, 'InvalidNotificationInput', JSON.stringify(input));
    t.true(refused.nonRetryable);
  }
  t.is(tickets.hits.length, 0);
});

test('a bad allowed-networks entry names the variable and the rule', (t) => {
  const error = t.throws(() => callbackPolicyFromEnv({ MVE_CALLBACK_ALLOWED_NETWORKS: '10.0.0.0/33' }));
  t.regex(error.message, /MVE_CALLBACK_ALLOWED_NETWORKS: "10\.0\.0\.0\/33" must be an address or a CIDR network/);
});

test.serial('an order that ends does not wait on a ticket system that never takes its notifications', async (t) => {
  // The order gives its notifications minutes before it ends without them: on the time-skipping server, none.
  const engine = await startOrderEngine(pg, { temporal: 'time-skipping' });
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
