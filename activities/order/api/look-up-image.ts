import { LEGACY_SIZE_LABELS, resolveOrderKind } from '../../../domain/index.js';
import { retriable } from '../failures.js';
import { chosen, described } from './catalog-selection.js';
import type { ApiActivities, ApiActivityDeps } from './dependencies.js';

/** The image the request names in the size it asks for, and the appliance kind the request makes of it. */
export function createLookUpImageActivity(
  deps: Pick<ApiActivityDeps, 'catalog' | 'kindMap'>,
): ApiActivities['lookUpImage'] {
  return async ({ environment, request }) =>
    retriable(async () => {
      const size = request.size ?? (request.productSize ? LEGACY_SIZE_LABELS[request.productSize] : undefined);
      const found = chosen(await deps.catalog.findImage(environment, request.image, size));
      const { id, vendor, product, version } = found.value;
      const { kind, warnings } = resolveOrderKind(request, found.value, { kindMap: deps.kindMap });
      return {
        image: { id, vendor, product, version },
        kind,
        warnings: [...found.warnings, ...warnings].map(described),
      };
    });
}
