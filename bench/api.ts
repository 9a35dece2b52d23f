/**
 * API client and catalog figures against the simulator on loopback: how many API calls and token requests
 * N lookups cost with the catalog cache cold and warm, and what a lookup and a validate call take.
 * Run: node --import tsx bench/api.ts
 */
import { pathToFileURL } from 'node:url';
import { createCatalogLookups } from '../infra/catalog/index.js';
import { vendorConfigSchema, type OrderObject } from '../schemas/index.js';
import type { ApiClient } from '../infra/ordering-api/index.js';
import { withSimulatorClient } from './simulator-client.js';

export interface LookupFigures {
  lookups: number;
  mode: 'cold, sequential' | 'cold, concurrent' | 'warm';
  apiCalls: number;
  tokenRequests: number;
  msPerLookup: number;
}

/** Lookups and validate calls are quick on loopback: a stalled one fails the bench soon. */
const TIMEOUTS = { connectTimeoutMs: 2_000, responseTimeoutMs: 10_000 };

/** Each order looks up one location and one image, as the order workflow does. */
function measureLookups(lookups: number, mode: LookupFigures['mode']): Promise<LookupFigures> {
  return withSimulatorClient(TIMEOUTS, async (sim, client) => {
    const catalog = createCatalogLookups({ staging: client });
    const lookupOnce = async (index: number) => {
      const metros = ['Sydney', 'London', 'Frankfurt', 'Tokyo', 'Ashburn'];
      await catalog.findLocation('staging', { metro: metros[index % metros.length] });
      await catalog.findImage('staging', { vendor: 'Meraki', product: 'vMX', version: 'latest' }, 'MVE 4/16');
    };
    if (mode === 'warm') await lookupOnce(0);
    const before = sim.state();
    const started = performance.now();
    if (mode === 'cold, concurrent')
      await Promise.all(Array.from({ length: lookups }, (_, index) => lookupOnce(index)));
    else for (let index = 0; index < lookups; index += 1) await lookupOnce(index);
    const elapsed = performance.now() - started;
    const after = sim.state();
    const calls = (state: typeof before) => state.calls.locations + state.calls.images + state.calls.variants;
    return {
      lookups,
      mode,
      apiCalls: calls(after) - calls(before),
      tokenRequests: after.tokensIssued - before.tokensIssued,
      msPerLookup: Number((elapsed / lookups).toFixed(3)),
    };
  });
}

/** An order the simulator accepts: an active location with MVE capacity, a Meraki image. */
async function validOrder(client: ApiClient): Promise<OrderObject> {
  const [locations, images] = await Promise.all([client.listLocations(), client.listImages()]);
  const location = locations.find(
    (candidate) =>
      candidate.status === 'Active' && Object.values(candidate.diversityZones ?? {}).some((zone) => zone?.mveAvailable),
  )!;
  const image = images.data.mveImages.find((group) => group.vendor === 'Meraki')!.images[0];
  return {
    locationId: location.id,
    productName: 'bench',
    productType: 'MVE',
    term: 12,
    vendorConfig: vendorConfigSchema.parse({ imageId: image.id, mveLabel: 'MVE 2/8', token: 'bench-token' }),
    vnics: [{}, {}],
  };
}

function measureValidate(
  calls: number,
): Promise<{ calls: number; p50Ms: number; p95Ms: number; tokenRequests: number }> {
  return withSimulatorClient(TIMEOUTS, async (sim, client) => {
    const order = await validOrder(client);
    const durations: number[] = [];
    for (let index = 0; index < calls; index += 1) {
      const started = performance.now();
      await client.validate([order]);
      durations.push(performance.now() - started);
    }
    durations.sort((a, b) => a - b);
    const at = (fraction: number) =>
      Number(durations[Math.min(durations.length - 1, Math.floor(fraction * durations.length))].toFixed(2));
    return { calls, p50Ms: at(0.5), p95Ms: at(0.95), tokenRequests: sim.state().tokensIssued };
  });
}

export async function runApiBench(): Promise<void> {
  const figures: LookupFigures[] = [];
  for (const lookups of [1, 10, 100, 1000]) {
    figures.push(await measureLookups(lookups, 'cold, sequential'));
    figures.push(await measureLookups(lookups, 'cold, concurrent'));
    figures.push(await measureLookups(lookups, 'warm'));
  }
  process.stdout.write('Catalog lookups (one location + one image per order) against the simulator:\n');
  console.table(figures);
  process.stdout.write('Validate calls, sequential, one token for all:\n');
  console.table([await measureValidate(200)]);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runApiBench();
