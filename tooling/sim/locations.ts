import { METROS } from './markets.js';
import { createRandom } from './random.js';

/** A location as the simulator serves it (spec 2.1). A type alias, so it reads as the schemas' Location. */
export type SimLocation = {
  id: number;
  name: string;
  address: { street: string; suburb: string | null; city: string; state: string; postcode: string; country: string };
  dataCentre: { id: number; name: string };
  metro: string;
  market: string;
  status: string;
  diversityZones: Record<string, SimZone>;
};

export type SimZone = {
  mcrSpeedMbps: number[];
  portSpeedMbps: number[];
  mveMaxCpuCoreCount: number | null;
  mveAvailable: boolean;
};

const OPERATORS = [
  'Northgate',
  'Harbourline',
  'Meridian',
  'Stratus',
  'Corefield',
  'Bluewater',
  'Ironbark',
  'Lumen Park',
];
const STREETS = [
  'Bourke St',
  'Harbour Rd',
  'Exchange Pl',
  'Fibre Way',
  'Station St',
  'Dock Rd',
  'Quarry Ln',
  'Mill Ave',
];
/** Non-usable statuses; the spec shows only `Active`, so these are the simulator's own. */
const INACTIVE_STATUSES = ['Deployment', 'Restricted', 'Decommissioned'];
const ZONE_NAMES = ['red', 'blue', 'green'];

export const DEFAULT_LOCATION_COUNT = 320;

/**
 * Generates the location catalog from a seed: hundreds of locations over the metros, most of them Active,
 * MVE available in some zones only, a few in non-Active statuses, so that lookups have something to reject.
 */
export function generateLocations(seed: number, count: number = DEFAULT_LOCATION_COUNT): SimLocation[] {
  const random = createRandom(seed);
  const locations: SimLocation[] = [];
  for (let index = 0; index < count; index += 1) {
    const metro = METROS[index % METROS.length];
    const site = Math.floor(index / METROS.length) + 1;
    const operator = random.pick(OPERATORS);
    const id = 100 + index * 3 + random.int(0, 2);
    const zoneCount = random.int(1, 3);
    const diversityZones = Object.fromEntries(
      ZONE_NAMES.slice(0, zoneCount).map((zone) => [zone, generateZone(random.next(), random.next())]),
    );
    locations.push({
      id,
      name: `${operator} ${metro.code}${site}`,
      address: {
        street: `${random.int(1, 400)} ${random.pick(STREETS)}`,
        suburb: random.chance(0.3)
          ? null
          : `${metro.city} ${random.pick(['North', 'South', 'East', 'West', 'Central'])}`,
        city: metro.city,
        state: metro.state,
        postcode: String(random.int(1000, 99999)),
        country: metro.country,
      },
      dataCentre: { id: 5000 + index, name: `${operator} ${metro.metro} ${site}` },
      metro: metro.metro,
      market: metro.market,
      status: random.chance(0.12) ? random.pick(INACTIVE_STATUSES) : 'Active',
      diversityZones,
    });
  }
  return locations;
}

function generateZone(availability: number, capacity: number): SimZone {
  const mveAvailable = availability < 0.6;
  return {
    mcrSpeedMbps: [1000, 2500, 5000, 10000],
    portSpeedMbps: capacity < 0.5 ? [1000, 10000] : [1000, 10000, 100000],
    mveMaxCpuCoreCount: mveAvailable ? (capacity < 0.3 ? 16 : capacity < 0.8 ? 32 : 64) : null,
    mveAvailable,
  };
}
