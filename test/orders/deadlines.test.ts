import anyTest, { type TestFn } from 'ava';
import { OrderRefusedError } from '../../client/orders/index.js';
import { usePostgres } from '../helpers/postgres.js';
import {
  orderOf,
  replayEveryHistory,
  startCallbackReceiver,
  startOrderEngine,
  sydneyRequest,
  type CallbackReceiver,
  type OrderEngine,
} from '../helpers/orders.js';
import { waitForState } from '../helpers/wait.js';

const test = anyTest as TestFn<{ engine: OrderEngine; tickets: CallbackReceiver }>;
const pg = usePostgres(test);
const HOUR = 60 * 60 * 1000;

test.before(async (t) => {
  // Quotes age for hours and rounds wait out 72 h deadlines: on the time-skipping server, in milliseconds.
  t.context.engine = await startOrderEngine(pg, { temporal: 'time-skipping' });
  t.context.tickets = await startCallbackReceiver();
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
  await t.context.tickets?.close();
});

test.serial(
  'an order nobody decides expires at the deadline, after the reminders, all reported to the ticket system',
  async (t) => {
    const { engine, tickets } = t.context;
    const started = Date.now();
    const submitted = await engine.submit(sydneyRequest('EXPIRE-1', { size: 'MVE 8/32', callbackUrl: tickets.url }));
    await waitForState(engine.orders, 'EXPIRE-1', 'AWAITING_APPROVAL');
    const outcome = await engine.orders.result(orderOf('EXPIRE-1'));
    t.is(outcome.state, 'EXPIRED');
    t.true(Date.now() - started < 60_000, 'three days of deadline pass in skipped time');

    const status = await engine.orders.status(orderOf('EXPIRE-1'));
    t.is(status.approval?.remindersSent, 2, 'the policy reminds 24 h and 1 h before the deadline');
    const notes = (await engine.repository.getOrder(submitted.workflowId))!.notes;
    t.is(notes.filter((note) => /^reminder \d/.test(note.message)).length, 2);
    const record = await engine.repository.getOrder(submitted.workflowId);
    t.is(record?.order.status, 'EXPIRED');

    const mine = tickets.received.filter((notification) => notification.ticketId === 'EXPIRE-1');
    t.is(tickets.badSignatures, 0);
    t.is(mine.filter((notification) => notification.event === 'approval-reminder').length, 2);
    t.deepEqual(
      mine.filter((notification) => notification.event === 'state-changed').map((notification) => notification.state),
      ['LOOKING_UP', 'VALIDATING', 'AWAITING_APPROVAL', 'EXPIRED'],
    );
    const sequences = mine.map((notification) => notification.seq);
    t.deepEqual(
      sequences,
      [...sequences].sort((a, b) => a - b),
      'notifications arrive in order',
    );
  },
);

test.serial('a stale quote is validated again; a rise beyond the allowance goes back for approval', async (t) => {
  const { engine } = t.context;
  await engine.submit(sydneyRequest('REQUOTE-1', { size: 'MVE 8/32' }));
  const first = await waitForState(engine.orders, 'REQUOTE-1', 'AWAITING_APPROVAL');
  const oldQuote = { monthlyRate: first.quote!.monthlyRate, currency: first.quote!.currency };
  t.is(oldQuote.monthlyRate, 1618.2);

  await engine.temporal.env.sleep(13 * HOUR); // older than the policy's 12 h
  engine.sim.setPriceFactor(1.1);
  try {
    await engine.orders.approve(orderOf('REQUOTE-1'), { approverId: 'fiona', ...oldQuote });
    const again = await waitForState(engine.orders, 'REQUOTE-1', 'AWAITING_APPROVAL', 30_000);
    t.is(again.quote?.monthlyRate, 1780.02);
    t.deepEqual(again.approval?.votes, [], 'a new round starts with no votes');
    const stale = await t.throwsAsync(
      engine.orders.approve(orderOf('REQUOTE-1'), { approverId: 'fiona', ...oldQuote }),
      {
        instanceOf: OrderRefusedError,
      },
    );
    t.is(stale?.code, 'QUOTE_NOT_CURRENT');
    await engine.orders.approve(orderOf('REQUOTE-1'), { approverId: 'fiona', monthlyRate: 1780.02, currency: 'AUD' });
    const outcome = await engine.orders.result(orderOf('REQUOTE-1'));
    t.is(outcome.state, 'BOUGHT');
    t.is(outcome.quote?.monthlyRate, 1780.02);
    const states = (await engine.orders.status(orderOf('REQUOTE-1'))).timeline.map((entry) => entry.state);
    t.deepEqual(states, [
      'RECEIVED',
      'LOOKING_UP',
      'VALIDATING',
      'AWAITING_APPROVAL',
      'APPROVED',
      'VALIDATING',
      'AWAITING_APPROVAL',
      'APPROVED',
      'VALIDATING',
      'APPROVED',
      'BUYING',
      'BOUGHT',
    ]);
  } finally {
    engine.sim.setPriceFactor(1);
  }
});

test.serial(
  'a fresh quote is validated again right after the approval: a price that rose meanwhile goes back for approval',
  async (t) => {
    const { engine } = t.context;
    await engine.submit(sydneyRequest('REQUOTE-3', { size: 'MVE 8/32' }));
    const first = await waitForState(engine.orders, 'REQUOTE-3', 'AWAITING_APPROVAL');
    const validatesBefore = engine.sim.state().calls.validate ?? 0;
    const buysBefore = engine.sim.state().calls.buy ?? 0;
    engine.sim.setPriceFactor(1.1); // the price moves within minutes, far inside the policy's 12 h quote age
    try {
      await engine.orders.approve(orderOf('REQUOTE-3'), {
        approverId: 'fiona',
        monthlyRate: first.quote!.monthlyRate,
        currency: 'AUD',
      });
      const again = await waitForState(engine.orders, 'REQUOTE-3', 'AWAITING_APPROVAL', 30_000);
      t.is(again.quote?.monthlyRate, 1780.02, 'the approval of 1,618.20 does not buy at 1,780.02');
      t.is(
        (engine.sim.state().calls.validate ?? 0) - validatesBefore,
        1,
        'validated once more, right after the approval',
      );
      t.is(engine.sim.state().calls.buy ?? 0, buysBefore, 'nothing bought');
      await engine.orders.cancel(orderOf('REQUOTE-3'), { actor: 'alice', reason: 'test done' });
      t.is((await engine.orders.result(orderOf('REQUOTE-3'))).state, 'CANCELLED');
    } finally {
      engine.sim.setPriceFactor(1);
    }
  },
);

test.serial('a stale quote that rose within the allowance is bought on the approval given', async (t) => {
  const { engine } = t.context;
  await engine.submit(sydneyRequest('REQUOTE-2', { size: 'MVE 8/32' }));
  const first = await waitForState(engine.orders, 'REQUOTE-2', 'AWAITING_APPROVAL');
  await engine.temporal.env.sleep(13 * HOUR);
  engine.sim.setPriceFactor(1.01); // +1 %, within the policy's 2 %
  try {
    await engine.orders.approve(orderOf('REQUOTE-2'), {
      approverId: 'fiona',
      monthlyRate: first.quote!.monthlyRate,
      currency: 'AUD',
    });
    const outcome = await engine.orders.result(orderOf('REQUOTE-2'));
    t.is(outcome.state, 'BOUGHT');
    t.is(outcome.quote?.monthlyRate, 1634.38);
    const states = (await engine.orders.status(orderOf('REQUOTE-2'))).timeline.map((entry) => entry.state);
    t.deepEqual(states.slice(-5), ['APPROVED', 'VALIDATING', 'APPROVED', 'BUYING', 'BOUGHT']);
  } finally {
    engine.sim.setPriceFactor(1);
  }
});

test.serial('every history of this file replays cleanly', async (t) => {
  const { replayed, failures } = await replayEveryHistory(t.context.engine);
  t.true(replayed >= 3);
  t.deepEqual(failures, []);
});
