/**
 * recorder.ts: every change of the order is journaled, told to the ticket system (in order, in the background) and
 * shown in the search attributes, which are published at checkpoints, not at each change.
 */
import anyTest, { type TestFn } from 'ava';
import protoRoot from '@temporalio/proto';
import { MONTHLY_RATE, ORDER_STATUS } from '../../../workflows/order/search-attributes.js';
import { waitFor } from '../../helpers/wait.js';
import { gateWorkflow, progressQuery, testVote } from './fixtures/module-workflows.js';
import { entriesOf, fakeActivities, quoteOf, refuse, toldOf } from './fixtures/fake-activities.js';
import { useModuleEnv } from './fixtures/harness.js';
import { governing, orderRequest } from './fixtures/order-input.js';

const test = anyTest as TestFn<unknown>;
const env = useModuleEnv(test);
const { EventType } = protoRoot.temporal.api.enums.v1;
const CALLBACK_URL = 'https://tickets.example.com/hooks/mve';

test.serial('search attributes are published at checkpoints: one upsert for all the changes of a step', async (t) => {
  const fake = fakeActivities({ validateOrder: [quoteOf(1618.2), quoteOf(1618.2)] });
  const { waiting, ended, upserts } = await env.withWorker(fake, async (start) => {
    const handle = await start(gateWorkflow, { request: orderRequest('R-1'), governing: governing() });
    await waitFor(async () => ((await handle.query(progressQuery).catch(() => undefined))?.round ? true : undefined));
    const waiting = (await handle.describe()).typedSearchAttributes;
    await handle.executeUpdate(testVote, {
      args: [{ approverId: 'fiona', decision: 'approve', monthlyRate: 1618.2, currency: 'USD' }],
    });
    await handle.result();
    const ended = (await handle.describe()).typedSearchAttributes;
    // The order's own attributes; a patch's TemporalChangeVersion is upserted by the SDK on its own.
    const upserts = ((await handle.fetchHistory()).events ?? []).filter(
      (event) =>
        event.eventType === EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES &&
        !event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.[
          'TemporalChangeVersion'
        ],
    );
    return { waiting, ended, upserts };
  });
  t.is(waiting.get(ORDER_STATUS), 'AWAITING_APPROVAL', 'published when the order began to wait');
  t.is(waiting.get(MONTHLY_RATE), 1618.2);
  t.is(ended.get(ORDER_STATUS), 'APPROVED');
  t.is(upserts.length, 2, 'one at the round (LOOKING_UP, VALIDATING, AWAITING_APPROVAL and the rate), one at the end');
});

test.serial('the ticket system is told every change, in order, by its journal sequence number alone', async (t) => {
  const fake = fakeActivities({ validateOrder: [quoteOf(800)] });
  const outcome = await env.withWorker(fake, async (start) =>
    (
      await start(gateWorkflow, {
        request: orderRequest('R-2', { callbackUrl: CALLBACK_URL }),
        governing: governing(),
      })
    ).result(),
  );
  t.is(outcome.result, undefined);
  t.deepEqual(
    fake.callsOf('notifyTicketSystem').map((call) => Object.keys(call.input)),
    [['seq'], ['seq'], ['seq']],
    'no URL and no text: the activity reads them from the records',
  );
  const told = toldOf(fake);
  t.deepEqual(
    told.map(({ event, entry }) => [event, entry?.type === 'transition' ? entry.to : undefined]),
    [
      ['state-changed', 'LOOKING_UP'],
      ['state-changed', 'VALIDATING'],
      ['state-changed', 'APPROVED'],
    ],
  );
  t.deepEqual(
    told.map(({ seq }) => seq),
    entriesOf(fake.written(), 'transition').map((entry) => entry.seq),
    'each names its journal entry',
  );
});

async function refusedNotifications(ticketId: string) {
  const fake = fakeActivities(
    {},
    {
      notifyTicketSystem: refuse('the ticket system answered 410 Gone', 'CallbackRefused'),
      validateOrder: quoteOf(800),
    },
  );
  const outcome = await env.withWorker(fake, async (start) =>
    (
      await start(gateWorkflow, {
        request: orderRequest(ticketId, { callbackUrl: CALLBACK_URL }),
        governing: governing(),
      })
    ).result(),
  );
  const sent = fake.callsOf('notifyTicketSystem').map((call) => call.input.seq);
  const notes = entriesOf(fake.written(), 'note').map((note) => note.message);
  return { outcome, sent, notes };
}

test.serial(
  'a notification the ticket system does not take is noted in the journal and dropped; the order goes on',
  async (t) => {
    const { outcome, sent, notes } = await refusedNotifications('R-3');
    t.is(outcome.result, undefined);
    t.is(outcome.progress.state, 'APPROVED');
    t.is(sent.length, 3, 'each tried once (a refusal is final), none tried again');
    t.deepEqual(
      notes.map((note) => note.replace(/:.*$/, '')),
      sent.map((seq) => `the ticket system did not accept notification ${seq}`),
    );
  },
);

// The ticket-system outbox notes messageOf(error), the ActivityFailure's own message ("Activity task failed"),
// where the approvers' outbox (and every other failure the order shows) uses summarise(), which reads the cause:
// ops see that a notification was refused but not why.
test.serial('the note about a refused notification says why the ticket system refused it', async (t) => {
  const { sent, notes } = await refusedNotifications('R-5');
  t.deepEqual(
    notes,
    sent.map((seq) => `the ticket system did not accept notification ${seq}: the ticket system answered 410 Gone`),
  );
});

test.serial('without a callback URL the ticket system is never called', async (t) => {
  const fake = fakeActivities({ validateOrder: [quoteOf(800)] });
  await env.withWorker(fake, async (start) =>
    (await start(gateWorkflow, { request: orderRequest('R-4'), governing: governing() })).result(),
  );
  t.is(fake.callsOf('notifyTicketSystem').length, 0);
});

test.serial('an approver message the webhook does not take is noted with why; the round goes on', async (t) => {
  const fake = fakeActivities(
    {},
    { notifyApprovers: refuse('the webhook answered 404', 'WebhookRefused'), validateOrder: quoteOf(1618.2) },
  );
  const outcome = await env.withWorker(fake, async (start) => {
    const handle = await start(gateWorkflow, { request: orderRequest('R-6'), governing: governing(true) });
    await fake.called('notifyApprovers');
    await waitFor(() => Promise.resolve(entriesOf(fake.written(), 'note').length > 0 || undefined), 20_000, 'the note');
    await handle.executeUpdate(testVote, {
      args: [{ approverId: 'fiona', decision: 'approve', monthlyRate: 1618.2, currency: 'USD' }],
    });
    return handle.result();
  });
  t.is(outcome.result, undefined);
  const [note] = entriesOf(fake.written(), 'note');
  t.is(note?.message, "the approvers' webhook did not take the approval request: the webhook answered 404");
  t.like(note?.details, { event: 'awaiting-approval', type: 'WebhookRefused' });
});
