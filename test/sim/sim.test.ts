import test from 'ava';
import { DEFAULT_KIND_MAP, KIND_IDS } from '../../domain/index.js';
import {
  EXTRA_SIZE_LABEL,
  priceOf,
  SIM_KIND_MAP,
  startSimulator,
  type Simulator,
  type SimulatorOptions,
} from '../../tooling/sim/index.js';
import type { Location } from './helpers.js';

/** Raw HTTP against the simulator, as any client would see it. */
async function call(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
  };
}

async function tokenFor(sim: Simulator, environment: 'staging' | 'production' = 'staging', role = 'Company Admin') {
  const key = sim.clients.find((client) => client.environment === environment && client.role === role)!;
  const response = await call(`${sim.environments[environment].authUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${key.clientId}:${key.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  return response.body!['access_token'] as string;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function withSim(
  t: { teardown(fn: () => Promise<void>): void },
  options: SimulatorOptions = {},
): Promise<Simulator> {
  const sim = await startSimulator(options);
  t.teardown(() => sim.close());
  return sim;
}

test('the token endpoint follows spec 4.6: Basic credentials, form-encoded client_credentials, expiring Bearer tokens', async (t) => {
  const sim = await withSim(t, { tokenTtlSeconds: 900 });
  const basic = `Basic ${Buffer.from(`${sim.clientId}:${sim.clientSecret}`).toString('base64')}`;
  const url = `${sim.authUrl}/oauth2/token`;
  const good = await call(url, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  t.is(good.status, 200);
  t.like(good.body, { expires_in: 900, token_type: 'Bearer' });

  const json = await call(url, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/json' },
    body: '{"grant_type":"client_credentials"}',
  });
  t.is(json.status, 400);
  const grant = await call(url, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=password',
  });
  t.like(grant.body, { error: 'unsupported_grant_type' });
  const wrong = await call(url, {
    method: 'POST',
    headers: {
      authorization: 'Basic ' + Buffer.from(`${sim.clientId}:nope`).toString('base64'),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  t.is(wrong.status, 401);
  t.is(sim.state().tokensIssued, 1);
});

test('a staging key is not accepted at the production token endpoint, nor a staging token by the production API', async (t) => {
  const sim = await withSim(t);
  const basic = `Basic ${Buffer.from(`${sim.clientId}:${sim.clientSecret}`).toString('base64')}`;
  const refused = await call(`${sim.environments.production.authUrl}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  t.is(refused.status, 401);
  const token = await tokenFor(sim, 'staging');
  const crossed = await call(`${sim.environments.production.baseUrl}/v3/locations`, { headers: bearer(token) });
  t.is(crossed.status, 401);
  t.regex(String(crossed.body!['message']), /issued for staging, not production/);
});

test('API calls need a valid, unexpired bearer token; errors are {message, data, trace_id} with a Trace-Id header', async (t) => {
  const sim = await withSim(t);
  const missing = await call(`${sim.baseUrl}/v3/locations`);
  t.is(missing.status, 401);
  t.deepEqual(Object.keys(missing.body!).sort(), ['data', 'message', 'trace_id']);
  t.is(missing.headers.get('trace-id'), String(missing.body!['trace_id']));

  const token = await tokenFor(sim);
  t.is((await call(`${sim.baseUrl}/v3/locations`, { headers: bearer(token) })).status, 200);
  sim.expireTokens();
  const expired = await call(`${sim.baseUrl}/v3/locations`, { headers: bearer(token) });
  t.is(expired.status, 401);
  t.regex(String(expired.body!['message']), /expired/);
});

test('locations: hundreds, generated from the seed, with a mix of zones, availability and statuses', async (t) => {
  const [a, b, c] = await Promise.all([
    startSimulator({ seed: 7 }),
    startSimulator({ seed: 7 }),
    startSimulator({ seed: 8 }),
  ]);
  t.teardown(() => Promise.all([a.close(), b.close(), c.close()]).then(() => undefined));
  const list = async (sim: Simulator) =>
    (await call(`${sim.baseUrl}/v3/locations`, { headers: bearer(await tokenFor(sim)) })).body!['data'] as Location[];
  const [first, same, other] = await Promise.all([list(a), list(b), list(c)]);
  t.true(first.length >= 300);
  t.deepEqual(first, same);
  t.notDeepEqual(first, other);
  t.true(new Set(first.map((location) => location.id)).size === first.length, 'ids are unique');
  const statuses = new Set(first.map((location) => location.status));
  t.true(statuses.has('Active') && statuses.size > 1);
  const zones = first.flatMap((location) => Object.values(location.diversityZones));
  t.true(zones.some((zone) => zone.mveAvailable) && zones.some((zone) => !zone.mveAvailable));
  const zoneCounts = new Set(first.map((location) => Object.keys(location.diversityZones).length));
  t.true(zoneCounts.size > 1);
});

test('images cover every appliance kind, with one size beyond the documented five', async (t) => {
  const sim = await withSim(t);
  const body = (await call(`${sim.baseUrl}/v4/product/mve/images`, { headers: bearer(await tokenFor(sim)) })).body!;
  const groups = (
    body['data'] as {
      mveImages: Array<{
        vendor: string;
        product: string;
        images: Array<{ availableSizes: string[]; releaseImage: boolean }>;
      }>;
    }
  ).mveImages;
  const covered = new Set(
    groups.flatMap(
      (group) =>
        SIM_KIND_MAP.find((entry) => entry.vendor === group.vendor && entry.product === group.product)?.kinds ?? [],
    ),
  );
  t.deepEqual(
    [...KIND_IDS].filter((kind) => !covered.has(kind)),
    [],
    'kinds without an image',
  );
  const sizes = groups.flatMap((group) => group.images.flatMap((image) => image.availableSizes));
  t.true(sizes.includes(EXTRA_SIZE_LABEL));
  t.true(
    groups.every(
      (group) => group.images.some((image) => image.releaseImage) && group.images.some((image) => !image.releaseImage),
    ),
  );
  const domainFamilies = groups.filter((group) =>
    DEFAULT_KIND_MAP.some((entry) => entry.vendor === group.vendor && entry.product === group.product),
  );
  t.is(domainFamilies.length, DEFAULT_KIND_MAP.length, 'every family of the domain default map is offered');
});

test('variants list the sizes', async (t) => {
  const sim = await withSim(t);
  const body = (await call(`${sim.baseUrl}/v3/product/mve/variants`, { headers: bearer(await tokenFor(sim)) })).body!;
  const labels = (body['data'] as Array<{ mveLabel: string }>).map((variant) => variant.mveLabel);
  t.true(labels.includes('MVE 2/8') && labels.includes('MVE 32/128') && labels.includes(EXTRA_SIZE_LABEL));
});

test('the price model is deterministic: size × term × market, in the market currency', (t) => {
  t.deepEqual(priceOf('MVE 4/16', 12, 'US'), priceOf('MVE 4/16', 12, 'US'));
  t.true(priceOf('MVE 8/32', 12, 'US').monthlyRate > priceOf('MVE 4/16', 12, 'US').monthlyRate);
  t.true(priceOf('MVE 4/16', 36, 'US').monthlyRate < priceOf('MVE 4/16', 1, 'US').monthlyRate);
  t.is(priceOf('MVE 4/16', 12, 'AU').currency, 'AUD');
  t.is(priceOf('MVE 4/16', 12, 'EU').currency, 'EUR');
  t.throws(() => priceOf('MVE 4/16', 7, 'US'));
});

test('validate and buy apply the rules server-side; a bad order creates nothing', async (t) => {
  const sim = await withSim(t);
  const token = await tokenFor(sim);
  const headers = { ...bearer(token), 'content-type': 'application/json' };
  const images = (await call(`${sim.baseUrl}/v4/product/mve/images`, { headers: bearer(token) })).body!;
  const firewall = (
    images['data'] as { mveImages: Array<{ vendor: string; product: string; images: Array<{ id: number }> }> }
  ).mveImages.find((group) => group.product === 'FTDv')!;
  const locations = (await call(`${sim.baseUrl}/v3/locations`, { headers: bearer(token) })).body!['data'] as Array<{
    id: number;
    status: string;
    diversityZones: Record<string, { mveAvailable: boolean }>;
  }>;
  const usable = locations.find(
    (location) =>
      location.status === 'Active' && Object.values(location.diversityZones).some((zone) => zone.mveAvailable),
  )!;
  const unusable = locations.find((location) => location.status !== 'Active')!;
  // K6 firewall: no MVE 2/8, password rules, at least 4 vNICs.
  const order = {
    locationId: usable.id,
    productName: 'fw',
    productType: 'MVE',
    term: 12,
    vendorConfig: { imageId: firewall.images[0].id, mveLabel: 'MVE 2/8', adminPassword: 'short', manageLocally: true },
    vnics: [{}],
  };
  const rejected = await call(`${sim.baseUrl}/v3/networkdesign/validate`, {
    method: 'POST',
    headers,
    body: JSON.stringify([order]),
  });
  t.is(rejected.status, 400);
  const paths = (rejected.body!['data'] as Array<{ path: string }>).map((issue) => issue.path).sort();
  t.true(paths.includes('vendorConfig.adminPassword'));
  t.true(paths.includes('vendorConfig.mveLabel'));
  t.true(paths.includes('vnics'));
  t.false(JSON.stringify(rejected.body).includes('short'), 'the password is not echoed');

  const elsewhere = { ...order, locationId: unusable.id };
  const buyRejected = await call(`${sim.baseUrl}/v4/networkdesign/buy`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ networkDesign: [elsewhere], discountCodes: [] }),
  });
  t.is(buyRejected.status, 400);
  t.true(
    (buyRejected.body!['data'] as Array<{ path: string }>).some((issue) => issue.path === 'networkDesign.0.locationId'),
  );
  const noEnvelope = await call(`${sim.baseUrl}/v4/networkdesign/buy`, {
    method: 'POST',
    headers,
    body: JSON.stringify([order]),
  });
  t.is(noEnvelope.status, 400);
  t.deepEqual(sim.state().products, []);
});

test('faults are armed through the admin endpoint and validated there', async (t) => {
  const sim = await withSim(t);
  const bad = await call(`${sim.url}/_sim/faults`, {
    method: 'POST',
    body: JSON.stringify({ kind: 'rate-limit', endpoint: 'nowhere' }),
  });
  t.is(bad.status, 400);
  t.regex(JSON.stringify(bad.body), /endpoint/);

  const armed = await call(`${sim.url}/_sim/faults`, {
    method: 'POST',
    body: JSON.stringify([
      { kind: 'rate-limit', endpoint: 'locations', retryAfterSeconds: 7, times: 2 },
      { kind: 'error', endpoint: 'images' },
    ]),
  });
  t.is(armed.status, 200);
  const token = await tokenFor(sim);
  for (const expected of [429, 429, 200]) {
    const response = await call(`${sim.baseUrl}/v3/locations`, { headers: bearer(token) });
    t.is(response.status, expected);
    if (expected === 429) t.is(response.headers.get('retry-after'), '7');
  }
  t.is((await call(`${sim.baseUrl}/v4/product/mve/images`, { headers: bearer(token) })).status, 503);

  await call(`${sim.url}/_sim/faults`, {
    method: 'POST',
    body: JSON.stringify({ kind: 'error', endpoint: 'variants', times: 'always' }),
  });
  t.is((await call(`${sim.url}/_sim/faults`, { method: 'DELETE' })).status, 200);
  t.is((await call(`${sim.baseUrl}/v3/product/mve/variants`, { headers: bearer(token) })).status, 200);

  await call(`${sim.url}/_sim/tokens/expire`, { method: 'POST' });
  t.is((await call(`${sim.baseUrl}/v3/product/mve/variants`, { headers: bearer(token) })).status, 401);
  const state = (await call(`${sim.url}/_sim/state`)).body!;
  t.like(state, { tokensIssued: 1, calls: { locations: 3, images: 1, variants: 2 } });
});

test('latency (armed through the options) delays the answer by the requested time', async (t) => {
  const sim = await withSim(t, { faults: [{ kind: 'latency', endpoint: 'variants', ms: 300 }] });
  const token = await tokenFor(sim);
  const started = performance.now();
  t.is((await call(`${sim.baseUrl}/v3/product/mve/variants`, { headers: bearer(token) })).status, 200);
  t.true(performance.now() - started >= 290);
});

test('unknown environments, paths, methods and oversized bodies get clear answers', async (t) => {
  const sim = await withSim(t);
  const noEnv = await call(`${sim.url}/v3/locations`);
  t.is(noEnv.status, 404);
  t.regex(String(noEnv.body!['message']), /\/staging or \/production/);
  t.is((await call(`${sim.baseUrl}/v9/nothing`)).status, 404);
  t.is((await call(`${sim.baseUrl}/v3/locations`, { method: 'POST' })).status, 405);
  t.is((await call(`${sim.url}/_sim/nothing`)).status, 404);
  const huge = await call(`${sim.baseUrl}/v3/networkdesign/validate`, { method: 'POST', body: 'x'.repeat(1_100_000) });
  t.is(huge.status, 413);
});

test('a price factor set through the admin endpoint moves every later quote; a bad factor is refused', async (t) => {
  const sim = await withSim(t);
  const token = await tokenFor(sim);
  const headers = { ...bearer(token), 'content-type': 'application/json' };
  const images = (await call(`${sim.baseUrl}/v4/product/mve/images`, { headers: bearer(token) })).body!;
  const router = (
    images['data'] as { mveImages: Array<{ product: string; images: Array<{ id: number }> }> }
  ).mveImages.find((group) => /Session Smart/.test(group.product))!;
  const locations = (await call(`${sim.baseUrl}/v3/locations`, { headers: bearer(token) })).body!['data'] as Array<{
    id: number;
    market: string;
    status: string;
    diversityZones: Record<string, { mveAvailable: boolean }>;
  }>;
  const usable = locations.find(
    (location) =>
      location.status === 'Active' && Object.values(location.diversityZones).some((zone) => zone.mveAvailable),
  )!;
  const order = {
    locationId: usable.id,
    productName: 'router',
    productType: 'MVE',
    term: 12,
    vendorConfig: { imageId: router.images[0].id, mveLabel: 'MVE 2/8', registrationCode: 'REG-123' },
  };
  const quote = async () => {
    const validated = await call(`${sim.baseUrl}/v3/networkdesign/validate`, {
      method: 'POST',
      headers,
      body: JSON.stringify([order]),
    });
    t.is(validated.status, 200, JSON.stringify(validated.body));
    return (validated.body!['data'] as Array<{ price: { monthlyRate: number } }>)[0].price.monthlyRate;
  };
  const base = priceOf('MVE 2/8', 12, usable.market).monthlyRate;
  t.is(await quote(), base);
  const set = await call(`${sim.url}/_sim/prices`, { method: 'POST', body: JSON.stringify({ factor: 1.1 }) });
  t.is(set.status, 200);
  t.is(await quote(), Math.round(base * 1.1 * 100) / 100);
  const refused = await call(`${sim.url}/_sim/prices`, { method: 'POST', body: JSON.stringify({ factor: -1 }) });
  t.is(refused.status, 400);
  t.is(sim.state().priceFactor, 1.1);
  sim.setPriceFactor(1);
  t.is(await quote(), base);
});
