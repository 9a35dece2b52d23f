/**
 * Picks the order's location from a locations catalog. Usable = status `Active` and `mveAvailable` in at
 * least one diversity zone (spec 2.1). Several usable matches: the lowest id, with a warning naming the rest.
 */
import type { Location, LocationSelector } from '../schemas/index.js';
import { issue, type Issue } from './issues.js';
import type { Selection } from './result.js';

export function selectLocation(locations: readonly Location[], selector: LocationSelector): Selection<Location> {
  if (selector.id !== undefined) {
    const found = locations.find((location) => location.id === selector.id);
    if (!found)
      return fail(
        issue('location.id', 'location-not-found', `no location with id ${selector.id} in the locations catalog`),
      );
    const problem = unusableReason(found);
    return problem ? fail(issue('location', problem.rule, problem.message)) : { ok: true, value: found, warnings: [] };
  }

  const criteria = describeCriteria(selector);
  const matching = locations.filter((location) => matches(location, selector));
  if (matching.length === 0) return fail(issue('location', 'location-not-found', `no location matches ${criteria}`));
  const usable = matching.filter((location) => unusableReason(location) === null).sort((a, b) => a.id - b.id);
  if (usable.length === 0) {
    const reasons = matching.slice(0, 3).map((location) => unusableReason(location)!.message);
    const more = matching.length > 3 ? `; and ${matching.length - 3} more` : '';
    return fail(
      issue('location', 'location-unavailable', `no usable location matches ${criteria}: ${reasons.join('; ')}${more}`),
    );
  }
  const [chosen, ...others] = usable as [Location, ...Location[]];
  const warnings: Issue[] = [];
  if (others.length > 0) {
    const listed = others.slice(0, 5).map(label).join(', ');
    const more = others.length > 5 ? ` and ${others.length - 5} more` : '';
    warnings.push(
      issue(
        'location',
        'location-ambiguous',
        `${usable.length} usable locations match ${criteria}; chose ${label(chosen)} (lowest id); others: ${listed}${more}. Give location.id to choose another`,
      ),
    );
  }
  return { ok: true, value: chosen, warnings };
}

export function isLocationUsable(location: Location): boolean {
  return unusableReason(location) === null;
}

function unusableReason(location: Location): { rule: string; message: string } | null {
  if ((location.status ?? '').toLowerCase() !== 'active') {
    const status = location.status ? `status "${location.status}"` : 'no status';
    return { rule: 'location-not-active', message: `location ${label(location)} is not Active (${status})` };
  }
  const zones = Object.values(location.diversityZones ?? {});
  if (!zones.some((zone) => zone?.mveAvailable === true)) {
    return { rule: 'location-no-mve', message: `location ${label(location)} has no diversity zone with mveAvailable` };
  }
  return null;
}

const SELECTOR_FIELDS = ['name', 'metro', 'market', 'country'] as const;

function matches(location: Location, selector: LocationSelector): boolean {
  const actual: Record<(typeof SELECTOR_FIELDS)[number], string | null | undefined> = {
    name: location.name,
    metro: location.metro,
    market: location.market,
    country: location.address?.country,
  };
  return SELECTOR_FIELDS.every((field) => selector[field] === undefined || same(selector[field], actual[field]));
}

function same(wanted: string, actual: string | null | undefined): boolean {
  return typeof actual === 'string' && actual.trim().toLowerCase() === wanted.trim().toLowerCase();
}

function describeCriteria(selector: LocationSelector): string {
  return SELECTOR_FIELDS.filter((field) => selector[field] !== undefined)
    .map((field) => `${field} "${selector[field]}"`)
    .join(', ');
}

function label(location: Location): string {
  return `${location.id} (${location.name})`;
}

function fail<T>(found: Issue): Selection<T> {
  return { ok: false, issues: [found] };
}
