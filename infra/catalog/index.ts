/** Public face of infra/catalog: location and image lookups over cached per-environment catalogs. */
export { createCatalogLookups, DEFAULT_CATALOG_TTL_MS, DEFAULT_MISS_REFRESH_AFTER_MS } from './lookups.js';
export type { CatalogLookups, CatalogOptions, CatalogSource, ImageChoice, LocationChoice } from './lookups.js';
export { kindMapFromEnv, loadKindMap } from './kind-map-file.js';
