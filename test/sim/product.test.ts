import test, { type ExecutionContext } from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../tooling/sim/index.js';
import { catalogOf, examples, orderFor, sessionOf, type Answer, type Session } from './helpers.js';

interface Shop {
  sim: Simulator;
  session: Session;
  /** Buys `count` products in one buy; their uids. */
  buy: (count?: number) => Promise<string[]>;
  /** The product's data as read at `ms` after its creation (waiting until then). */
  readAt: (productUid: string, ms: number) => Promise<Record<string, unknown>>;
}

/** A simulator, a session of its primary key and an order it accepts. */
async function shop(t: ExecutionContext, options: SimulatorOptions = {}): Promise<Shop> {
  const sim = await startSimulator(options);
  t.teardown(() => sim.close());
  const session = await sessionOf(sim);
  const order = orderFor(examples()[0], await catalogOf(session));
  return {
    sim,
    session,
    buy: async (count = 1) => {
      const bought = await session.buy({ networkDesign: Array(count).fill(order), discountCodes: [] });
      t.is(bought.status, 200, JSON.stringify(bought.body));
      return (bought.body['data'] as Array<{ technicalServiceUid: string }>).map(
        (product) => product.technicalServiceUid,
      );
    },
    readAt: async (productUid, ms) => {
      const created = dataOf(await session.product(productUid))['createDate'] as number;
      await sleep(Math.max(0, created + ms - Date.now()));
      return dataOf(await session.product(productUid));
    },
  };
}

function dataOf(answer: Answer): Record<string, unknown> {
  if (answer.status !== 200) throw new Error(`product read answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body['data'] as Record<string, unknown>;
}

const admin = (sim: Simulator, method: string, path: string, body?: unknown) =>
  fetch(`${sim.url}/_sim${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }).then(
    async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }),
  );

test('a bought product is DEPLOYABLE, then CONFIGURED, then LIVE, as its times pass', async (t) => {
  const { sim, session, readAt } = await shop(t, { provisioning: { configuredAfterMs: 1_000, liveAfterMs: 2_000 } });
  const before = Date.now();
  const bought = await session.buy({
    networkDesign: [orderFor(examples()[0], await catalogOf(session))],
    discountCodes: [],
  });
  t.is((bought.body['data'] as Array<{ provisioningStatus: string }>)[0].provisioningStatus, 'DEPLOYABLE');
  const [uid] = (bought.body['data'] as Array<{ technicalServiceUid: string }>).map((p) => p.technicalServiceUid);

  const first = await session.product(uid);
  t.is(first.status, 200);
  t.like(first.body, { message: `Product ${uid}`, data: { provisioningStatus: 'DEPLOYABLE', liveDate: null } });
  const data = dataOf(first);
  t.like(data, { productUid: uid, productName: examples()[0].request['productName'], productType: 'MVE' });
  t.is(data['contractTermMonths'], examples()[0].request['term']);
  t.true(typeof data['locationId'] === 'number' && typeof data['mveLabel'] === 'string');
  t.true((data['createDate'] as number) >= before - 1 && (data['createDate'] as number) <= Date.now());
  t.false('vendorConfig' in data, 'no order secrets');

  t.is((await readAt(uid, 1_050))['provisioningStatus'], 'CONFIGURED');
  t.is(sim.state().products[0].provisioningStatus, 'CONFIGURED');
  const live = await readAt(uid, 2_050);
  t.is(live['provisioningStatus'], 'LIVE');
  t.is(live['liveDate'], (live['createDate'] as number) + 2_000);
  t.is(sim.state().products[0].provisioningStatus, 'LIVE');
  t.is(sim.state().calls.product, 5);
});

test('stuck: the next product bought stays CONFIGURED for ever; the one after it goes LIVE', async (t) => {
  const { sim, session, buy, readAt } = await shop(t, { provisioning: { configuredAfterMs: 200, liveAfterMs: 1_000 } });
  sim.injectFault({ kind: 'provisioning', outcome: 'stuck' });
  t.is((await session.buy({ networkDesign: [], discountCodes: [] })).status, 400);
  t.is(sim.state().faults.length, 1, 'a refused buy bought nothing, so the fault waits');

  const [stuck, after] = await buy(2);
  t.deepEqual(sim.state().faults, []);
  t.is((await readAt(stuck, 300))['provisioningStatus'], 'CONFIGURED');
  t.is((await readAt(stuck, 1_100))['provisioningStatus'], 'CONFIGURED');
  t.is((await readAt(after, 1_100))['provisioningStatus'], 'LIVE');
});

test('fail: the product ends DECOMMISSIONED (or the status asked) where it would have gone LIVE', async (t) => {
  const { sim, buy, readAt } = await shop(t, { provisioning: { configuredAfterMs: 200, liveAfterMs: 1_000 } });
  const armed = await admin(sim, 'POST', '/faults', [
    { kind: 'provisioning', outcome: 'fail' },
    { kind: 'provisioning', outcome: 'fail', status: 'CANCELLED' },
  ]);
  t.is(armed.status, 200);
  t.like((armed.body['faults'] as unknown[])[0], {
    kind: 'provisioning',
    outcome: 'fail',
    status: 'DECOMMISSIONED',
    times: 1,
  });
  const [decommissioned] = await buy();
  t.is((await readAt(decommissioned, 300))['provisioningStatus'], 'CONFIGURED');
  const [cancelled, live] = await buy(2);
  t.like(await readAt(decommissioned, 1_100), { provisioningStatus: 'DECOMMISSIONED', liveDate: null });
  t.is((await readAt(cancelled, 1_100))['provisioningStatus'], 'CANCELLED');
  t.is((await readAt(live, 1_100))['provisioningStatus'], 'LIVE');
});

test('new times apply to products bought after the change; the state shows them', async (t) => {
  const { sim, buy, readAt } = await shop(t, { provisioning: { configuredAfterMs: 100, liveAfterMs: 300 } });
  const [early] = await buy();
  const set = await admin(sim, 'PUT', '/provisioning', { configuredAfterMs: 60_000, liveAfterMs: 120_000 });
  t.is(set.status, 200);
  t.deepEqual(set.body, { provisioning: { configuredAfterMs: 60_000, liveAfterMs: 120_000 } });
  const [late] = await buy();
  t.is((await readAt(early, 400))['provisioningStatus'], 'LIVE');
  t.is((await readAt(late, 400))['provisioningStatus'], 'DEPLOYABLE');
  const state = (await admin(sim, 'GET', '/state')).body;
  t.deepEqual(state['provisioning'], { configuredAfterMs: 60_000, liveAfterMs: 120_000 });
  t.is(state['productRead'], 'offered');
  t.deepEqual(
    (state['products'] as Array<{ provisioningStatus: string; timeline: { liveAfterMs: number } }>).map((product) => [
      product.provisioningStatus,
      product.timeline.liveAfterMs,
    ]),
    [
      ['LIVE', 300],
      ['DEPLOYABLE', 120_000],
    ],
  );
  sim.setProvisioning({ configuredAfterMs: 0, liveAfterMs: 0 });
  const [instant] = await buy();
  t.is((await readAt(instant, 0))['provisioningStatus'], 'LIVE');
});

test('a product of another environment and an unknown uid are 404; a uid that is no UUID is 400; no token is 401', async (t) => {
  const { sim, session, buy } = await shop(t);
  const [uid] = await buy();
  const production = await sessionOf(
    sim,
    sim.clients.find((client) => client.environment === 'production'),
  );
  const elsewhere = await production.product(uid);
  t.is(elsewhere.status, 404);
  t.regex(String(elsewhere.body['message']), /No product .* in the production environment/);
  t.regex(String(elsewhere.body['trace_id']), /^[0-9a-f-]{36}$/);
  t.is((await session.product('6f1c2d3e-0000-4000-8000-000000000000')).status, 404);

  const bad = await session.product('not-a-uid');
  t.is(bad.status, 400);
  t.deepEqual(
    (bad.body['data'] as Array<{ path: string; rule: string }>).map(({ path, rule }) => ({ path, rule })),
    [{ path: 'productUid', rule: 'uuid' }],
  );
  t.regex(String(bad.body['message']), /productUid must be a UUID/);

  const readOnly = await sessionOf(
    sim,
    sim.clients.find((client) => client.role === 'Read Only'),
  );
  t.is((await readOnly.product(uid.toUpperCase())).status, 200, 'any key of the environment reads it');
  const anonymous = await fetch(`${sim.baseUrl}/v2/product/${uid}`);
  t.is(anonymous.status, 401);
  t.is((await fetch(`${sim.baseUrl}/v2/product/${uid}`, { method: 'POST' })).status, 405);
});

test('faults on the product endpoint: error, rate limit, latency, drop, an expired token', async (t) => {
  const { sim, session, buy } = await shop(t);
  const [uid] = await buy();
  sim.injectFault({ kind: 'error', endpoint: 'product', status: 502 });
  sim.injectFault({ kind: 'rate-limit', endpoint: 'product', retryAfterSeconds: 4 });
  sim.injectFault({ kind: 'latency', endpoint: 'product', ms: 400 });
  sim.injectFault({ kind: 'drop', endpoint: 'product' });
  sim.injectFault({ kind: 'expire-token', endpoint: 'product' });
  t.is((await session.product(uid)).status, 502);
  const limited = await session.product(uid);
  t.is(limited.status, 429);
  t.is(limited.headers.get('retry-after'), '4');
  const started = performance.now();
  t.is((await session.product(uid)).status, 200);
  t.true(performance.now() - started >= 390);
  await t.throwsAsync(session.product(uid));
  const expired = await session.product(uid);
  t.is(expired.status, 401);
  t.regex(String(expired.body['message']), /expired/);
  t.is(sim.state().calls.product, 5);
});

test('an API without the product read answers every read 404 or 405, set at start or at run time', async (t) => {
  const { sim, session, buy } = await shop(t, { productRead: 'not-found' });
  const [uid] = await buy();
  const missing = await session.product(uid);
  t.is(missing.status, 404);
  t.regex(String(missing.body['message']), /No such path \/v2\/product\/.* in the staging API/);

  const set = await admin(sim, 'PUT', '/product-read', { mode: 'not-allowed' });
  t.deepEqual(set, { status: 200, body: { productRead: 'not-allowed' } });
  const refused = await session.product(uid);
  t.is(refused.status, 405);
  t.is(refused.headers.get('allow'), '');
  t.is((await admin(sim, 'GET', '/state')).body['productRead'], 'not-allowed');

  sim.setProductRead('offered');
  t.is((await session.product(uid)).status, 200);
  t.is(sim.state().calls.product, 3);
});

test('the admin routes and the methods refuse bad provisioning settings and faults, naming the field', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const problems = async (method: string, path: string, body: unknown) => {
    const answer = await admin(sim, method, path, body);
    t.is(answer.status, 400, JSON.stringify(answer.body));
    return answer.body['data'] as Array<{ path: string; message: string }>;
  };
  t.deepEqual(await problems('PUT', '/provisioning', { configuredAfterMs: 5_000, liveAfterMs: 1_000 }), [
    { path: 'liveAfterMs', message: 'must be at least configuredAfterMs' },
  ]);
  t.deepEqual(
    (await problems('PUT', '/provisioning', { configuredAfterMs: -1, liveAfterMs: 1.5 })).map((p) => p.path),
    ['configuredAfterMs', 'liveAfterMs'],
  );
  t.deepEqual(
    (await problems('PUT', '/provisioning', { configuredAfterMs: 1 })).map((p) => p.path),
    ['liveAfterMs'],
  );
  t.deepEqual(await problems('PUT', '/product-read', { mode: 'maybe' }), [
    { path: 'mode', message: 'must be one of offered, not-found, not-allowed' },
  ]);
  t.is(
    (await problems('POST', '/faults', { kind: 'provisioning', outcome: 'fail', status: 'LIVE' }))[0].path,
    'status',
  );
  t.regex(
    (await problems('POST', '/faults', { kind: 'provisioning', outcome: 'stuck', status: 'CANCELLED' }))[0].message,
    /status: not a field of a provisioning fault with outcome "stuck"/,
  );
  t.regex(
    (await problems('POST', '/faults', { kind: 'provisioning', outcome: 'fail', endpoint: 'buy' }))[0].message,
    /endpoint: not a field/,
  );
  t.is((await problems('POST', '/faults', { kind: 'provisioning', times: 0 }))[0].path, 'outcome');
  t.is((await problems('POST', '/faults', { kind: 'error', endpoint: 'products' }))[0].path, 'endpoint');

  t.throws(() => sim.setProvisioning({ configuredAfterMs: 10, liveAfterMs: 5 }), {
    message: 'setProvisioning: liveAfterMs must be at least configuredAfterMs',
  });
  t.throws(() => sim.setProductRead('sometimes' as never), {
    message: 'setProductRead: must be one of offered, not-found, not-allowed',
  });
  await t.throwsAsync(startSimulator({ provisioning: { configuredAfterMs: -5, liveAfterMs: 0 } }), {
    message: /startSimulator: invalid provisioning: configuredAfterMs must be at least 0/,
  });
  t.like(sim.state(), { provisioning: { configuredAfterMs: 3_000, liveAfterMs: 8_000 }, productRead: 'offered' });
  t.deepEqual(sim.state().faults, []);
});
