/**
 * Settling an uncertain buy, on the real Temporal server: ops may settle one as created only with the product the
 * provider shows under the order's own name. Two buys made uncertain at once (the provider carries each out and drops
 * the answer) cannot be settled with each other's product or with a UID nobody bought; both are refused with what ops
 * should check, stay BUY_UNCERTAIN, and their records name the refusal. Each then settles with its own product.
 */
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import type { ApiOrder, StateResult, SubmitResult } from '../../client/http-client/index.js';
import { json, type ErrorBody } from '../helpers/json.js';
import { namedRequest, productsFor, startApiEngine, waitForApiState, type ApiEngine } from '../helpers/api.js';
import { replayEveryHistory } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);
const NOBODYS = '00000000-0000-4000-8000-000000000000';

test.before(async (t) => {
  t.context.api = await startApiEngine(pg, { temporal: 'real' });
});
test.afterEach.always((t) => t.context.api.sim.clearFaults());
test.after.always(async (t) => {
  await t.context.api?.stop();
});

/** Orders `ticketId` (auto-approved) and waits until its buy is uncertain: the provider made one product for it. */
async function uncertainBuy(t: ExecutionContext, api: ApiEngine, ticketId: string) {
  const submitted = await api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: namedRequest(ticketId, { size: 'MVE 4/16' }),
  });
  t.is(submitted.status, 201, JSON.stringify(submitted.body));
  await waitForApiState(api, ticketId, 'BUY_UNCERTAIN');
  const made = productsFor(api, ticketId);
  t.is(made.length, 1, `${ticketId}: the provider carried the buy out`);
  return {
    orderId: json<SubmitResult>(submitted).order.orderId,
    uid: made[0].technicalServiceUid,
    name: made[0].serviceName,
  };
}

function resolve(api: ApiEngine, ticketId: string, technicalServiceUid: string) {
  return api.call('POST', `/api/v1/orders/${ticketId}/resolve-buy`, {
    as: 'olga',
    body: { outcome: 'created', attempt: 1, technicalServiceUid, note: 'seen in the portal' },
  });
}

/** The order's note that names the refused resolution of `uid`, once the journal has written it. */
function refusalNote(api: ApiEngine, ticketId: string, uid: string) {
  return waitFor(
    async () =>
      (await api.records(ticketId))?.notes.find(
        (note) => note.details['refused'] === 'resolve-buy' && note.details['technicalServiceUid'] === uid,
      ),
    10_000,
    `${ticketId}: the refusal of ${uid} recorded`,
  );
}

test.serial(
  "two uncertain buys: neither settles with the other's product nor a made-up one; each with its own",
  async (t) => {
    const { api } = t.context;
    api.sim.injectFault({ kind: 'apply-then-drop', endpoint: 'buy', times: 2 });
    const [a, b] = await Promise.all([uncertainBuy(t, api, 'RB-A'), uncertainBuy(t, api, 'RB-B')]);

    const swapped = await resolve(api, 'RB-A', b.uid);
    t.is(swapped.status, 409, JSON.stringify(swapped.body));
    t.is(json<ErrorBody>(swapped).error.code, 'PRODUCT_OF_ANOTHER_ORDER');
    t.is(
      json<ErrorBody>(swapped).error.message,
      `the product ${b.uid} is named '${b.name}', which does not name order ${a.orderId}: it belongs to another order; this order's product is named '${a.name}' in the provider's portal`,
    );
    const madeUp = await resolve(api, 'RB-B', NOBODYS);
    t.is(madeUp.status, 422, JSON.stringify(madeUp.body));
    t.is(json<ErrorBody>(madeUp).error.code, 'PRODUCT_NOT_FOUND');
    t.is(
      json<ErrorBody>(madeUp).error.message,
      `the product ${NOBODYS} was not found at the provider (it answered 404): check the UID in the provider's portal, where this order's product is named '${b.name}'`,
    );

    for (const ticketId of ['RB-A', 'RB-B']) {
      const order = await api.call('GET', `/api/v1/orders/${ticketId}`, { as: 'olga' });
      t.is(json<ApiOrder>(order).state, 'BUY_UNCERTAIN', `${ticketId} is still uncertain`);
      t.is(json<ApiOrder>(order).product, undefined, `${ticketId} has no product`);
    }
    const noteA = await refusalNote(api, 'RB-A', b.uid);
    t.is(
      noteA.message,
      `refused olga's resolution of buy attempt 1 as created with product ${b.uid}: ${json<ErrorBody>(swapped).error.message}`,
    );
    t.is(noteA.details['code'], 'PRODUCT_OF_ANOTHER_ORDER');
    const noteB = await refusalNote(api, 'RB-B', NOBODYS);
    t.regex(
      noteB.message,
      new RegExp(`^refused olga's resolution of buy attempt 1 as created with product ${NOBODYS}: `),
    );
    for (const ticketId of ['RB-A', 'RB-B']) {
      const records = await api.records(ticketId);
      t.is(records?.order.status, 'BUY_UNCERTAIN', `${ticketId}: the records agree`);
      t.is(records?.order.product, null, `${ticketId}: no product recorded`);
    }

    for (const [ticketId, own] of [
      ['RB-A', a],
      ['RB-B', b],
    ] as const) {
      const settled = await resolve(api, ticketId, own.uid);
      t.is(settled.status, 200, JSON.stringify(settled.body));
      t.is(json<StateResult>(settled).state, 'BOUGHT');
      const records = await waitFor(async () => {
        const found = await api.records(ticketId);
        return found?.order.status === 'BOUGHT' ? found : undefined;
      });
      t.is(records.order.product?.technicalServiceUid, own.uid);
      t.not(records.order.product?.provisioningStatus, 'UNKNOWN', 'the status is the one the provider reported');
      t.like(records.buyAttempts, [
        { attempt: 1, outcome: 'created', technicalServiceUid: own.uid, resolvedBy: 'olga' },
      ]);
      t.is(productsFor(api, ticketId).length, 1, `${ticketId}: nothing bought again`);
    }
  },
);

test.serial(
  'a provider that does not answer the read: 503 PRODUCT_NOT_CHECKED, nothing settled, then settled',
  async (t) => {
    const { api } = t.context;
    api.sim.injectFault({ kind: 'apply-then-drop', endpoint: 'buy' });
    const c = await uncertainBuy(t, api, 'RB-C');
    api.sim.injectFault({ kind: 'error', endpoint: 'product', status: 503, times: 'always' });

    const unanswered = await resolve(api, 'RB-C', c.uid);
    t.is(unanswered.status, 503, JSON.stringify(unanswered.body));
    t.is(json<ErrorBody>(unanswered).error.code, 'PRODUCT_NOT_CHECKED');
    t.regex(
      json<ErrorBody>(unanswered).error.message,
      new RegExp(`^product ${c.uid} could not be read at the provider \\(.*503`),
    );
    t.regex(json<ErrorBody>(unanswered).error.message, /nothing was settled: try again in a few minutes$/);
    t.truthy(unanswered.headers.get('retry-after'));
    t.is(json<ApiOrder>(await api.call('GET', '/api/v1/orders/RB-C', { as: 'olga' })).state, 'BUY_UNCERTAIN');
    t.is((await refusalNote(api, 'RB-C', c.uid)).details['code'], 'PRODUCT_NOT_CHECKED');

    api.sim.clearFaults();
    const settled = await resolve(api, 'RB-C', c.uid);
    t.is(settled.status, 200, JSON.stringify(settled.body));
    t.is((await waitForApiState(api, 'RB-C', 'BOUGHT')).product?.technicalServiceUid, c.uid);
  },
);

test.serial('every history of this file replays on the current workflow code', async (t) => {
  const { replayed, failures } = await replayEveryHistory(t.context.api);
  t.deepEqual(failures, []);
  t.true(replayed >= 3, `replayed ${replayed}`);
});
