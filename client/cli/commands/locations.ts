import type { Command } from 'commander';
import type { Location } from '../../../schemas/index.js';
import { withCatalogClient } from './catalog-api.js';
import { formatTable } from './table.js';

interface LocationsOptions {
  mveAvailable?: boolean;
  metro?: string;
  country?: string;
  json?: boolean;
}

export function registerLocationsCommand(program: Command): void {
  program
    .command('locations')
    .description(
      "List the ordering API's locations: the running dev's simulator, or the API of the MVE_* variables when MVE_API_BASE_URL is set",
    )
    .option('--mve-available', 'only Active locations with MVE available in some diversity zone')
    .option('--metro <metro>', 'only this metro (case-insensitive)')
    .option('--country <country>', 'only this country (case-insensitive)')
    .option('--json', 'print the locations as JSON')
    .action(async (options: LocationsOptions) => {
      const { isLocationUsable } = await import('../../../domain/index.js');
      const { locations, source } = await withCatalogClient(async (client, source) => ({
        locations: await client.listLocations(),
        source,
      }));
      const chosen = locations.filter(
        (location) =>
          (!options.mveAvailable || isLocationUsable(location)) &&
          matches(location.metro, options.metro) &&
          matches(location.address?.country, options.country),
      );
      process.stdout.write(
        options.json
          ? `${JSON.stringify(chosen, null, 2)}\n`
          : locationsTable(chosen, locations.length, source.describe),
      );
    });
}

function matches(value: string | null | undefined, wanted: string | undefined): boolean {
  return wanted === undefined || (value ?? '').trim().toLowerCase() === wanted.trim().toLowerCase();
}

function locationsTable(locations: Location[], total: number, source: string): string {
  if (locations.length === 0) return `No locations match (of ${total} at ${source}).\n`;
  const rows = locations.map((location) => [
    String(location.id),
    location.name,
    location.metro ?? '',
    location.address?.country ?? '',
    location.market ?? '',
    location.status ?? '',
    mveZones(location),
  ]);
  return (
    formatTable(['ID', 'NAME', 'METRO', 'COUNTRY', 'MARKET', 'STATUS', 'MVE ZONES'], rows) +
    `${locations.length} of ${total} locations, at ${source}\n`
  );
}

/** Zones where MVE can be provisioned, with the largest vCPU count offered there. */
function mveZones(location: Location): string {
  const zones = Object.entries(location.diversityZones ?? {})
    .filter(([, zone]) => zone?.mveAvailable === true)
    .map(([name, zone]) => (zone?.mveMaxCpuCoreCount ? `${name} (≤${zone.mveMaxCpuCoreCount} vCPU)` : name));
  return zones.length > 0 ? zones.join(', ') : '-';
}
