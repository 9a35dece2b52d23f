import { retriable } from '../failures.js';
import { chosen, described } from './catalog-selection.js';
import type { ApiActivities, ApiActivityDeps } from './dependencies.js';

/** The location the request names, if the catalog sells MVEs there. */
export function createLookUpLocationActivity(deps: Pick<ApiActivityDeps, 'catalog'>): ApiActivities['lookUpLocation'] {
  return async ({ environment, request }) =>
    retriable(async () => {
      const found = chosen(await deps.catalog.findLocation(environment, request.location));
      const { id, name, metro, country } = found.value;
      return { location: { id, name, metro, country }, warnings: found.warnings.map(described) };
    });
}
