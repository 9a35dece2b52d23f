/** buy.ts: the buy loop (write-ahead intent, retries of what provably did not happen) and the uncertain buy. */
import anyTest, { type TestFn } from 'ava';
import type { WorkflowHandle } from '@temporalio/client';
import type { JournalEntry, QuoteRecord } from '../../../workflows/order/activity-types.js';
import { newProgress, type OrderProgress } from '../../../workflows/order/progress.js';
import type { OrderWorkflowOptions } from '../../../workflows/order/types.js';
import { waitFor } from '../../helpers/wait.js';
import { buyWorkflow, progressQuery, testResolve } from './fixtures/module-workflows.js';
import {
  BOUGHT,
  entriesOf,
  fakeActivities,
  notCreated,
  refuse,
  toldOf,
  uncertain,
  type Fake,
} from './fixtures/fake-activities.js';
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
  return waitFor(
    async () => {
      const progress = await handle.query(progressQuery).catch(() => undefined);
      return progress?.state === state ? progress : undefined;
    },
    20_000,
    state,
  );
}

/** The buyOrder call of `attempt` that carried its intent (the activity writes its journal before it sends). */
function intentCarrier(fake: Fake, attempt: number) {
  return fake
    .callsOf('buyOrder')
    .find(
      (call) =>
        call.input.attempt === attempt &&
        call.input.journal.some((entry) => entry.type === 'buy-intent' && entry.attempt === attempt),
    );
}

const intents = (entries: JournalEntry[]) => entriesOf(entries, 'buy-intent');
const TARGETS_SENT = {
  location: { id: TARGETS.location.id },
  image: { id: TARGETS.image.id, vendor: TARGETS.image.vendor, product: TARGETS.image.product },
};
const UNRECORDED = { outcome: 'unrecorded', error: { type: 'Error', message: 'the database did not answer' } } as const;

test.serial(
  'write-ahead: the buy carries the journal up to its intent, to write before it sends; no journal activity of its own',
  async (t) => {
    const fake = fakeActivities();
    const outcome = await env.withWorker(fake, async (start) => (await startBuy(start, 'B-1')).result());
    t.is(outcome.result, 'bought');

    const [order] = fake.callsOf('buyOrder');
    const { journal } = order.input;
    t.deepEqual(
      journal.map((entry) => (entry.type === 'transition' ? `${entry.from}->${entry.to}` : entry.type)),
      ['APPROVED->BUYING', 'buy-intent'],
      "the move to BUYING and the intent, in the buy's own input",
    );
    t.is(order.input.attempt, 1, 'the buy names the attempt the intent recorded');
    // Only what building the buy needs: no request (the activity reads it from the run's start input), no warnings.
    t.deepEqual(order.input, {
      targets: TARGETS_SENT,
      attempt: 1,
      journal,
      recordCreated: { seq: 10, actor: 'engine' },
    });
    const beforeBuy = fake.callsOf('recordJournal').filter((call) => call.n < order.n);
    t.deepEqual(beforeBuy, [], 'no journal activity before the buy');
  },
);

test.serial(
  'a buy that could not write its journal sent nothing: the journal is written by its own activity, then the same attempt is bought',
  async (t) => {
    const fake = fakeActivities({ buyOrder: [UNRECORDED, BOUGHT] });
    const outcome = await env.withWorker(fake, async (start) => (await startBuy(start, 'B-1U')).result());
    t.is(outcome.result, 'bought');
    t.is(outcome.progress.buyAttempts, 1, 'nothing was sent, so no attempt was spent');
    const [first, second] = fake.callsOf('buyOrder');
    const journalCall = fake.callsOf('recordJournal').find((call) => intents(call.input.entries).length > 0)!;
    t.true(
      first.n < journalCall.n && journalCall.endedAt! <= second.startedAt,
      'the journal was written between the two',
    );
    t.deepEqual(
      second.input,
      { targets: TARGETS_SENT, attempt: 1, journal: [], recordCreated: { seq: 10, actor: 'engine' } },
      'the second buy carries no journal: it is written',
    );
    t.deepEqual(
      intents(fake.written()).map((entry) => entry.attempt),
      [1],
    );
  },
);

test.serial('a buy that creates the MVE ends BOUGHT with the product recorded', async (t) => {
  const fake = fakeActivities();
  const outcome = await env.withWorker(fake, async (start) => (await startBuy(start, 'B-2')).result());
  t.is(outcome.result, 'bought');
  const { progress } = outcome;
  t.is(progress.state, 'BOUGHT');
  t.is(progress.buyAttempts, 1);
  t.deepEqual(progress.product, {
    technicalServiceUid: '00000000-0000-4000-8000-00000000000a',
    provisioningStatus: 'DEPLOYABLE',
  });
  t.deepEqual(
    progress.timeline.map((line) => line.state),
    ['BUYING', 'BOUGHT'],
  );
  const written = fake.written();
  t.deepEqual(
    entriesOf(written, 'buy-outcome').map((entry) => [entry.attempt, entry.outcome]),
    [[1, 'created']],
  );
  t.is(entriesOf(written, 'product').length, 1);
  t.deepEqual(
    written.map((entry) => entry.seq),
    written.map((_, i) => 9 + i),
    'numbered on from the carried sequence, without gaps',
  );
});

test.serial(
  'a created MVE is recorded by the buy itself: no journal activity after it, and the progress follows its entries',
  async (t) => {
    const fake = fakeActivities();
    const outcome = await env.withWorker(fake, async (start) => (await startBuy(start, 'B-2R')).result());
    t.is(outcome.result, 'bought');
    t.deepEqual(
      fake.callsOf('recordJournal'),
      [],
      'the buy wrote the journal before it sent and the record of what it created after',
    );
    const [order] = fake.callsOf('buyOrder');
    t.deepEqual(order.input.recordCreated, { seq: 10, actor: 'engine' }, 'numbered on from the intent (10)');
    const bought = outcome.progress.timeline.at(-1)!;
    const created = order.answer?.outcome === 'created' ? order.answer.journal!.entries : [];
    const transition = entriesOf(created, 'transition')[0];
    t.deepEqual(
      bought,
      {
        seq: 13,
        at: new Date(transition.at).toISOString(),
        state: 'BOUGHT',
        actor: 'engine',
        reason: transition.reason,
      },
      'the timeline shows what Postgres has',
    );
    t.is(outcome.progress.seq, 13);
  },
);

test.serial('a created MVE the buy could not record is journaled by the workflow', async (t) => {
  const fake = fakeActivities({ buyOrder: [(input) => BOUGHT(input, false)] });
  const outcome = await env.withWorker(fake, async (start) => (await startBuy(start, 'B-2W')).result());
  t.is(outcome.result, 'bought');
  const [journal] = fake.callsOf('recordJournal');
  t.deepEqual(
    journal?.input.entries.map((entry) => [entry.seq, entry.type]),
    [
      [11, 'buy-outcome'],
      [12, 'product'],
      [13, 'transition'],
    ],
  );
  t.is(outcome.progress.product?.provisioningStatus, 'DEPLOYABLE');
});

test.serial(
  'a note made while the buy is out is numbered past the numbers the buy reserved for its record',
  async (t) => {
    const fake = fakeActivities({
      buyOrder: [
        async (input) => {
          await new Promise((resolve) => setTimeout(resolve, 500));
          return BOUGHT(input);
        },
      ],
      notifyTicketSystem: [refuse('the ticket system is down')],
    });
    const outcome = await env.withWorker(fake, async (start) => (await startBuy(start, 'B-2N')).result());
    t.is(outcome.result, 'bought');
    const written = fake.written();
    const seqs = written.map((entry) => entry.seq);
    t.is(new Set(seqs).size, seqs.length, `every number once: ${seqs.join(', ')}`);
    const note = entriesOf(written, 'note').find((entry) => /did not accept notification/.test(entry.message));
    t.is(note?.seq, 14, 'after the intent (10) and the three numbers the buy took (11-13)');
    t.is(entriesOf(written, 'transition').at(-1)?.seq, 13);
  },
);

test.serial(
  'a buy that creates nothing gives its reserved numbers back: the record goes on without a gap',
  async (t) => {
    const fake = fakeActivities({ buyOrder: [notCreated(false, 'the API refused the order: 400 invalid vnic')] });
    const outcome = await env.withWorker(fake, async (start) => (await startBuy(start, 'B-2G')).result());
    t.is(outcome.result, 'failed');
    const seqs = fake.written().map((entry) => entry.seq);
    t.deepEqual(
      seqs,
      seqs.map((_, i) => 9 + i),
    );
  },
);

test.serial(
  'a buy not carried out but retryable is retried with growing backoff, up to maxBuyAttempts, then FAILED',
  async (t) => {
    const fake = fakeActivities({}, { buyOrder: notCreated(true) });
    const outcome = await env.withWorker(fake, async (start) =>
      (await startBuy(start, 'B-3', { maxBuyAttempts: 4 })).result(),
    );
    t.is(outcome.result, 'failed');
    t.is(outcome.progress.state, 'FAILED');
    t.is(outcome.progress.timeline.at(-1)?.reason, 'the buy was not carried out: the API said 429');
    t.is(outcome.progress.buyAttempts, 4);
    t.deepEqual(
      fake.callsOf('buyOrder').map((call) => call.input.attempt),
      [1, 2, 3, 4],
    );

    const written = fake.written();
    const at = intents(written).map((entry) => entry.at);
    const gaps = at.slice(1).map((time, i) => time - at[i]);
    // Each attempt waits out its backoff (on workflow time; a loaded machine only adds to it), as the notes say.
    for (const [i, expected] of [2_000, 4_000, 8_000].entries()) {
      t.true(gaps[i] >= expected, `attempt ${i + 2} came ${gaps[i]} ms after the one before (backoff ${expected} ms)`);
    }
    t.deepEqual(
      entriesOf(written, 'note').map((note) => note.message),
      [1, 2, 3].map((n, i) => `buy attempt ${n} was not carried out (RateLimited); trying again in ${[2, 4, 8][i]} s`),
    );
    for (const attempt of [1, 2, 3, 4])
      t.truthy(intentCarrier(fake, attempt), `attempt ${attempt}: the buy carried its intent`);
  },
);

test.serial('a retry waits as long as the API asked (retryAfterMs), then buys', async (t) => {
  const fake = fakeActivities({ buyOrder: [notCreated(true, 'the API said 429', 30_000), BOUGHT] });
  const outcome = await env.withWorker(fake, async (start) => (await startBuy(start, 'B-4')).result());
  t.is(outcome.result, 'bought');
  t.is(outcome.progress.buyAttempts, 2);
  const [first, second] = intents(fake.written());
  // 30 s as asked, not the 2 s of the first backoff step (a loaded machine only adds to the wait).
  t.true(second.at - first.at >= 30_000);
});

test.serial('a buy not carried out and not retryable ends FAILED at once', async (t) => {
  const fake = fakeActivities({ buyOrder: [notCreated(false, 'the API refused the order: 400 invalid vnic')] });
  const outcome = await env.withWorker(fake, async (start) =>
    (await startBuy(start, 'B-5', { maxBuyAttempts: 6 })).result(),
  );
  t.is(outcome.result, 'failed');
  t.is(fake.callsOf('buyOrder').length, 1);
  t.is(
    outcome.progress.timeline.at(-1)?.reason,
    'the buy was not carried out: the API refused the order: 400 invalid vnic',
  );
  t.like(outcome.progress.lastError, { type: 'Refused', message: 'the API refused the order: 400 invalid vnic' });
});

test.serial('a buy intent the records refuse ends FAILED and nothing is sent', async (t) => {
  const refusal = refuse(
    'the record of journal entry 10 (buy-intent) was refused: buy attempt 1 of this order already ended as created',
    'BuyIntentRefused',
  );
  // As the real activity does: the refused intent is not written, so nothing is sent; the workflow writes the journal
  // itself, and the records refuse it again, for good.
  const fake = fakeActivities(
    { buyOrder: [{ outcome: 'unrecorded', error: { type: 'BuyIntentRefused', message: 'refused' } }] },
    {
      recordJournal: (input) => {
        if (input.entries.some((entry) => entry.type === 'buy-intent')) refusal();
      },
    },
  );
  const outcome = await env.withWorker(fake, async (start) => (await startBuy(start, 'B-6')).result());
  t.is(outcome.result, 'failed');
  t.is(fake.callsOf('buyOrder').length, 1, 'one buy, which sent nothing');
  t.is(outcome.progress.state, 'FAILED');
  t.regex(
    outcome.progress.timeline.at(-1)!.reason,
    /^not buying: the record of journal entry 10 \(buy-intent\) was refused/,
  );
  t.is(outcome.progress.lastError?.type, 'BuyIntentRefused');
  t.deepEqual(
    entriesOf(fake.written(), 'transition').map((entry) => entry.to),
    ['FAILED'],
    'the refusal and the end are recorded afterwards',
  );
});

test.serial(
  'an uncertain buy waits in BUY_UNCERTAIN, reminding ops every buyUncertainReminderMs, until ops say it was created: bought',
  async (t) => {
    const fake = fakeActivities({ buyOrder: [uncertain()] });
    const outcome = await env.withWorker(fake, async (start) => {
      const handle = await startBuy(start, 'B-7', { buyUncertainReminderMs: HOUR });
      const parked = await inState(handle, 'BUY_UNCERTAIN');
      t.is(parked.lastError?.message, 'the connection was cut after the request was sent');
      await env.temporal.env.sleep(3.5 * HOUR);
      t.is((await handle.query(progressQuery)).buyRemindersSent, 3);
      await handle.executeUpdate(testResolve, {
        args: [{ actor: 'olga', attempt: 1, outcome: 'created', technicalServiceUid: UID, note: 'seen in the portal' }],
      });
      return handle.result();
    });
    t.is(outcome.result, 'bought');
    t.is(fake.callsOf('buyOrder').length, 1, 'an uncertain buy is never retried');
    t.deepEqual(outcome.progress.product, { technicalServiceUid: UID, provisioningStatus: 'UNKNOWN' });
    t.deepEqual(
      outcome.progress.timeline.map((line) => [line.state, line.actor]),
      [
        ['BUYING', 'engine'],
        ['BUY_UNCERTAIN', 'engine'],
        ['BOUGHT', 'olga'],
      ],
    );
    t.is(outcome.progress.timeline.at(-1)?.reason, 'seen in the portal');

    const written = fake.written();
    const reminders = entriesOf(written, 'note').filter((note) => /^reminder \d/.test(note.message));
    t.deepEqual(
      reminders.map((note) => note.message.slice(0, 10)),
      ['reminder 1', 'reminder 2', 'reminder 3'],
    );
    const parkedAt = entriesOf(written, 'transition').find((entry) => entry.to === 'BUY_UNCERTAIN')!.at;
    reminders.forEach((note, i) => {
      const offset = note.at - parkedAt;
      t.true(
        offset >= (i + 1) * HOUR && offset < (i + 1) * HOUR + 60_000,
        `reminder ${i + 1} ${offset} ms after parking`,
      );
    });
    const events = toldOf(fake).map((told) => told.event);
    t.is(events.filter((event) => event === 'buy-uncertain-reminder').length, 3);
    t.deepEqual(
      entriesOf(written, 'buy-outcome').map((entry) => [entry.attempt, entry.outcome, entry.resolvedBy]),
      [
        [1, 'uncertain', undefined],
        [1, 'created', 'olga'],
      ],
    );
  },
);

test.serial(
  'an uncertain buy ops say was not created returns "revalidate", still in BUY_UNCERTAIN for the gate',
  async (t) => {
    const fake = fakeActivities({ buyOrder: [uncertain()] });
    const outcome = await env.withWorker(fake, async (start) => {
      const handle = await startBuy(start, 'B-8', { buyUncertainReminderMs: HOUR });
      await inState(handle, 'BUY_UNCERTAIN');
      await handle.executeUpdate(testResolve, {
        args: [{ actor: 'olga', attempt: 1, outcome: 'not-created', note: 'nothing in the portal' }],
      });
      return handle.result();
    });
    t.is(outcome.result, 'revalidate');
    t.is(outcome.progress.state, 'BUY_UNCERTAIN');
    t.is(fake.callsOf('buyOrder').length, 1);
    const written = fake.written();
    t.like(entriesOf(written, 'buy-outcome').at(-1), { attempt: 1, outcome: 'not-created', resolvedBy: 'olga' });
    t.true(
      entriesOf(written, 'note').some(
        (note) => note.actor === 'olga' && note.message === 'resolved: the MVE was not created (nothing in the portal)',
      ),
    );
  },
);

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
    await handle.executeUpdate(testResolve, {
      args: [{ actor: 'olga', attempt: 1, outcome: 'not-created', note: 'not in the portal' }],
    });
    return handle.result();
  });
  t.is(outcome.result, 'revalidate');
  t.is(fake.callsOf('buyOrder').length, 1);
  t.deepEqual(
    fake.callsOf('closeUnsentBuy').map((call) => call.input),
    [{ attempt: 1 }],
    'asked whether its request left: it may have',
  );
  // It may not have written its journal: the workflow wrote it, so the intent is in the records whatever happened.
  const rewritten = fake.callsOf('recordJournal').find((call) => intents(call.input.entries).length > 0);
  t.deepEqual(rewritten && intents(rewritten.input.entries).map((entry) => entry.attempt), [1]);
  t.true(rewritten!.n > fake.callsOf('buyOrder')[0].n);
  // It may have recorded a created MVE in the three numbers reserved after its intent: what follows is numbered past
  // them, so the records take the move to BUY_UNCERTAIN instead of dropping it as written already.
  const written = fake.written();
  const intent = intents(written)[0];
  t.deepEqual(
    written.filter((entry) => entry.seq > intent.seq && entry.seq <= intent.seq + 3),
    [],
  );
  t.is(entriesOf(written, 'buy-outcome')[0]?.seq, intent.seq + 4);
  t.true(entriesOf(written, 'transition').some((entry) => entry.to === 'BUY_UNCERTAIN' && entry.seq > intent.seq + 4));
});

test.serial(
  'a buy activity lost before its request left is closed as not created and bought with a new attempt',
  async (t) => {
    const fake = fakeActivities({
      buyOrder: [
        () => {
          throw new Error('worker lost the connection');
        },
      ],
      closeUnsentBuy: [true],
    });
    const outcome = await env.withWorker(fake, async (start) => (await startBuy(start, 'B-9N')).result());
    t.is(outcome.result, 'bought');
    t.deepEqual(
      fake.callsOf('buyOrder').map((call) => call.input.attempt),
      [1, 2],
    );
    const written = fake.written();
    t.like(entriesOf(written, 'buy-outcome')[0], {
      attempt: 1,
      outcome: 'not-created',
      error: { type: 'BuyNotSent', message: 'worker lost the connection; its request never left' },
    });
    t.true(
      entriesOf(written, 'note').some(
        (note) => note.message === 'buy attempt 1 was not carried out (BuyNotSent); trying again in 2 s',
      ),
    );
    const close = fake.callsOf('closeUnsentBuy')[0];
    const rewrite = fake.callsOf('recordJournal').find((call) => intents(call.input.entries).length > 0)!;
    t.true(rewrite.n < close.n, 'the intent is in the records before the attempt is closed');
  },
);

test.serial(
  'a lost buy whose journal the records then refuse (it may have recorded what it bought) is uncertain, not failed',
  async (t) => {
    const fake = fakeActivities(
      {
        buyOrder: [
          () => {
            throw new Error('worker lost after the buy');
          },
        ],
      },
      {
        recordJournal: (input) =>
          intents(input.entries).length
            ? refuse('buy attempt 1 of this order already ended as created', 'BuyIntentRefused')()
            : undefined,
      },
    );
    const outcome = await env.withWorker(fake, async (start) => {
      const handle = await startBuy(start, 'B-9R', { buyUncertainReminderMs: HOUR });
      const parked = await inState(handle, 'BUY_UNCERTAIN');
      t.is(parked.lastError?.message, 'worker lost after the buy');
      await handle.executeUpdate(testResolve, {
        args: [{ actor: 'olga', attempt: 1, outcome: 'created', technicalServiceUid: UID, note: 'seen in the portal' }],
      });
      return handle.result();
    });
    t.is(outcome.result, 'bought');
    t.deepEqual(fake.callsOf('closeUnsentBuy'), [], 'its attempt has an outcome: nothing to close');
  },
);

test.serial(
  'an uncertain buy carried into a new run (settleUncertainBuy alone) keeps counting its reminders',
  async (t) => {
    const fake = fakeActivities();
    const progress = await approved();
    progress.state = 'BUY_UNCERTAIN';
    progress.buyAttempts = 2;
    progress.buyRemindersSent = 5;
    const outcome = await env.withWorker(fake, async (start) => {
      const handle = await start(buyWorkflow, {
        request: orderRequest('B-10'),
        governing: governing(),
        progress,
        options: { buyUncertainReminderMs: HOUR },
        settle: true,
      });
      await inState(handle, 'BUY_UNCERTAIN');
      await env.temporal.env.sleep(1.5 * HOUR);
      t.is((await handle.query(progressQuery)).buyRemindersSent, 6);
      await handle.executeUpdate(testResolve, {
        args: [{ actor: 'olga', attempt: 2, outcome: 'created', technicalServiceUid: UID, provisioningStatus: 'LIVE' }],
      });
      return handle.result();
    });
    t.is(outcome.result, 'bought');
    t.is(fake.callsOf('buyOrder').length, 0, 'nothing bought again');
    t.deepEqual(outcome.progress.product, { technicalServiceUid: UID, provisioningStatus: 'LIVE' });
    t.is(outcome.progress.timeline.at(-1)?.reason, `created ${UID} (LIVE)`);
    t.true(entriesOf(fake.written(), 'note').some((note) => note.message.startsWith('reminder 6:')));
  },
);
