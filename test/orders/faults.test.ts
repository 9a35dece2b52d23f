import anyTest, { type TestFn } from 'ava';
import { OrderRefusedError } from '../../client/orders/index.js';
import { usePostgres } from '../helpers/postgres.js';
import { orderOf, replayEveryHistory, startOrderEngine, sydneyRequest, type OrderEngine } from '../helpers/orders.js';
import { waitFor, waitForState } from '../helpers/wait.js';

const test = anyTest as TestFn<{ engine: OrderEngine }>;
const pg = usePostgres(test);

test.before(async (t) => {
  // An uncertain buy reminds ops every few hours: on the time-skipping server, in milliseconds.
  t.context.engine = await startOrderEngine(pg, { temporal: 'time-skipping' });
});
test.afterEach.always((t) => t.context.engine.sim.clearFaults());
test.after.always(async (t) => {
  await t.context.engine?.stop();
});

function productsOf(engine: OrderEngine, uid: string | undefined): number {
  return engine.sim.state().products.filter((product) => product.technicalServiceUid === uid).length;
}

test.serial('429 and 5xx on validate are retried and the order is bought', async (t) => {
  const { engine } = t.context;
  const before = engine.sim.state().calls.validate;
  engine.sim.injectFault({ kind: 'rate-limit', endpoint: 'validate', retryAfterSeconds: 1, times: 2 });
  engine.sim.injectFault({ kind: 'error', endpoint: 'validate', status: 503, times: 2 });
  await engine.submit(sydneyRequest('FLAKY-VALIDATE', { size: 'MVE 4/16' }));
  const outcome = await engine.orders.result(orderOf('FLAKY-VALIDATE'));
  t.is(outcome.state, 'BOUGHT');
  t.is(engine.sim.state().calls.validate - before, 5, 'two 429s, two 503s, then the validation that passed');
  t.is(productsOf(engine, outcome.product?.technicalServiceUid), 1);
});

test.serial('429 on buy is retried after Retry-After: the buy provably did not happen', async (t) => {
  const { engine } = t.context;
  engine.sim.injectFault({ kind: 'rate-limit', endpoint: 'buy', retryAfterSeconds: 30, times: 1 });
  const submitted = await engine.submit(sydneyRequest('LIMITED-BUY', { size: 'MVE 4/16' }));
  const outcome = await engine.orders.result(orderOf('LIMITED-BUY'));
  t.is(outcome.state, 'BOUGHT');
  t.is(productsOf(engine, outcome.product?.technicalServiceUid), 1);
  const record = await engine.repository.getOrder(submitted.workflowId);
  t.deepEqual(
    record?.buyAttempts.map((attempt) => attempt.outcome),
    ['not-created', 'created'],
  );
  const notes = (await engine.repository.getOrder(submitted.workflowId))!.notes;
  t.true(
    notes.some((note) => /trying again in 30 s/.test(note.message)),
    'the retry waits as Retry-After says',
  );
});

test.serial(
  'a buy carried out but whose answer is lost parks in BUY_UNCERTAIN, never retried; ops resolve it',
  async (t) => {
    const { engine } = t.context;
    engine.sim.injectFault({ kind: 'apply-then-drop', endpoint: 'buy' });
    const productsBefore = engine.sim.state().products.length;
    const submitted = await engine.submit(sydneyRequest('DROPPED-BUY', { size: 'MVE 4/16' }));
    const uncertain = await waitForState(engine.orders, 'DROPPED-BUY', 'BUY_UNCERTAIN');
    t.is(uncertain.buyAttempts, 1);
    const created = engine.sim.state().products.slice(productsBefore);
    t.is(created.length, 1, 'exactly one product exists');

    // Days pass: ops are reminded, and still nothing is bought again.
    await engine.temporal.env.sleep(9 * 60 * 60 * 1000);
    t.is((await engine.orders.status(orderOf('DROPPED-BUY'))).state, 'BUY_UNCERTAIN');
    t.is(engine.sim.state().products.length, productsBefore + 1);
    const notes = (await engine.repository.getOrder(submitted.workflowId))!.notes;
    t.true(notes.filter((note) => /the buy outcome is unknown/.test(note.message)).length >= 2);

    const badUid = await t.throwsAsync(
      engine.orders.resolveBuy(orderOf('DROPPED-BUY'), {
        actor: 'olga-ops',
        outcome: 'created',
        technicalServiceUid: 'not-a-uid',
      }),
      { instanceOf: OrderRefusedError },
    );
    t.regex(badUid.message, /technicalServiceUid/);
    const uid = created[0].technicalServiceUid;
    await engine.orders.resolveBuy(orderOf('DROPPED-BUY'), {
      actor: 'olga-ops',
      outcome: 'created',
      technicalServiceUid: uid,
      provisioningStatus: 'DEPLOYABLE',
      note: 'found in the portal',
    });
    const outcome = await engine.orders.result(orderOf('DROPPED-BUY'));
    t.is(outcome.state, 'BOUGHT');
    t.is(outcome.product?.technicalServiceUid, uid);
    t.is(engine.sim.state().products.length, productsBefore + 1);
    const record = await engine.repository.getOrder(submitted.workflowId);
    t.is(record?.buyAttempts[0]?.outcome, 'created');
    t.is(record?.order.product?.technicalServiceUid, uid);
  },
);

test.serial('a buy whose connection dropped before it was carried out is bought once after ops say so', async (t) => {
  const { engine } = t.context;
  engine.sim.injectFault({ kind: 'drop', endpoint: 'buy' });
  const productsBefore = engine.sim.state().products.length;
  await engine.submit(sydneyRequest('LOST-BUY', { size: 'MVE 4/16' }));
  await waitForState(engine.orders, 'LOST-BUY', 'BUY_UNCERTAIN');
  t.is(engine.sim.state().products.length, productsBefore, 'nothing was created');
  await engine.orders.resolveBuy(orderOf('LOST-BUY'), {
    actor: 'olga-ops',
    outcome: 'not-created',
    note: 'not in the portal',
  });
  const outcome = await engine.orders.result(orderOf('LOST-BUY'));
  t.is(outcome.state, 'BOUGHT');
  t.is(engine.sim.state().products.length, productsBefore + 1);
  const status = await engine.orders.status(orderOf('LOST-BUY'));
  const states = status.timeline.map((entry) => entry.state);
  // Not created, so it is bought again, after validating again: the price charged is the price approved.
  t.deepEqual(states.slice(-6), ['BUYING', 'BUY_UNCERTAIN', 'VALIDATING', 'APPROVED', 'BUYING', 'BOUGHT']);
  // Settled, the outcome is known: the error that asked ops to check it is gone, from the order and its records.
  t.is(status.lastError, undefined);
  t.is((await engine.records('LOST-BUY'))?.order.lastError, null);
});

test.serial('a token that expires mid-order is refreshed and the order goes on', async (t) => {
  const { engine } = t.context;
  await engine.submit(sydneyRequest('TOKEN-1', { size: 'MVE 8/32' }));
  const waiting = await waitForState(engine.orders, 'TOKEN-1', 'AWAITING_APPROVAL');
  const tokensBefore = engine.sim.state().tokensIssued;
  engine.sim.expireTokens();
  await engine.orders.approve(orderOf('TOKEN-1'), {
    approverId: 'fiona',
    monthlyRate: waiting.quote!.monthlyRate,
    currency: 'AUD',
  });
  const outcome = await engine.orders.result(orderOf('TOKEN-1'));
  t.is(outcome.state, 'BOUGHT');
  t.is(engine.sim.state().tokensIssued - tokensBefore, 1, 'one new token, fetched once');
});

test.serial('an order the catalog cannot serve fails at lookup, naming the rule, and calls no validate', async (t) => {
  const { engine } = t.context;
  const validatesBefore = engine.sim.state().calls.validate;
  await engine.submit(sydneyRequest('NOT-OFFERED', { size: 'MVE 12/48' }));
  const outcome = await engine.orders.result(orderOf('NOT-OFFERED'));
  t.is(outcome.state, 'FAILED');
  t.regex(outcome.reason, /size "MVE 12\/48" is not offered for image/);
  t.is(engine.sim.state().calls.validate, validatesBefore);
});

test.serial(
  'an order the API refuses at validation fails with the API message and trace id, and buys nothing',
  async (t) => {
    const { engine } = t.context;
    // A location whose zones offer fewer than 32 vCPU: only the API knows that, so the offline check passes.
    const locations = await engine.apiClient.listLocations();
    const small = locations.find((location) => {
      const zones = Object.values(location.diversityZones ?? {}).filter((zone) => zone?.mveAvailable);
      return (
        location.status === 'Active' &&
        zones.length > 0 &&
        zones.every((zone) => typeof zone?.mveMaxCpuCoreCount === 'number' && zone.mveMaxCpuCoreCount < 32)
      );
    });
    if (!small) return t.fail('the simulator catalog has no location limited below 32 vCPU');
    const buysBefore = engine.sim.state().calls.buy;
    await engine.submit(sydneyRequest('TOO-BIG', { size: 'MVE 32/128', location: { id: small.id } }));
    const outcome = await engine.orders.result(orderOf('TOO-BIG'));
    t.is(outcome.state, 'FAILED');
    t.regex(outcome.reason, /needs 32 vCPU/);
    t.regex(outcome.reason, /trace id/);
    t.is(engine.sim.state().calls.buy, buysBefore);
  },
);

test.serial(
  'a buy that takes longer than a workflow task (a slow database, then a slow provider) is bought once, and its status answers',
  async (t) => {
    const { engine } = t.context;
    // The buy runs in its workflow task (a local activity); the worker keeps that task alive past its 10 s timeout.
    // The buy's journal waits 7 s for the database (a lock held on the buy attempts), then the provider 4.5 s (the
    // client's response timeout is 5 s here).
    const locked = engine.db.sql.begin(async (tx) => {
      await tx`LOCK TABLE buy_attempts IN EXCLUSIVE MODE`;
      await new Promise((resolve) => setTimeout(resolve, 7_000));
    });
    engine.sim.injectFault({ kind: 'latency', endpoint: 'buy', ms: 4_500 });
    const buysBefore = engine.sim.state().calls.buy;
    const started = Date.now();
    const submitted = await engine.submit(sydneyRequest('SLOW-BUY', { size: 'MVE 4/16' }));
    await waitFor(
      () => Promise.resolve(engine.sim.state().calls.buy > buysBefore ? true : undefined),
      30_000,
      'the buy at the provider',
    );
    // A query waits for the workflow task the buy runs in (at most until the worker's next heartbeat of that task).
    const buying = await engine.orders.status(orderOf('SLOW-BUY'));
    t.true(['BUYING', 'BOUGHT'].includes(buying.state), buying.state);
    const outcome = await engine.orders.result(orderOf('SLOW-BUY'));
    await locked;
    t.true(Date.now() - started > 10_000, 'longer than a workflow task');
    t.is(outcome.state, 'BOUGHT');
    t.is(engine.sim.state().calls.buy - buysBefore, 1, 'one buy request');
    t.is(productsOf(engine, outcome.product?.technicalServiceUid), 1);
    t.deepEqual(
      (await engine.repository.getOrder(submitted.workflowId))?.buyAttempts.map((attempt) => attempt.outcome),
      ['created'],
    );
  },
);

test.serial('every history of this file replays cleanly', async (t) => {
  const { replayed, failures } = await replayEveryHistory(t.context.engine);
  t.true(replayed >= 7);
  t.deepEqual(failures, []);
});
