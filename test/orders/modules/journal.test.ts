/** journal.ts: the order's journal, one recordJournal activity per flush. */
import anyTest, { type TestFn } from 'ava';
import { journalWorkflow } from './fixtures/module-workflows.js';
import { after, fakeActivities, held, refuse, type Call } from './fixtures/fake-activities.js';
import { useModuleEnv } from './fixtures/harness.js';
import { orderRequest } from './fixtures/order-input.js';

const test = anyTest as TestFn<unknown>;
const env = useModuleEnv(test);

/** The messages of the notes one recordJournal call carried. */
const messages = (call: Call<'recordJournal'>) =>
  call.input.entries.map((entry) => (entry.type === 'note' ? entry.message : entry.type));

test.serial(
  'entries go out in the order pushed; one flush is one recordJournal call with everything pushed before it',
  async (t) => {
    const fake = fakeActivities();
    const result = await env.withWorker(fake, async (start) => {
      const handle = await start(journalWorkflow, {
        request: orderRequest('J-1'),
        steps: [
          { push: 'a' },
          { push: 'b' },
          { push: 'c' },
          { flush: 'await' },
          { push: 'd' },
          { flush: 'await' },
          { flush: 'await' },
        ],
      });
      return { handle, result: await handle.result() };
    });
    const calls = fake.callsOf('recordJournal');
    t.deepEqual(
      calls.map(messages),
      [['a', 'b', 'c'], ['d']],
      'two flushes with entries, two calls; a flush with nothing to write makes none',
    );
    t.deepEqual(
      fake.written().map((entry) => entry.seq),
      [1, 2, 3, 4],
      'in the order pushed, numbered in that order',
    );
    t.deepEqual(
      result.result.flushes.map((flush) => flush.outcome),
      ['written', 'written', 'written'],
    );
    // Only the entries: the activity knows its run from its context (no workflow id, run id, environment or ticket).
    t.deepEqual(Object.keys(calls[0].input), ['entries']);
  },
);

test.serial('a flush waits for the previous one to be written before it writes', async (t) => {
  const fake = fakeActivities({ recordJournal: [after(500, undefined)] });
  const { flushes, settled } = await env.withWorker(fake, async (start) => {
    const handle = await start(journalWorkflow, {
      request: orderRequest('J-2'),
      steps: [{ push: 'a' }, { flush: 'start' }, { push: 'b' }, { flush: 'start' }, { push: 'c' }, { flush: 'start' }],
    });
    return handle.result();
  });
  const [first, second, third] = fake.callsOf('recordJournal');
  t.deepEqual(
    [first, second, third].map((call) => messages(call)),
    [['a'], ['b'], ['c']],
  );
  t.true(second.startedAt >= first.endedAt!, 'the second write began only after the slow first one ended');
  t.true(third.startedAt >= second.endedAt!);
  t.deepEqual(
    fake.log.map((line) => `${line.phase} ${line.n}`),
    ['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2'],
    'never two writes at once',
  );
  t.deepEqual(settled, [0, 1, 2], 'flushes resolve in the order they were made');
  t.deepEqual(
    flushes.map((flush) => flush.outcome),
    ['written', 'written', 'written'],
  );
});

test.serial(
  'a batch the records refuse rejects that flush only: the next one still waits for it, then is written',
  async (t) => {
    const refusal = refuse('the record of journal entry 1 (buy-intent) was refused: conflict', 'BuyIntentRefused');
    const fake = fakeActivities({
      recordJournal: [
        async () => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          refusal();
        },
      ],
    });
    const { flushes } = await env.withWorker(fake, async (start) => {
      const handle = await start(journalWorkflow, {
        request: orderRequest('J-3'),
        steps: [{ push: 'refused' }, { flush: 'start' }, { push: 'after' }, { flush: 'start' }],
      });
      return handle.result();
    });
    t.deepEqual(flushes, [
      { flush: 0, outcome: 'refused', message: 'the record of journal entry 1 (buy-intent) was refused: conflict' },
      { flush: 1, outcome: 'written' },
    ]);
    const [refused, written] = fake.callsOf('recordJournal');
    t.is(fake.callsOf('recordJournal').length, 2, 'a refusal is final: the refused batch is not written again');
    t.true(written.startedAt >= refused.endedAt!, 'the flush after a refused one still waited for it');
    t.deepEqual(messages(written), ['after'], 'the refused entries are not carried into the next batch');
  },
);

test.serial('a write that fails for now (the database is down) is retried until it is written', async (t) => {
  const fake = fakeActivities({
    recordJournal: [
      () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      },
    ],
  });
  const { flushes } = await env.withWorker(fake, async (start) => {
    const handle = await start(journalWorkflow, {
      request: orderRequest('J-4'),
      steps: [{ push: 'a' }, { flush: 'await' }],
    });
    return handle.result();
  });
  t.deepEqual(
    flushes.map((flush) => flush.outcome),
    ['written'],
  );
  t.deepEqual(
    fake.callsOf('recordJournal').map((call) => call.outcome),
    [{ error: 'connect ECONNREFUSED 127.0.0.1:5432' }, 'ok'],
  );
  t.deepEqual(fake.callsOf('recordJournal').map(messages), [['a'], ['a']], 'the same batch, again');
});

test.serial(
  'a flush made in a scope that is cancelled at once is still written, also one that waits behind a slow write',
  async (t) => {
    const fake = fakeActivities({ recordJournal: [after(400, undefined), after(200, undefined)] });
    const { flushes } = await env.withWorker(fake, async (start) => {
      const handle = await start(journalWorkflow, {
        request: orderRequest('J-5'),
        steps: [{ push: 'slow' }, { flush: 'cancelled-scope' }, { push: 'queued' }, { flush: 'cancelled-scope' }],
      });
      return handle.result();
    });
    t.deepEqual(
      flushes.map((flush) => flush.outcome),
      ['written', 'written'],
    );
    const calls = fake.callsOf('recordJournal');
    t.deepEqual(calls.map(messages), [['slow'], ['queued']]);
    t.deepEqual(
      calls.map((call) => [call.outcome, call.cancelled]),
      [
        ['ok', false],
        ['ok', false],
      ],
      'neither write was asked to stop',
    );
  },
);

test.serial('an order cancelled from Temporal still writes its journal', async (t) => {
  const first = held<void>();
  const fake = fakeActivities({ recordJournal: [first.answer] });
  const { flushes } = await env.withWorker(fake, async (start) => {
    const handle = await start(journalWorkflow, {
      request: orderRequest('J-6'),
      steps: [
        { push: 'before' },
        { flush: 'start' },
        { waitForCancel: true },
        { push: 'why it ended' },
        { flush: 'await' },
      ],
    });
    await fake.called('recordJournal');
    await handle.cancel();
    first.release();
    return handle.result();
  });
  t.deepEqual(
    flushes.map((flush) => flush.outcome),
    ['written', 'written'],
  );
  t.deepEqual(fake.callsOf('recordJournal').map(messages), [['before'], ['why it ended']]);
  t.false(
    fake.calls.some((call) => call.cancelled),
    'no write was asked to stop',
  );
});
