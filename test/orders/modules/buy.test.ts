/** buy.ts: the buy loop (write-ahead intent, retries of what provably did not happen) and the uncertain buy. */
import anyTest, { type TestFn } from 'ava';
import type { WorkflowHandle } from '@temporalio/client';
import type { JournalEntry, QuoteRecord } from '../../../activities/order/types.js';
import { newProgress, type OrderProgress } from '../../../workflows/order/progress.js';
import type { OrderWorkflowOptions } from '../../../workflows/order/types.js';
import { waitFor } from '../../helpers/wait.js';
import { buyWorkflow, progressQuery, testResolve } from './fixtures/module-workflows.js';
import { BOUGHT, entriesOf, fakeActivities, notCreated, refuse, uncertain, type Fake } from './fixtures/fake-activities.js';
import { useModuleEnv, type Start } from './fixtures/harness.js';
import { governing, HOUR, orderRequest, TARGETS } from './fixtures/order-input.js';

const test = anyTest as TestFn<unknown>;
const env = useModuleEnv(test);

const UID = '3f1c2a9e-7b4d-4e1a-9c2b-5d6e7f8a9b0c';
const CALLBACK_URL = 'https://tickets.example.com/hooks/mve';

/** An order whose fresh quote was just approved: what the gate hands to the buy. */
async function approved(): Promise<OrderProgress> {
  const now = await env.temporal.env.currentTimeMs();
  const quote: QuoteRecord = { monthlyRate: 1618.2, currency: 'USD', quotedAt: now };
  const progress = newProgress();
  progress.state = 'APPROVED';
  progress.seq = 8;
  progress.targets = TARGETS;
  progress.quotes.push(quote);
  progress.approved = quote;
  return progress;
}

async function startBuy(start: Start, ticketId: string, options: OrderWorkflowOptions = {}, progress?: OrderProgress) {
  return start(buyWorkflow, {
    request: orderRequest(ticketId, { callbackUrl: CALLBACK_URL }),
    governing: governing(),
    progress: progress ?? (await approved()),
    options,
  });
}

async function inState(handle: WorkflowHandle, state: OrderProgress['state']) {
  return waitFor(async () => {
    const progress = await handle.query(progressQuery).catch(() => undefined);
    return progress?.state === state ? progress : undefined;
  }, 20_000, state);
}

/** The recordJournal call that carried the buy intent of `attempt`. */
function intentCall(fake: Fake, attempt: number) {
  return fake.callsOf('recordJournal').find((call) => call.input.entries.some((entry) => entry.type === 'buy-intent' && entry.attempt === attempt));
}

const intents = (entries: JournalEntry[]) => entriesOf(entries, 'buy-intent');

test.serial('write-ahead: the buy intent is recorded (its recordJournal call completed) before buyOrder is called', async (t) => {
  const fake = fakeActivities();
  const outcome = await env.withWorker(fake, async (start) => (await startBuy(start, 'B-1')).result());
  t.is(outcome.result, 'bought');

  const intent = intentCall(fake, 1)!;
  const [order] = fake.callsOf('buyOrder');
  const ended = fake.log.findIndex((line) => line.n === intent.n && line.phase === 'end');
  const began = fake.log.findIndex((line) => line.n === order!.n && line.phase === 'start');
  t.true(ended >= 0 && ended < began, 'the intent\'s write ended before the buy began');
  t.deepEqual(
    intent.input.entries.map((entry) => (entry.type === 'transition' ? `${entry.from}->${entry.to}` : entry.type)),
    ['APPROVED->BUYING', 'buy-intent'],
    'the move to BUYING and the intent, written together',
  );
  t.is(order!.input.attempt, 1, 'the buy names the attempt the intent recorded');
  // Only what building the buy needs: no request (the activity reads it from the run's start input), no warnings.
  t.deepEqual(order!.input, { targets: { location: { id: TARGETS.location.id }, image: { id: TARGETS.image.id, vendor: TARGETS.image.vendor, product: TARGETS.image.product } }, attempt: 1 });
});

test.serial('a buy that creates the MVE ends BOUGHT with the product recorded', async (t) => {
  const fake = fakeActivities();
  const outcome = await env.withWorker(fake, async (start) => (await startBuy(start, 'B-2')).result());
  t.is(outcome.result, 'bought');
  const { progress } = outcome;
  t.is(progress.state, 'BOUGHT');
  t.is(progress.buyAttempts, 1);
  t.deepEqual(progress.product, (BOUGHT as Extract<typeof BOUGHT, { outcome: 'created' }>).product);
  t.deepEqual(progress.timeline.map((line) => line.state), ['BUYING', 'BOUGHT']);
  const written = fake.written();
  t.deepEqual(entriesOf(written, 'buy-outcome').map((entry) => [entry.attempt, entry.outcome]), [[1, 'created']]);
  t.is(entriesOf(written, 'product').length, 1);
  t.deepEqual(written.map((entry) => entry.seq), written.map((_, i) => 9 + i), 'numbered on from the carried sequence, without gaps');
});

test.serial('a buy not carried out but retryable is retried with growing backoff, up to maxBuyAttempts, then FAILED', async (t) => {
  const fake = fakeActivities({}, { buyOrder: notCreated(true) });
  const outcome = await env.withWorker(fake, async (start) => (await startBuy(start, 'B-3', { maxBuyAttempts: 4 })).result());
  t.is(outcome.result, 'failed');
  t.is(outcome.progress.state, 'FAILED');
  t.is(outcome.progress.timeline.at(-1)?.reason, 'the buy was not carried out: the API said 429');
  t.is(outcome.progress.buyAttempts, 4);
  t.deepEqual(fake.callsOf('buyOrder').map((call) => call.input.attempt), [1, 2, 3, 4]);

  const written = fake.written();
  const at = intents(written).map((entry) => entry.at);
  const gaps = at.slice(1).map((time, i) => time - at[i]!);
  for (const [i, expected] of [2_000, 4_000, 8_000].entries()) {
    t.true(gaps[i]! >= expected && gaps[i]! < expected + 2_000, `attempt ${i + 2} came ${gaps[i]} ms after the one before (backoff ${expected} ms)`);
  }
  t.deepEqual(
    entriesOf(written, 'note').map((note) => note.message),
    [1, 2, 3].map((n, i) => `buy attempt ${n} was not carried out (RateLimited); trying again in ${[2, 4, 8][i]} s`),
  );
  for (const attempt of [1, 2, 3, 4]) {
    const intent = intentCall(fake, attempt)!;
    const order = fake.callsOf('buyOrder').find((call) => call.input.attempt === attempt)!;
    t.true(intent.endedAt! <= order.startedAt && intent.n < order.n, `attempt ${attempt}: intent written before the buy`);
  }
});

test.serial('a retry waits as long as the API asked (retryAfterMs), then buys', async (t) => {
  const fake = fakeActivities({ buyOrder: [notCreated(true, 'the API said 429', 30_000), BOUGHT] });
  const outcome = await env.withWorker(fake, async (start) => (await startBuy(start, 'B-4')).result());
  t.is(outcome.result, 'bought');
  t.is(outcome.progress.buyAttempts, 2);
  const [first, second] = intents(fake.written());
  t.true(second!.at - first!.at >= 30_000);
  t.true(second!.at - first!.at < 32_000);
});

test.serial('a buy not carried out and not retryable ends FAILED at once', async (t) => {
  const fake = fakeActivities({ buyOrder: [notCreated(false, 'the API refused the order: 400 invalid vnic')] });
  const outcome = await env.withWorker(fake, async (start) => (await startBuy(start, 'B-5', { maxBuyAttempts: 6 })).result());
  t.is(outcome.result, 'failed');
  t.is(fake.callsOf('buyOrder').length, 1);
  t.is(outcome.progress.timeline.at(-1)?.reason, 'the buy was not carried out: the API refused the order: 400 invalid vnic');
  t.like(outcome.progress.lastError, { type: 'Refused', message: 'the API refused the order: 400 invalid vnic' });
});

test.serial('a buy intent the records refuse ends FAILED and buyOrder is never called', async (t) => {
  const refusal = refuse('the record of journal entry 10 (buy-intent) was refused: buy attempt 1 of this order already ended as created', 'BuyIntentRefused');
  const fake = fakeActivities({}, {
    recordJournal: (input) => {
      if (input.entries.some((entry) => entry.type === 'buy-intent')) refusal();
    },
  });
  const outcome = await env.withWorker(fake, async (start) => (await startBuy(start, 'B-6')).result());
  t.is(outcome.result, 'failed');
  t.is(fake.callsOf('buyOrder').length, 0, 'nothing sent to the provider');
  t.is(outcome.progress.state, 'FAILED');
  t.regex(outcome.progress.timeline.at(-1)!.reason, /^not buying: the record of journal entry 10 \(buy-intent\) was refused/);
  t.is(outcome.progress.lastError?.type, 'BuyIntentRefused');
  t.deepEqual(entriesOf(fake.written(), 'transition').map((entry) => entry.to), ['FAILED'], 'the refusal and the end are recorded afterwards');
});

test.serial('an uncertain buy waits in BUY_UNCERTAIN, reminding ops every buyUncertainReminderMs, until ops say it was created: bought', async (t) => {
  const fake = fakeActivities({ buyOrder: [uncertain()] });
  const outcome = await env.withWorker(fake, async (start) => {
    const handle = await startBuy(start, 'B-7', { buyUncertainReminderMs: HOUR });
    const parked = await inState(handle, 'BUY_UNCERTAIN');
    t.is(parked.lastError?.message, 'the connection was cut after the request was sent');
    await env.temporal.env.sleep(3.5 * HOUR);
    t.is((await handle.query(progressQuery)).buyRemindersSent, 3);
    await handle.executeUpdate(testResolve, { args: [{ actor: 'olga', attempt: 1, outcome: 'created', technicalServiceUid: UID, note: 'seen in the portal' }] });
    return handle.result();
  });
  t.is(outcome.result, 'bought');
  t.is(fake.callsOf('buyOrder').length, 1, 'an uncertain buy is never retried');
  t.deepEqual(outcome.progress.product, { technicalServiceUid: UID, provisioningStatus: 'UNKNOWN' });
  t.deepEqual(outcome.progress.timeline.map((line) => [line.state, line.actor]), [['BUYING', 'engine'], ['BUY_UNCERTAIN', 'engine'], ['BOUGHT', 'olga']]);
  t.is(outcome.progress.timeline.at(-1)?.reason, 'seen in the portal');

  const written = fake.written();
  const reminders = entriesOf(written, 'note').filter((note) => /^reminder \d/.test(note.message));
  t.deepEqual(reminders.map((note) => note.message.slice(0, 10)), ['reminder 1', 'reminder 2', 'reminder 3']);
  const parkedAt = entriesOf(written, 'transition').find((entry) => entry.to === 'BUY_UNCERTAIN')!.at;
  reminders.forEach((note, i) => {
    const offset = note.at - parkedAt;
    t.true(offset >= (i + 1) * HOUR && offset < (i + 1) * HOUR + 60_000, `reminder ${i + 1} ${offset} ms after parking`);
  });
  const events = fake.callsOf('notifyTicketSystem').map((call) => call.input.notification.event);
  t.is(events.filter((event) => event === 'buy-uncertain-reminder').length, 3);
  t.deepEqual(entriesOf(written, 'buy-outcome').map((entry) => [entry.attempt, entry.outcome, entry.resolvedBy]), [
    [1, 'uncertain', undefined],
    [1, 'created', 'olga'],
  ]);
});

test.serial('an uncertain buy ops say was not created returns "revalidate", still in BUY_UNCERTAIN for the gate', async (t) => {
  const fake = fakeActivities({ buyOrder: [uncertain()] });
  const outcome = await env.withWorker(fake, async (start) => {
    const handle = await startBuy(start, 'B-8', { buyUncertainReminderMs: HOUR });
    await inState(handle, 'BUY_UNCERTAIN');
    await handle.executeUpdate(testResolve, { args: [{ actor: 'olga', attempt: 1, outcome: 'not-created', note: 'nothing in the portal' }] });
    return handle.result();
  });
  t.is(outcome.result, 'revalidate');
  t.is(outcome.progress.state, 'BUY_UNCERTAIN');
  t.is(fake.callsOf('buyOrder').length, 1);
  const written = fake.written();
  t.like(entriesOf(written, 'buy-outcome').at(-1), { attempt: 1, outcome: 'not-created', resolvedBy: 'olga' });
  t.true(entriesOf(written, 'note').some((note) => note.actor === 'olga' && note.message === 'resolved: the MVE was not created (nothing in the portal)'));
});

test.serial('a buy activity that fails without reporting an outcome is uncertain, never retried', async (t) => {
  const fake = fakeActivities({
    buyOrder: [
      () => {
        throw new Error('worker lost the connection');
      },
    ],
  });
  const outcome = await env.withWorker(fake, async (start) => {
    const handle = await startBuy(start, 'B-9', { buyUncertainReminderMs: HOUR });
    const parked = await inState(handle, 'BUY_UNCERTAIN');
    t.is(parked.lastError?.message, 'worker lost the connection');
    await handle.executeUpdate(testResolve, { args: [{ actor: 'olga', attempt: 1, outcome: 'not-created', note: 'not in the portal' }] });
    return handle.result();
  });
  t.is(outcome.result, 'revalidate');
  t.is(fake.callsOf('buyOrder').length, 1);
});

test.serial('an uncertain buy carried into a new run (settleUncertainBuy alone) keeps counting its reminders', async (t) => {
  const fake = fakeActivities();
  const progress = await approved();
  progress.state = 'BUY_UNCERTAIN';
  progress.buyAttempts = 2;
  progress.buyRemindersSent = 5;
  const outcome = await env.withWorker(fake, async (start) => {
    const handle = await start(buyWorkflow, { request: orderRequest('B-10'), governing: governing(), progress, options: { buyUncertainReminderMs: HOUR }, settle: true });
    await inState(handle, 'BUY_UNCERTAIN');
    await env.temporal.env.sleep(1.5 * HOUR);
    t.is((await handle.query(progressQuery)).buyRemindersSent, 6);
    await handle.executeUpdate(testResolve, { args: [{ actor: 'olga', attempt: 2, outcome: 'created', technicalServiceUid: UID, provisioningStatus: 'LIVE' }] });
    return handle.result();
  });
  t.is(outcome.result, 'bought');
  t.is(fake.callsOf('buyOrder').length, 0, 'nothing bought again');
  t.deepEqual(outcome.progress.product, { technicalServiceUid: UID, provisioningStatus: 'LIVE' });
  t.is(outcome.progress.timeline.at(-1)?.reason, `created ${UID} (LIVE)`);
  t.true(entriesOf(fake.written(), 'note').some((note) => note.message.startsWith('reminder 6:')));
});
