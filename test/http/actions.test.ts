/**
 * The HTTP API's order actions other than votes, through real HTTP against the real worker: cancel (who may,
 * and when) and resolve-buy (settling a buy whose outcome nobody saw, made with the simulator's faults).
 */
import anyTest, { type TestFn } from 'ava';
import { issueApiToken } from '../../client/http/index.js';
import type { ApiOrder, StateResult } from '../../client/http-client/index.js';
import { productsFor, startApiEngine, submit, waitForApiState, type ApiEngine, type TestUser } from '../helpers/api.js';
import { replayEveryHistory } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import { expectError } from '../helpers/api-call.js';
import { json, type ErrorBody } from '../helpers/json.js';

const test = anyTest as TestFn<{ api: ApiEngine; bob: string }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.api = await startApiEngine(pg);
  t.context.bob = (await issueApiToken(t.context.api.repository, { owner: 'bob', roles: ['requester'] })).token;
});
test.afterEach.always((t) => t.context.api?.sim.clearFaults());
test.after.always(async (t) => {
  await t.context.api?.stop();
});

async function recordsWhen(api: ApiEngine, ticketId: string, status: string) {
  return waitFor(
    async () => {
      const records = await api.records(ticketId);
      return records?.order.status === status ? records : undefined;
    },
    20_000,
    `records of ${ticketId} at ${status}`,
  );
}

// ---- cancel ----

test.serial(
  'a requester cancels their own order; an approver may not (403), another requester sees nothing (404)',
  async (t) => {
    const { api, bob } = t.context;
    await submit(t, api, 'CAN-1', { size: 'MVE 8/32' });
    await waitForApiState(api, 'CAN-1', 'AWAITING_APPROVAL');
    const buysBefore = api.sim.state().calls.buy;

    const byFiona = await api.call('POST', '/api/v1/orders/CAN-1/cancel', {
      as: 'fiona',
      body: { reason: 'not mine to cancel' },
    });
    expectError(t, byFiona, 403, 'FORBIDDEN');
    const byBob = await api.call('POST', '/api/v1/orders/CAN-1/cancel', {
      token: bob,
      body: { reason: 'not mine either' },
    });
    expectError(t, byBob, 404, 'NOT_FOUND');
    const noReason = await api.call('POST', '/api/v1/orders/CAN-1/cancel', { as: 'alice', body: {} });
    expectError(t, noReason, 400, 'INVALID_INPUT');
    t.true(
      json<ErrorBody>(noReason).error.details.some((detail) => detail.path === 'body.reason'),
      JSON.stringify(noReason.body),
    );
    const blankReason = await api.call('POST', '/api/v1/orders/CAN-1/cancel', { as: 'alice', body: { reason: '   ' } });
    expectError(t, blankReason, 400, 'INVALID_INPUT');
    const namesActor = await api.call('POST', '/api/v1/orders/CAN-1/cancel', {
      as: 'alice',
      body: { reason: 'x', actor: 'fiona' },
    });
    expectError(t, namesActor, 400, 'INVALID_INPUT');
    t.is(
      json<ApiOrder>(await api.call('GET', '/api/v1/orders/CAN-1', { as: 'alice' })).state,
      'AWAITING_APPROVAL',
      'the refusals changed nothing',
    );

    const cancelled = await api.call('POST', '/api/v1/orders/CAN-1/cancel', {
      as: 'alice',
      body: { reason: 'the project was dropped' },
    });
    t.is(cancelled.status, 200, JSON.stringify(cancelled.body));
    // The cancel answers with the state it led to, as a decisive vote does.
    t.is(json<StateResult>(cancelled).state, 'CANCELLED', JSON.stringify(cancelled.body));
    const order = await waitForApiState(api, 'CAN-1', 'CANCELLED');
    t.like(order.timeline!.at(-1), { state: 'CANCELLED', actor: 'alice', reason: 'the project was dropped' });
    const records = await recordsWhen(api, 'CAN-1', 'CANCELLED');
    t.like(records.events.at(-1), { to: 'CANCELLED', actor: 'alice', reason: 'the project was dropped' });
    t.is(api.sim.state().calls.buy, buysBefore, 'nothing bought');
    t.is(productsFor(api, 'CAN-1').length, 0);

    // Her cancel sent again (after an answer she did not get): answered with the state, saying it was already done.
    const again = await api.call('POST', '/api/v1/orders/CAN-1/cancel', { as: 'alice', body: { reason: 'again' } });
    t.is(again.status, 200, JSON.stringify(again.body));
    t.is(json<StateResult>(again).state, 'CANCELLED');
    t.regex(
      json<StateResult>(again).alreadyDone!,
      /^already cancelled by you at \S+ \(the project was dropped\): this repeats a cancel/,
    );
  },
);

test.serial('ops cancel any order; a ticket system cancels what it submitted', async (t) => {
  const { api } = t.context;
  await submit(t, api, 'CAN-2', { size: 'MVE 8/32' });
  await submit(t, api, 'CAN-3', { size: 'MVE 8/32', requestedBy: 'pat' }, 'ticket-bot');
  await waitForApiState(api, 'CAN-2', 'AWAITING_APPROVAL');
  await waitForApiState(api, 'CAN-3', 'AWAITING_APPROVAL');

  // The ticket system did not submit alice's order.
  expectError(
    t,
    await api.call('POST', '/api/v1/orders/CAN-2/cancel', { as: 'ticket-bot', body: { reason: 'wrong ticket' } }),
    404,
    'NOT_FOUND',
  );

  const byOps = await api.call('POST', '/api/v1/orders/CAN-2/cancel', {
    as: 'olga',
    body: { reason: 'duplicate of CAN-1' },
  });
  t.is(byOps.status, 200, JSON.stringify(byOps.body));
  const cancelledByOps = await waitForApiState(api, 'CAN-2', 'CANCELLED');
  t.like(cancelledByOps.timeline!.at(-1), { state: 'CANCELLED', actor: 'olga', reason: 'duplicate of CAN-1' });

  const byBot = await api.call('POST', '/api/v1/orders/CAN-3/cancel', {
    as: 'ticket-bot',
    body: { reason: 'ticket closed' },
  });
  t.is(byBot.status, 200, JSON.stringify(byBot.body));
  const cancelledByBot = await waitForApiState(api, 'CAN-3', 'CANCELLED');
  t.like(cancelledByBot.timeline!.at(-1), { state: 'CANCELLED', actor: 'ticket-bot' });
  t.is(productsFor(api, 'CAN-2').length + productsFor(api, 'CAN-3').length, 0);
});

test.serial('a bought order cannot be cancelled: 409 NOT_CANCELLABLE names the next step', async (t) => {
  const { api } = t.context;
  await submit(t, api, 'CAN-4');
  await waitForApiState(api, 'CAN-4', 'BOUGHT');
  const [product] = productsFor(api, 'CAN-4');
  for (const user of ['alice', 'olga'] as TestUser[]) {
    const refused = await api.call('POST', '/api/v1/orders/CAN-4/cancel', {
      as: user,
      body: { reason: 'changed my mind' },
    });
    expectError(t, refused, 409, 'NOT_CANCELLABLE');
    t.is(
      json<ErrorBody>(refused).error.message,
      `the order is BOUGHT: the MVE is bought, and a bought order cannot be cancelled. To stop it and what it costs, decommission product ${product.technicalServiceUid} with the provider (in its portal); the order keeps the purchase on record`,
    );
  }
  const order = await api.call('GET', '/api/v1/orders/CAN-4', { as: 'alice' });
  t.is(json<ApiOrder>(order).state, 'BOUGHT');
  t.is(productsFor(api, 'CAN-4').length, 1);
  expectError(
    t,
    await api.call('POST', '/api/v1/orders/NO-SUCH/cancel', { as: 'olga', body: { reason: 'x' } }),
    404,
    'NOT_FOUND',
  );
});

// ---- resolve-buy ----

test.serial('a buy carried out whose answer was lost: only ops resolve it, as created with its UID', async (t) => {
  const { api } = t.context;
  api.sim.injectFault({ kind: 'apply-then-drop', endpoint: 'buy' });
  await submit(t, api, 'UNC-1');
  const uncertain = await waitForApiState(api, 'UNC-1', 'BUY_UNCERTAIN');
  t.is(uncertain.buyAttempts, 1);
  const created = productsFor(api, 'UNC-1');
  t.is(created.length, 1, 'the buy was carried out once');
  const uid = created[0].technicalServiceUid;

  for (const user of ['alice', 'fiona', 'ticket-bot'] as TestUser[]) {
    const refused = await api.call('POST', '/api/v1/orders/UNC-1/resolve-buy', {
      as: user,
      body: { outcome: 'created', attempt: 1, technicalServiceUid: uid },
    });
    expectError(t, refused, 403, 'FORBIDDEN');
  }
  const badUid = await api.call('POST', '/api/v1/orders/UNC-1/resolve-buy', {
    as: 'olga',
    body: { outcome: 'created', attempt: 1, technicalServiceUid: 'not-a-uid' },
  });
  expectError(t, badUid, 400, 'INVALID_INPUT');
  t.true(
    json<ErrorBody>(badUid).error.details.some((detail) => detail.path === 'body.technicalServiceUid'),
    JSON.stringify(badUid.body),
  );
  const noNote = await api.call('POST', '/api/v1/orders/UNC-1/resolve-buy', {
    as: 'olga',
    body: { outcome: 'not-created', attempt: 1 },
  });
  expectError(t, noNote, 400, 'INVALID_INPUT');
  const badOutcome = await api.call('POST', '/api/v1/orders/UNC-1/resolve-buy', {
    as: 'olga',
    body: { outcome: 'maybe', note: 'x' },
  });
  expectError(t, badOutcome, 400, 'INVALID_INPUT');
  const noAttempt = await api.call('POST', '/api/v1/orders/UNC-1/resolve-buy', {
    as: 'olga',
    body: { outcome: 'created', technicalServiceUid: uid },
  });
  expectError(t, noAttempt, 400, 'INVALID_INPUT', 'body.attempt');
  const otherAttempt = await api.call('POST', '/api/v1/orders/UNC-1/resolve-buy', {
    as: 'olga',
    body: { outcome: 'created', attempt: 7, technicalServiceUid: uid },
  });
  expectError(t, otherAttempt, 409, 'NOT_UNCERTAIN');
  t.regex(json<ErrorBody>(otherAttempt).error.message, /^attempt: the order has made 1 buy attempt\(s\), not 7; /);
  // The buy may have happened: nobody can cancel now, and the refusal says what comes first.
  const refused = await api.call('POST', '/api/v1/orders/UNC-1/cancel', {
    as: 'alice',
    body: { reason: 'too slow' },
  });
  expectError(t, refused, 409, 'NOT_CANCELLABLE');
  t.regex(json<ErrorBody>(refused).error.message, /^the order is BUY_UNCERTAIN: .*Ops first settle the buy/);
  expectError(
    t,
    await api.call('POST', '/api/v1/orders/UNC-1/cancel', { as: 'olga', body: { reason: 'too slow' } }),
    409,
    'NOT_CANCELLABLE',
  );
  t.is(
    json<ApiOrder>(await api.call('GET', '/api/v1/orders/UNC-1', { as: 'olga' })).state,
    'BUY_UNCERTAIN',
    'the refusals changed nothing',
  );

  const resolved = await api.call('POST', '/api/v1/orders/UNC-1/resolve-buy', {
    as: 'olga',
    body: { outcome: 'created', attempt: 1, technicalServiceUid: uid, note: 'found in the portal' },
  });
  t.is(resolved.status, 200, JSON.stringify(resolved.body));
  const bought = await waitForApiState(api, 'UNC-1', 'BOUGHT');
  t.is(bought.product?.technicalServiceUid, uid);
  t.is(bought.buyAttempts, 1);
  t.is(productsFor(api, 'UNC-1').length, 1, 'nothing bought again');
  const records = await recordsWhen(api, 'UNC-1', 'BOUGHT');
  t.like(records.buyAttempts, [{ attempt: 1, outcome: 'created', technicalServiceUid: uid, resolvedBy: 'olga' }]);
  t.is(records.order.product?.technicalServiceUid, uid);

  // Settled: another resolution is refused.
  const again = await api.call('POST', '/api/v1/orders/UNC-1/resolve-buy', {
    as: 'olga',
    body: { outcome: 'not-created', attempt: 1, note: 'second thoughts' },
  });
  expectError(t, again, 409, 'NOT_UNCERTAIN');
  t.is(productsFor(api, 'UNC-1').length, 1);
});

test.serial("an uncertain buy is never settled with another order's product: 409 PRODUCT_TAKEN", async (t) => {
  const { api } = t.context;
  const othersProduct = productsFor(api, 'UNC-1')[0].technicalServiceUid;
  api.sim.injectFault({ kind: 'apply-then-drop', endpoint: 'buy' });
  await submit(t, api, 'UNC-5');
  await waitForApiState(api, 'UNC-5', 'BUY_UNCERTAIN');
  const taken = await api.call('POST', '/api/v1/orders/UNC-5/resolve-buy', {
    as: 'olga',
    body: { outcome: 'created', attempt: 1, technicalServiceUid: othersProduct },
  });
  expectError(t, taken, 409, 'PRODUCT_TAKEN');
  t.regex(json<ErrorBody>(taken).error.message, new RegExp(`${othersProduct} is the product of order UNC-1`));
  t.is(
    json<ApiOrder>(await api.call('GET', '/api/v1/orders/UNC-5', { as: 'olga' })).state,
    'BUY_UNCERTAIN',
    'unchanged',
  );

  const own = productsFor(api, 'UNC-5')[0].technicalServiceUid;
  const resolved = await api.call('POST', '/api/v1/orders/UNC-5/resolve-buy', {
    as: 'olga',
    body: { outcome: 'created', attempt: 1, technicalServiceUid: own },
  });
  t.is(resolved.status, 200, JSON.stringify(resolved.body));
  t.is((await waitForApiState(api, 'UNC-5', 'BOUGHT')).product?.technicalServiceUid, own);
});

test.serial(
  'a buy whose connection dropped before it was carried out: ops say not created, and it is bought once',
  async (t) => {
    const { api } = t.context;
    api.sim.injectFault({ kind: 'drop', endpoint: 'buy' });
    await submit(t, api, 'UNC-2');
    await waitForApiState(api, 'UNC-2', 'BUY_UNCERTAIN');
    t.is(productsFor(api, 'UNC-2').length, 0, 'nothing was created');

    const resolved = await api.call('POST', '/api/v1/orders/UNC-2/resolve-buy', {
      as: 'olga',
      body: { outcome: 'not-created', attempt: 1, note: 'not in the portal' },
    });
    t.is(resolved.status, 200, JSON.stringify(resolved.body));
    const bought = await waitForApiState(api, 'UNC-2', 'BOUGHT');
    t.is(bought.buyAttempts, 2);
    t.is(productsFor(api, 'UNC-2').length, 1, 'bought exactly once');
    const states = bought.timeline!.map((entry) => entry.state);
    const after = states.slice(states.indexOf('BUY_UNCERTAIN'));
    t.true(
      JSON.stringify(after) === JSON.stringify(['BUY_UNCERTAIN', 'BUYING', 'BOUGHT']) ||
        JSON.stringify(after) === JSON.stringify(['BUY_UNCERTAIN', 'VALIDATING', 'APPROVED', 'BUYING', 'BOUGHT']),
      `back to validate/buy: ${after.join(' → ')}`,
    );
    const records = await recordsWhen(api, 'UNC-2', 'BOUGHT');
    t.like(records.buyAttempts, [
      { attempt: 1, outcome: 'not-created', resolvedBy: 'olga' },
      { attempt: 2, outcome: 'created', technicalServiceUid: bought.product!.technicalServiceUid },
    ]);
    t.true(records.notes.some((note) => note.actor === 'olga' && /not in the portal/.test(note.message)));
  },
);

test.serial(
  'a "not created" sent again after the order bought again is refused: it names attempt 1, and attempt 2 is uncertain',
  async (t) => {
    const { api } = t.context;
    // Attempt 1 never reaches the provider; attempt 2 is carried out and its answer lost.
    api.sim.injectFault({ kind: 'drop', endpoint: 'buy' });
    await submit(t, api, 'UNC-6');
    await waitForApiState(api, 'UNC-6', 'BUY_UNCERTAIN');
    api.sim.injectFault({ kind: 'apply-then-drop', endpoint: 'buy' });
    const notCreated = { outcome: 'not-created', attempt: 1, note: 'not in the portal' };
    const first = await api.call('POST', '/api/v1/orders/UNC-6/resolve-buy', { as: 'olga', body: notCreated });
    t.is(first.status, 200, JSON.stringify(first.body));
    const again = await waitFor(async () => {
      const order = json<ApiOrder>(await api.call('GET', '/api/v1/orders/UNC-6', { as: 'olga' }));
      return order.state === 'BUY_UNCERTAIN' && order.buyAttempts === 2 ? order : undefined;
    });
    t.is(productsFor(api, 'UNC-6').length, 1, 'attempt 2 was carried out');

    // The same request again (as after a 503 that "may have taken effect") settles nothing.
    const repeat = await api.call('POST', '/api/v1/orders/UNC-6/resolve-buy', { as: 'olga', body: notCreated });
    expectError(t, repeat, 409, 'NOT_UNCERTAIN');
    t.regex(json<ErrorBody>(repeat).error.message, /^attempt: buy attempt 1 was settled already .* attempt 2: check/);
    const after = json<ApiOrder>(await api.call('GET', '/api/v1/orders/UNC-6', { as: 'olga' }));
    t.like(after, { state: 'BUY_UNCERTAIN', buyAttempts: again.buyAttempts });
    t.is(productsFor(api, 'UNC-6').length, 1, 'nothing bought again');

    const [made] = productsFor(api, 'UNC-6');
    const created = { outcome: 'created', attempt: 2, technicalServiceUid: made.technicalServiceUid };
    const settled = await api.call('POST', '/api/v1/orders/UNC-6/resolve-buy', { as: 'olga', body: created });
    t.is(settled.status, 200, JSON.stringify(settled.body));
    t.is((await waitForApiState(api, 'UNC-6', 'BOUGHT')).product?.technicalServiceUid, made.technicalServiceUid);
    t.is(productsFor(api, 'UNC-6').length, 1, 'bought exactly once');
  },
);

test.serial(
  'resolve-buy on an order that is not in BUY_UNCERTAIN: 409 NOT_UNCERTAIN; unknown order: 404',
  async (t) => {
    const { api } = t.context;
    await submit(t, api, 'UNC-3', { size: 'MVE 8/32' });
    await waitForApiState(api, 'UNC-3', 'AWAITING_APPROVAL');
    const waiting = await api.call('POST', '/api/v1/orders/UNC-3/resolve-buy', {
      as: 'olga',
      body: { outcome: 'not-created', attempt: 1, note: 'nothing to resolve' },
    });
    expectError(t, waiting, 409, 'NOT_UNCERTAIN');
    t.regex(json<ErrorBody>(waiting).error.message, /AWAITING_APPROVAL/);
    const bought = await api.call('POST', '/api/v1/orders/CAN-4/resolve-buy', {
      as: 'olga',
      body: { outcome: 'created', attempt: 1, technicalServiceUid: '0b6a3f0e-8b1f-4a44-9d55-000000000000' },
    });
    expectError(t, bought, 409, 'NOT_UNCERTAIN');
    t.is(
      json<ApiOrder>(await api.call('GET', '/api/v1/orders/CAN-4', { as: 'olga' })).product?.technicalServiceUid,
      productsFor(api, 'CAN-4')[0]?.technicalServiceUid,
      'the product is unchanged',
    );
    expectError(
      t,
      await api.call('POST', '/api/v1/orders/NO-SUCH/resolve-buy', {
        as: 'olga',
        body: { outcome: 'not-created', attempt: 1, note: 'x' },
      }),
      404,
      'NOT_FOUND',
    );
    t.is(json<ApiOrder>(await api.call('GET', '/api/v1/orders/UNC-3', { as: 'olga' })).state, 'AWAITING_APPROVAL');
    // Leave nothing waiting (a waiting order is harmless, but tidy): its requester withdraws it.
    t.is(
      (await api.call('POST', '/api/v1/orders/UNC-3/cancel', { as: 'alice', body: { reason: 'done testing' } })).status,
      200,
    );
    await waitForApiState(api, 'UNC-3', 'CANCELLED');
  },
);

test.serial('every history of this file replays cleanly', async (t) => {
  const { replayed, failures } = await replayEveryHistory(t.context.api);
  t.true(replayed >= 7, `replayed ${replayed}`);
  t.deepEqual(failures, []);
});
