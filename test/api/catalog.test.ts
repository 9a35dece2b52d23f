import test from 'ava';
import { createApiClient } from '../../infra/ordering-api/index.js';
import { createCatalogLookups, type CatalogSource } from '../../infra/catalog/index.js';
import type { Location } from '../../schemas/index.js';
import { startSimulator } from '../../tooling/sim/index.js';
import { configFor, keyWithRole, simWithClient } from './helpers.js';

test('20 concurrent cold lookups cost one catalog call and one token; warm lookups cost nothing', async (t) => {
  const { sim, client, close } = await simWithClient();
  t.teardown(close);
  const lookups = createCatalogLookups({ staging: client });
  const cold = await Promise.all(
    Array.from({ length: 20 }, () => lookups.findLocation('staging', { metro: 'Sydney' })),
  );
  t.true(cold.every((selection) => selection.ok));
  t.deepEqual(
    { locations: sim.state().calls.locations, tokens: sim.state().tokensIssued },
    { locations: 1, tokens: 1 },
  );

  for (let index = 0; index < 100; index += 1) await lookups.findLocation('staging', { country: 'Germany' });
  await lookups.findImage('staging', { vendor: 'Meraki', product: 'vMX', version: 'latest' });
  for (let index = 0; index < 100; index += 1)
    await lookups.findImage('staging', { vendor: 'Meraki', product: 'vMX', version: 'latest' }, 'MVE 4/16');
  t.deepEqual(
    { locations: sim.state().calls.locations, images: sim.state().calls.images, tokens: sim.state().tokensIssued },
    { locations: 1, images: 1, tokens: 1 },
  );
});

test('a lookup returns only what an order needs, chosen by the domain rules', async (t) => {
  const { client, close } = await simWithClient();
  t.teardown(close);
  const lookups = createCatalogLookups({ staging: client });
  const location = await lookups.findLocation('staging', { metro: 'sydney' });
  if (!location.ok) return t.fail(JSON.stringify(location.issues));
  t.deepEqual(Object.keys(location.value).sort(), ['country', 'id', 'market', 'metro', 'mveZones', 'name']);
  t.true(location.value.mveZones.length > 0);
  t.is(location.value.metro, 'Sydney');

  const image = await lookups.findImage('staging', { vendor: 'meraki', product: 'VMX', version: 'latest' }, 'MVE 4/16');
  if (!image.ok) return t.fail(JSON.stringify(image.issues));
  t.deepEqual(Object.keys(image.value).sort(), [
    'availableSizes',
    'id',
    'product',
    'releaseImage',
    'vendor',
    'version',
  ]);
  t.true(image.value.releaseImage);

  const missing = await lookups.findImage('staging', { id: 999_999 });
  t.false(missing.ok);
});

test('the cache is refetched after its TTL, and a miss refetches a catalog old enough', async (t) => {
  const { sim, client, close } = await simWithClient();
  t.teardown(close);
  const clock = { now: 1_000_000 };
  const lookups = createCatalogLookups(
    { staging: client },
    { ttlMs: 60_000, missRefreshAfterMs: 10_000, now: () => clock.now },
  );
  await lookups.findLocation('staging', { id: (await client.listLocations())[0].id });
  const baseline = sim.state().calls.locations;

  clock.now += 59_000;
  await lookups.findLocation('staging', { metro: 'Tokyo' });
  t.is(sim.state().calls.locations, baseline, 'still fresh');
  clock.now += 2_000;
  await lookups.findLocation('staging', { metro: 'Tokyo' });
  t.is(sim.state().calls.locations, baseline + 1, 'expired, fetched once');

  t.false((await lookups.findLocation('staging', { id: 1 })).ok);
  t.is(sim.state().calls.locations, baseline + 1, 'a miss on a fresh catalog does not refetch');
  clock.now += 10_000;
  t.false((await lookups.findLocation('staging', { id: 1 })).ok);
  t.is(sim.state().calls.locations, baseline + 2, 'a miss on an older catalog refetches once');
});

test('catalogs are kept per environment, each read with its own key', async (t) => {
  const sim = await startSimulator();
  const staging = createApiClient({ config: configFor(sim) });
  const production = createApiClient({ config: configFor(sim, keyWithRole(sim, 'Company Admin', 'production')) });
  t.teardown(async () => {
    staging.close();
    production.close();
    await sim.close();
  });
  const lookups = createCatalogLookups({ staging, production });
  await lookups.findLocation('staging', { metro: 'London' });
  await lookups.findLocation('production', { metro: 'London' });
  await lookups.findLocation('production', { metro: 'Paris' });
  t.is(sim.state().calls.locations, 2);
  t.is(sim.state().tokensIssued, 2);
  t.is(staging.callCounts.locations, 1);
  t.is(production.callCounts.locations, 1);
});

test('an environment without a configured API is a clear error', async (t) => {
  const lookups = createCatalogLookups({});
  await t.throwsAsync(lookups.findLocation('production', { metro: 'London' }), {
    message: /no ordering API is configured for the production environment/,
  });
});

test('a warm catalog answers a selector it has answered before without scanning again; a refetched catalog is scanned afresh', async (t) => {
  const clock = { now: 1_000_000 };
  let scans = 0;
  const at = (id: number, metro: string): Location => {
    const location = {
      id,
      name: `${metro} ${id}`,
      metro,
      market: 'AU',
      status: 'Active',
      address: { country: 'Australia' },
      diversityZones: { red: { mveAvailable: true } },
    };
    // Counts how often a selection reads the catalog (a scan asks each matching location's status).
    return new Proxy(location, {
      get: (target, field): unknown => (field === 'status' && id === 1 && scans++, Reflect.get(target, field)),
    });
  };
  let catalog = [at(1, 'Sydney'), at(2, 'Sydney')];
  const source = {
    listLocations: () => Promise.resolve(catalog),
    listImages: () => Promise.resolve({ data: { mveImages: [] } }),
  } as unknown as CatalogSource;
  const lookups = createCatalogLookups({ staging: source }, { ttlMs: 60_000, now: () => clock.now });

  const first = await lookups.findLocation('staging', { metro: 'Sydney' });
  const scansOfFirst = scans;
  const again = await Promise.all(
    Array.from({ length: 5 }, () => lookups.findLocation('staging', { metro: 'Sydney' })),
  );
  t.true(scansOfFirst > 0);
  t.is(scans, scansOfFirst, 'the same selector on the same catalog: no scan');
  t.deepEqual(
    again,
    Array.from({ length: 5 }, () => first),
    'and the same answer, warnings included',
  );
  if (!first.ok) return t.fail(JSON.stringify(first.issues));
  t.is(first.value.id, 1);
  t.is(first.warnings.length, 1, 'two usable matches: a warning names the other');

  await lookups.findLocation('staging', { metro: 'sydney' });
  t.true(scans > scansOfFirst, 'another spelling is another selection');

  catalog = [at(3, 'Sydney')];
  clock.now += 61_000;
  const refetched = await lookups.findLocation('staging', { metro: 'Sydney' });
  t.true(refetched.ok && refetched.value.id === 3, 'after the TTL the new catalog answers, not what the old one did');
});
