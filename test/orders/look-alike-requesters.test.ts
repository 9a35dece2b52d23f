/**
 * Self-approval is refused by the requester's identity inside the workflow (its update validator and handler run the
 * vote rules in the sandbox): an order whose requester was spelled like an approver (fullwidth, another script's
 * look-alike letters, a zero-width space, as the intake took them before it refused such names) cannot be approved
 * by that approver, and another approver still can.
 */
import anyTest, { type TestFn } from 'ava';
import { OrderRefusedError } from '../../client/orders/index.js';
import { usePostgres } from '../helpers/postgres.js';
import { orderOf, replayEveryHistory, startOrderEngine, sydneyRequest, type OrderEngine } from '../helpers/orders.js';
import { waitForState } from '../helpers/wait.js';

const test = anyTest as TestFn<{ engine: OrderEngine }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.engine = await startOrderEngine(pg);
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
});

test.serial('fiona cannot approve or reject an order whose requester is a look-alike of her name', async (t) => {
  const { engine } = t.context;
  const { orders } = engine;
  const spellings: Array<[ticketId: string, requestedBy: string, reason: RegExp]> = [
    ['LOOK-CYRILLIC', 'f\u0456ona', /its requester "f\\u0456ona" looks like the same person/],
    ['LOOK-GREEK', 'fi\u03bfna', /its requester "fi\\u03bfna" looks like the same person/],
    ['LOOK-ZWSP', 'fiona\u200b', /its requester "fiona\\u200b" looks like the same person/],
    ['LOOK-WIDE', '\uff46\uff49\uff4f\uff4e\uff41', /requested this order and cannot vote on it/],
  ];
  for (const [ticketId, requestedBy, reason] of spellings) {
    // Through the intake, which takes the requester as given: the HTTP API is what refuses such a name now.
    await engine.submit(sydneyRequest(ticketId, { size: 'MVE 8/32', requestedBy }), 'ticket-bot');
    const waiting = await waitForState(orders, ticketId, 'AWAITING_APPROVAL', 20_000, 'ticket-bot');
    const quote = { monthlyRate: waiting.quote!.monthlyRate, currency: waiting.quote!.currency };
    const approving = await t.throwsAsync(
      orders.approve(orderOf(ticketId, 'ticket-bot'), { approverId: 'fiona', ...quote }),
      {
        instanceOf: OrderRefusedError,
      },
    );
    t.is(approving?.code, 'REQUESTER_CANNOT_VOTE', `${ticketId}: ${approving?.message}`);
    t.regex(approving?.message ?? '', reason, ticketId);
    const rejected = await t.throwsAsync(
      orders.reject(orderOf(ticketId, 'ticket-bot'), { approverId: 'fiona', ...quote, comment: 'not mine, honestly' }),
      { instanceOf: OrderRefusedError },
    );
    t.is(rejected?.code, 'REQUESTER_CANNOT_VOTE', ticketId);
    t.deepEqual(
      (await orders.status(orderOf(ticketId, 'ticket-bot'))).approval?.votes,
      [],
      `${ticketId}: no vote recorded`,
    );

    // alice holds finance-approver in the directory and is not the requester: her vote decides.
    const approved = await orders.approve(orderOf(ticketId, 'ticket-bot'), { approverId: 'alice', ...quote });
    t.is(approved.stillNeeded, 0, ticketId);
    t.is((await orders.result(orderOf(ticketId, 'ticket-bot'))).state, 'BOUGHT', ticketId);
  }
});

test.serial('every history of this file replays cleanly', async (t) => {
  const { replayed, failures } = await replayEveryHistory(t.context.engine);
  t.true(replayed >= 4, `replayed ${replayed}`);
  t.deepEqual(failures, []);
});
