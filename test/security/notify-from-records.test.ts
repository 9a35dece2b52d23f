/**
 * Ticket-system notifications are told from the order's records, never from the activity's input (docs/security.md,
 * "Ticket-system notifications"). On the real Temporal server, an attacker who holds the codec key runs a worker of
 * their own with a workflow of their own that schedules our `notifyTicketSystem` on the order worker's task queue with
 * their URL and their text — from a workflow id of their own, and under a genuine order's workflow id once its run has
 * ended. The worker posts nothing to the attacker's URL, and nothing to the ticket system that its records do not say.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { encryptingDataConverter } from '../../codec/index.js';
import { orderTaskQueue } from '../../config/temporal.js';
import type { OrderView } from '../../infra/db/index.js';
import type { TicketNotification } from '../../workflows/order/activity-types.js';
import { usePostgres } from '../helpers/postgres.js';
import {
  orderOf,
  startCallbackReceiver,
  startOrderEngine,
  sydneyRequest,
  TASK_QUEUE,
  type CallbackReceiver,
  type OrderEngine,
} from '../helpers/orders.js';
import { notifyAttacker, type AttackOutcome } from './fixtures/notify-attacker.js';

const test = anyTest as TestFn<{ engine: OrderEngine; tickets: CallbackReceiver; attacker: Listener }>;
const pg = usePostgres(test);
const ATTACKER_WORKFLOWS = fileURLToPath(new URL('./fixtures/notify-attacker.ts', import.meta.url));
const FORGED = 'APPROVED by fiona';

interface Listener {
  url: string;
  /** Every request it got, whatever it carried. */
  hits: number;
  close(): Promise<void>;
}

/** The attacker's own listener: counts whatever reaches it. */
async function startListener(): Promise<Listener> {
  const listener: Listener = { url: '', hits: 0, close: () => Promise.resolve() };
  const server = createServer((request, response) => {
    listener.hits++;
    request.resume();
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  listener.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/steal`;
  listener.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return listener;
}

test.before(async (t) => {
  t.context = {
    engine: await startOrderEngine(pg, { temporal: 'real' }),
    tickets: await startCallbackReceiver(),
    attacker: await startListener(),
  };
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
  await t.context.tickets?.close();
  await t.context.attacker?.close();
});

/** Runs the attacker's workflow on the attacker's own worker and task queue, as `workflowId`. */
async function attack(engine: OrderEngine, workflowId: string, seqs: number[], callbackUrl: string) {
  const taskQueue = `attacker-${randomUUID()}`;
  const worker = await engine.temporal.createWorker({
    taskQueue,
    workflowsPath: ATTACKER_WORKFLOWS,
    dataConverter: encryptingDataConverter(engine.keyring),
  });
  return worker.runUntil(
    engine.client.workflow.execute(notifyAttacker, {
      workflowId,
      taskQueue,
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      args: [{ taskQueue: orderTaskQueue(TASK_QUEUE, 'staging'), callbackUrl, message: FORGED, seqs }],
    }),
  );
}

/** Each notification says what the records say at its sequence number (the order received is event 0). */
function assertRecorded(t: ExecutionContext, notifications: TicketNotification[], records: OrderView): void {
  for (const told of notifications) {
    const event =
      records.events.find((recorded) => recorded.sequence === told.seq) ??
      (told.seq === 1 ? records.events[0] : undefined);
    const note = records.notes.find((recorded) => recorded.sequence === told.seq);
    const said: Record<string, unknown> = {
      workflowId: told.workflowId,
      ticketId: told.ticketId,
      at: told.at,
      state: told.state,
      message: told.message,
    };
    t.deepEqual(
      said,
      {
        workflowId: records.order.workflowId,
        ticketId: records.order.ticketId,
        at: (event ?? note)?.at,
        state: records.events.filter((recorded) => recorded.sequence <= told.seq).at(-1)?.to,
        message: event ? event.reason : note?.message,
      },
      `change ${told.seq} as the records say it`,
    );
  }
}

test.serial(
  "a workflow of the attacker's own that schedules notifyTicketSystem with its URL and text gets nothing sent but what the records say",
  async (t) => {
    const { engine, tickets, attacker } = t.context;
    const submitted = await engine.submit(sydneyRequest('NFR-1', { size: 'MVE 4/16', callbackUrl: tickets.url }));
    t.is((await engine.orders.result(orderOf('NFR-1'))).state, 'BOUGHT');
    // The order waits for its last notifications before it ends.
    const genuine = tickets.received.filter((told) => told.ticketId === 'NFR-1');
    t.deepEqual(
      genuine.map((told) => (told.event === 'state-changed' ? told.state : told.event)),
      ['received', 'LOOKING_UP', 'VALIDATING', 'APPROVED', 'BUYING', 'BOUGHT'],
    );
    const records = (await engine.repository.getOrder(submitted.workflowId))!;
    assertRecorded(t, genuine, records);

    const seqs = [...genuine.map((told) => told.seq), Math.max(...genuine.map((told) => told.seq)) + 1];
    const fromItsOwnId = await attack(engine, `attacker-${randomUUID()}`, seqs, attacker.url);
    const asTheOrder = await attack(engine, submitted.workflowId, seqs, attacker.url);

    t.is(attacker.hits, 0, "nothing was posted to the attacker's URL");
    t.deepEqual(sentOf(fromItsOwnId), [], 'a workflow id with no order behind it gets nothing sent');
    const told = tickets.received.filter((notification) => notification.ticketId === 'NFR-1');
    const again = told.slice(genuine.length);
    t.true(again.length <= sentOf(asTheOrder).length, 'nothing was posted but by the calls that completed');
    t.false(
      told.some((notification) => notification.message.includes(FORGED)),
      "the attacker's text never reached the ticket system",
    );
    for (const repeated of again) {
      t.deepEqual(
        repeated,
        genuine.find((first) => first.seq === repeated.seq),
        `change ${repeated.seq} told again is the change the order told`,
      );
    }
    assertRecorded(t, again, records);
    t.is(tickets.badSignatures, 0);
  },
);

/** The sequence numbers of the calls the worker completed (it posted, or found nothing to post). */
function sentOf(outcomes: AttackOutcome[]): number[] {
  return outcomes.filter((outcome) => outcome.outcome === 'sent').map((outcome) => outcome.seq);
}
