import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { ApproverMessage } from '../../workflows/order/activity-types.js';
import anyTest, { type TestFn } from 'ava';
import { Secret } from '../../infra/ordering-api/index.js';
import {
  signNotification,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  type SlackMessage,
} from '../../activities/order/index.js';
import { OrderClient, OrderIntake } from '../../client/orders/index.js';
import { SIM_KIND_MAP } from '../../tooling/sim/index.js';
import { callbackPolicyFromEnv } from '../../activities/order/index.js';
import { approverNotificationsFromEnv } from '../../worker/dependencies.js';
import { createOrderWorker } from '../../worker/index.js';
import { usePostgres } from '../helpers/postgres.js';
import {
  CALLBACK_SECRET,
  createTestActivities,
  orderOf,
  replayEveryHistory,
  simCredentials,
  startOrderEngine,
  sydneyRequest,
  type OrderEngine,
} from '../helpers/orders.js';
import { waitFor, waitForState } from '../helpers/wait.js';

// Approvers are told over the workers' webhook (MVE_APPROVER_WEBHOOK_URL) when an order starts waiting for them and
// at each reminder: a Slack-compatible message, signed like the ticket callbacks, that never holds the order up.

interface Received {
  message: SlackMessage;
  at: number;
}

interface Webhook {
  url: string;
  /** Messages whose signature checked out, in arrival order (failed ones included). */
  received: Received[];
  badSignatures: number;
  forTicket(ticketId: string): Received[];
  close(): Promise<void>;
}

/** A chat webhook on loopback that checks the signature; it answers 500 to every message about a ticket containing FAIL. */
async function startWebhook(): Promise<Webhook> {
  const webhook: Webhook = {
    url: '',
    received: [],
    badSignatures: 0,
    forTicket: (ticketId) =>
      webhook.received.filter((entry) => new RegExp(`\\b${ticketId}\\b`).test(entry.message.text)),
    close: () => Promise.resolve(),
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const timestamp = String(request.headers[TIMESTAMP_HEADER] ?? '');
      if (request.headers[SIGNATURE_HEADER] !== signNotification(new Secret(CALLBACK_SECRET), timestamp, body)) {
        webhook.badSignatures++;
        return response.writeHead(401).end();
      }
      const message = JSON.parse(body) as SlackMessage;
      webhook.received.push({ message, at: Date.now() });
      response.writeHead(/FAIL/.test(message.text) ? 500 : 200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  webhook.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/T000/B000/secret`;
  webhook.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return webhook;
}

const test = anyTest as TestFn<{ engine: OrderEngine; webhook: Webhook }>;
const pg = usePostgres(test);
const HOUR = 60 * 60 * 1000;
const CONSOLE_URL = 'https://console.example.test/';

test.before(async (t) => {
  t.context.webhook = await startWebhook();
  // Reminders come 49 h and 71 h into a round: on the time-skipping server, in milliseconds.
  t.context.engine = await startOrderEngine(pg, {
    approverWebhookUrl: t.context.webhook.url,
    consoleUrl: CONSOLE_URL,
    temporal: 'time-skipping',
  });
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
  await t.context.webhook?.close();
});

function sectionText(message: SlackMessage): string {
  return JSON.stringify(message.blocks);
}

test.serial(
  'an order needing approval tells approvers when it starts waiting and at each reminder, signed, with price, ticket and link',
  async (t) => {
    const { engine, webhook } = t.context;
    const submitted = await engine.submit(sydneyRequest('NOTIFY-1', { size: 'MVE 8/32' }));
    const waiting = await waitForState(engine.orders, 'NOTIFY-1', 'AWAITING_APPROVAL');
    const [first] = await waitFor(
      () => Promise.resolve(webhook.forTicket('NOTIFY-1').length >= 1 ? webhook.forTicket('NOTIFY-1') : undefined),
      20_000,
      'the first message',
    );
    const message = first.message;
    t.regex(message.text, /^Order NOTIFY-1 from alice waits for approval: 1,618\.20 AUD a month\./);
    t.true(message.text.includes(`https://console.example.test/orders/${orderOf('NOTIFY-1')}`), message.text);
    t.true(message.text.includes(`by ${waiting.approval!.deadline.slice(0, 16).replace('T', ' ')} UTC`), message.text);
    const blocks = sectionText(message);
    for (const part of [
      `<https://console.example.test/orders/${orderOf('NOTIFY-1')}|NOTIFY-1>`,
      '*Requester*\\nalice',
      '*Monthly price*\\n1,618.20 AUD',
      '*Tier*\\nteam (finance-approver)',
      '*Approvals still needed*\\n1 of 1',
      '*Deadline*',
    ]) {
      t.true(blocks.includes(part), `${part} in ${blocks}`);
    }
    t.is(message.blocks[0]['type'], 'section');

    // Reminders: 24 h and 1 h before the 72 h deadline, in skipped time.
    await engine.temporal.env.sleep(49 * HOUR);
    await waitFor(
      () => Promise.resolve(webhook.forTicket('NOTIFY-1').length >= 2 ? true : undefined),
      20_000,
      'the first reminder',
    );
    await engine.temporal.env.sleep(22.5 * HOUR);
    const all = await waitFor(
      () => Promise.resolve(webhook.forTicket('NOTIFY-1').length >= 3 ? webhook.forTicket('NOTIFY-1') : undefined),
      20_000,
      'the second reminder',
    );
    t.deepEqual(
      all.map((entry) => /^(Order|Reminder \d: order)/.exec(entry.message.text)?.[1]),
      ['Order', 'Reminder 1: order', 'Reminder 2: order'],
    );
    t.is((await engine.orders.status(orderOf('NOTIFY-1'))).approval?.remindersSent, 2);

    const quote = (await engine.orders.status(orderOf('NOTIFY-1'))).quote!;
    await engine.orders.approve(orderOf('NOTIFY-1'), {
      approverId: 'fiona',
      monthlyRate: quote.monthlyRate,
      currency: quote.currency,
    });
    t.is((await engine.orders.result(orderOf('NOTIFY-1'))).state, 'BOUGHT');
    t.is(webhook.forTicket('NOTIFY-1').length, 3, 'one message per round start and per reminder, no more');
    t.is(webhook.badSignatures, 0);
    const notes = (await engine.repository.getOrder(submitted.workflowId))!.notes;
    t.false(
      notes.some((note) => /approvers' webhook/.test(note.message)),
      'nothing failed',
    );
  },
);

test.serial('an auto-approved order tells nobody', async (t) => {
  const { engine, webhook } = t.context;
  await engine.submit(sydneyRequest('NOTIFY-AUTO-1', { size: 'MVE 4/16' }));
  t.is((await engine.orders.result(orderOf('NOTIFY-AUTO-1'))).state, 'BOUGHT');
  t.is(webhook.forTicket('NOTIFY-AUTO-1').length, 0);
});

test.serial(
  'a webhook that always fails does not hold the order up, and the failure is noted on the order',
  async (t) => {
    const { engine, webhook } = t.context;
    // Approved at once, while the message is still being tried: the order goes on.
    await engine.submit(sydneyRequest('NOTIFY-FAIL-1', { size: 'MVE 8/32' }));
    const waiting = await waitForState(engine.orders, 'NOTIFY-FAIL-1', 'AWAITING_APPROVAL');
    await waitFor(
      () => Promise.resolve(webhook.forTicket('NOTIFY-FAIL-1').length >= 1 ? true : undefined),
      20_000,
      'the first try',
    );
    await engine.orders.approve(orderOf('NOTIFY-FAIL-1'), {
      approverId: 'fiona',
      monthlyRate: waiting.quote!.monthlyRate,
      currency: waiting.quote!.currency,
    });
    t.is((await engine.orders.result(orderOf('NOTIFY-FAIL-1'))).state, 'BOUGHT');

    // Left waiting until the tries run out: the failure is noted, the order still waits for its approver.
    const submitted = await engine.submit(sydneyRequest('NOTIFY-FAIL-2', { size: 'MVE 8/32' }));
    const second = await waitForState(engine.orders, 'NOTIFY-FAIL-2', 'AWAITING_APPROVAL');
    const noted = await waitFor(
      async () => {
        await engine.temporal.env.sleep(60_000);
        const notes = (await engine.repository.getOrder(submitted.workflowId))!.notes;
        return notes.find((note) => /approvers' webhook did not take the approval request/.test(note.message));
      },
      60_000,
      'the failure note',
    );
    t.regex(noted.message, /the approvers' webhook answered 500 to the approval request for NOTIFY-FAIL-2/);
    t.false(noted.message.includes('/services/T000'), 'the webhook URL (a secret in Slack) is not in the note');
    t.is(webhook.forTicket('NOTIFY-FAIL-2').length, 5, 'bounded retries: five tries');
    t.is((await engine.orders.status(orderOf('NOTIFY-FAIL-2'))).state, 'AWAITING_APPROVAL');
    await engine.orders.approve(orderOf('NOTIFY-FAIL-2'), {
      approverId: 'fiona',
      monthlyRate: second.quote!.monthlyRate,
      currency: second.quote!.currency,
    });
    t.is((await engine.orders.result(orderOf('NOTIFY-FAIL-2'))).state, 'BOUGHT');
  },
);

test.serial('without MVE_APPROVER_WEBHOOK_URL nothing is sent and nothing is scheduled', async (t) => {
  const { engine, webhook } = t.context;
  // A second worker, on its own queue, whose activities have no webhook (as a worker without the variable).
  const { apiClient, activities } = createTestActivities({
    ...simCredentials(engine.sim),
    repository: engine.repository,
    orderRequests: engine.orderRequests,
    actionKeys: engine.actionKeys,
  });
  t.teardown(() => apiClient.close());
  const taskQueue = 'mve-orders-test-plain';
  const worker = await createOrderWorker({
    connection: engine.temporal.nativeConnection,
    namespace: engine.temporal.namespace,
    taskQueue,
    environment: 'staging',
    activities,
    codecKeys: engine.keyring,
    actionKeys: engine.actionKeys,
  });
  engine.workers.push({ worker, running: worker.run() });
  const orders = new OrderClient({
    client: engine.client,
    taskQueue,
    kindMap: SIM_KIND_MAP,
    actionKeys: engine.actionKeys,
    tickets: engine.repository,
    clock: () => engine.temporal.env.currentTimeMs(),
  });
  const intake = new OrderIntake({
    orders,
    repository: engine.repository,
    fingerprintKeys: engine.actionKeys,
    kindMap: SIM_KIND_MAP,
  });

  const submitted = (await intake.submit(sydneyRequest('NOTIFY-NONE-1', { size: 'MVE 8/32' }), 'alice')).ticket;
  const waiting = await waitForState(orders, 'NOTIFY-NONE-1', 'AWAITING_APPROVAL');
  await engine.temporal.env.sleep(72 * HOUR - 30 * 60_000); // both reminders
  t.is((await orders.status(orderOf('NOTIFY-NONE-1'))).approval?.remindersSent, 2);
  await orders.approve(orderOf('NOTIFY-NONE-1'), {
    approverId: 'fiona',
    monthlyRate: waiting.quote!.monthlyRate,
    currency: waiting.quote!.currency,
  });
  t.is((await orders.result(orderOf('NOTIFY-NONE-1'))).state, 'BOUGHT');
  t.is(webhook.forTicket('NOTIFY-NONE-1').length, 0);
  const history = await engine.client.workflow.getHandle(submitted.workflowId).fetchHistory();
  const scheduled = (history.events ?? [])
    .filter((event) => event.activityTaskScheduledEventAttributes)
    .map((event) => event.activityTaskScheduledEventAttributes!.activityType?.name);
  t.false(scheduled.includes('notifyApprovers'), scheduled.join(', '));
  // The same activity, called anyway for the order's run (a worker whose variable was removed): sends nothing.
  const { claimedRunId } = (await engine.repository.getTicketByWorkflow(submitted.workflowId))!;
  const run = { workflowId: submitted.workflowId, runId: claimedRunId! };
  const notify = (message: ApproverMessage) =>
    new MockActivityEnvironment({ workflowExecution: run }).run(activities.notifyApprovers.bind(activities), message);
  await notify({
    workflowId: submitted.workflowId,
    ticketId: 'NOTIFY-NONE-1',
    environment: 'staging',
    seq: 1,
    event: 'awaiting-approval',
    requestedBy: 'alice',
    quote: { monthlyRate: 1, currency: 'AUD' },
    tier: { name: 'team', roles: ['finance-approver'], approvals: 1 },
    stillNeeded: 1,
    deadline: new Date(0).toISOString(),
  });
  t.is(webhook.forTicket('NOTIFY-NONE-1').length, 0);
});

test('the worker checks the webhook when it starts: signed only, and only where callbacks may go', (t) => {
  const strict = callbackPolicyFromEnv({});
  const secret = { MVE_CALLBACK_SECRET: 's' };
  t.deepEqual(approverNotificationsFromEnv({ ...secret }, strict), {}, 'unset: nobody is told');
  t.deepEqual(
    approverNotificationsFromEnv(
      {
        ...secret,
        MVE_APPROVER_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/x',
        MVE_CONSOLE_URL: 'https://mve.example.com',
      },
      strict,
    ),
    { approverWebhookUrl: 'https://hooks.slack.com/services/T/B/x', consoleUrl: 'https://mve.example.com' },
  );
  t.throws(
    () => approverNotificationsFromEnv({ MVE_APPROVER_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/x' }, strict),
    { message: /MVE_CALLBACK_SECRET is not/ },
  );
  const internal = t.throws(() =>
    approverNotificationsFromEnv({ ...secret, MVE_APPROVER_WEBHOOK_URL: 'https://10.1.2.3/hook/secret-part' }, strict),
  );
  t.regex(internal.message, /^MVE_APPROVER_WEBHOOK_URL: .*private, loopback or link-local/);
  t.false(internal.message.includes('secret-part'), 'the URL path (a secret in Slack) is not echoed');
  t.throws(
    () => approverNotificationsFromEnv({ ...secret, MVE_APPROVER_WEBHOOK_URL: 'http://chat.example.com/hook' }, strict),
    { message: /https URLs only/ },
  );
  t.throws(() => approverNotificationsFromEnv({ ...secret, MVE_CONSOLE_URL: 'not a url' }, strict), {
    message: /MVE_CONSOLE_URL/,
  });
});

test.serial('every history replays with the current workflow code', async (t) => {
  const { replayed, failures } = await replayEveryHistory(t.context.engine);
  t.deepEqual(failures, []);
  t.true(replayed >= 5, `replayed ${replayed}`);
});
