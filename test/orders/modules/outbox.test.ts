/** outbox.ts: the ordered background sender (the recorder's ticket-system and approver messages go through it). */
import anyTest, { type TestFn } from 'ava';
import { outboxWorkflow, type OutboxInput, type OutboxSend } from './fixtures/module-workflows.js';
import { after, fakeActivities, refuse, type Fake } from './fixtures/fake-activities.js';
import { useModuleEnv } from './fixtures/harness.js';

const test = anyTest as TestFn<unknown>;
// In real time, on the real server: the waits are seconds, and the outbox's retry waits are timers it must not skip.
const env = useModuleEnv(test, { server: 'real' });

/** How long a requeued batch waits for its retry, and a flush that must give up before then. */
const RETRY_MS = 8_000;
const FLUSH_BEFORE_RETRY_MS = 3_000;

const ITEMS = ['a', 'b', 'c', 'd', 'e'];
const FAILS = refuse('the ticket system answered 503', 'CallbackFailed');

async function runOutbox(fake: Fake, input: OutboxInput) {
  return env.withWorker(fake, async (start) => (await start(outboxWorkflow, input)).result());
}

/** The batches `send` was called with, in order (whether they went through or not). */
const attempted = (fake: Fake) =>
  fake
    .callsOf('notifyTicketSystem')
    .map((call) => (call.input as unknown as Parameters<OutboxSend['notifyTicketSystem']>[0]).batch);

test.serial('items are sent in the order pushed, at most maxBatch at a time, one batch after another', async (t) => {
  const fake = fakeActivities({ notifyTicketSystem: [after(200, undefined)] });
  const outcome = await runOutbox(fake, { items: ITEMS, maxBatch: 2, onFailure: 'drop', retryAfterMs: 0 });
  t.deepEqual(outcome.sent, [['a', 'b'], ['c', 'd'], ['e']]);
  const calls = fake.callsOf('notifyTicketSystem');
  t.true(calls[1].startedAt >= calls[0].endedAt!, 'the next batch waits for the slow first one');
  t.true(calls[2].startedAt >= calls[1].endedAt!);
});

test.serial('flush resolves once everything pushed before it has been sent', async (t) => {
  const fake = fakeActivities({
    notifyTicketSystem: [after(100, undefined), after(100, undefined), after(100, undefined)],
  });
  const outcome = await runOutbox(fake, { items: ITEMS, maxBatch: 1, onFailure: 'drop', retryAfterMs: 0 });
  t.true(outcome.flushed);
  t.is(outcome.sentWhenFlushed, ITEMS.length);
  t.is(outcome.unsentWhenFlushed, 0);
  t.deepEqual(outcome.sent.flat(), ITEMS);
});

test.serial('a batch send gives up on is dropped with onFailure "drop": the outbox moves on to the next', async (t) => {
  const fake = fakeActivities({ notifyTicketSystem: [FAILS] });
  const outcome = await runOutbox(fake, { items: ITEMS, maxBatch: 2, onFailure: 'drop', retryAfterMs: RETRY_MS });
  t.deepEqual(
    outcome.failed.map((failure) => failure.batch),
    [['a', 'b']],
  );
  t.deepEqual(outcome.sent, [['c', 'd'], ['e']]);
  t.deepEqual(attempted(fake), [['a', 'b'], ['c', 'd'], ['e']], 'the dropped batch is not sent again');
  t.true(outcome.flushed);
});

test.serial(
  'a batch requeued with onFailure "requeue" is sent again after retryAfterMs, still ahead of the items behind it',
  async (t) => {
    const fake = fakeActivities({ notifyTicketSystem: [FAILS, FAILS] });
    const outcome = await runOutbox(fake, { items: ITEMS, maxBatch: 2, onFailure: 'requeue', retryAfterMs: RETRY_MS });
    t.deepEqual(attempted(fake), [['a', 'b'], ['a', 'b'], ['a', 'b'], ['c', 'd'], ['e']]);
    t.deepEqual(outcome.sent, [['a', 'b'], ['c', 'd'], ['e']], 'nothing lost, nothing out of order');
    const [firstFailure, secondFailure] = outcome.failed;
    t.true(secondFailure.at - firstFailure.at >= RETRY_MS, 'the retry waited retryAfterMs');
    t.true(outcome.sentAt[0] - secondFailure.at >= RETRY_MS);
    t.true(outcome.flushed);
  },
);

test.serial('flushWithin gives up after its timeout while a batch still waits for a retry', async (t) => {
  const fake = fakeActivities({ notifyTicketSystem: Array(10).fill(FAILS) });
  const outcome = await runOutbox(fake, {
    items: ['a', 'b'],
    maxBatch: 2,
    onFailure: 'requeue',
    retryAfterMs: RETRY_MS,
    flushWithinMs: FLUSH_BEFORE_RETRY_MS,
  });
  t.false(outcome.flushed);
  t.deepEqual(outcome.sent, []);
  t.is(outcome.failed.length, 1, 'gave up at its timeout, before the retry');
  t.true(outcome.unsentWhenFlushed > 0);
});

test.serial('an idle outbox flushes at once and leaves no timer in history', async (t) => {
  const fake = fakeActivities({});
  const { outcome, events } = await env.withWorker(fake, async (start) => {
    const handle = await start(outboxWorkflow, {
      items: [],
      maxBatch: 1,
      onFailure: 'drop',
      retryAfterMs: 0,
      flushWithinMs: 10 * 60_000,
    });
    const outcome = await handle.result();
    const { events } = await handle.fetchHistory();
    return { outcome, events: events ?? [] };
  });
  t.true(outcome.flushed);
  t.false(
    events.some((event) => event.timerStartedEventAttributes),
    'no timer reached history',
  );
});

// `unsent` is documented as "how many items are not yet sent (queued or in flight)", but it adds the pending items
// to the number of batches being sent: a batch of three in flight counts as one, and a requeued batch counts twice
// (its items are back in `pending` while `sending` is still 1 during the retry wait). The recorder only uses
// maxBatch 1 with 'drop', where the two agree, so today this shows only in the generic module.
test.serial('outbox.unsent counts items, not batches: three items in flight are three unsent', async (t) => {
  const fake = fakeActivities({ notifyTicketSystem: [after(2_000, undefined)] });
  const outcome = await runOutbox(fake, {
    items: ['a', 'b', 'c'],
    maxBatch: 3,
    onFailure: 'drop',
    retryAfterMs: 0,
    flushWithinMs: 300,
  });
  t.false(outcome.flushed, 'the batch is still in flight when the flush gives up');
  t.is(outcome.unsentWhenFlushed, 3);
});

test.serial('outbox.unsent counts a requeued batch once while it waits for its retry', async (t) => {
  const fake = fakeActivities({ notifyTicketSystem: Array(10).fill(FAILS) });
  const outcome = await runOutbox(fake, {
    items: ['a'],
    maxBatch: 1,
    onFailure: 'requeue',
    retryAfterMs: RETRY_MS,
    flushWithinMs: FLUSH_BEFORE_RETRY_MS,
  });
  t.false(outcome.flushed);
  t.is(outcome.unsentWhenFlushed, 1, 'one item is unsent');
});
