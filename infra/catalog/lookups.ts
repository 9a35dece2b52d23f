import type { ApiClient, Environment } from '../ordering-api/index.js';
import { selectImage, selectLocation, type Selection } from '../../domain/index.js';
import type { ImageGroup, ImageSelector, Location, LocationSelector } from '../../schemas/index.js';
import { SharedTtlCache } from './shared-cache.js';

/** What an order needs of its location: no zones' speed lists, no address lines. */
export interface LocationChoice {
  id: number;
  name: string;
  metro: string | null;
  market: string | null;
  country: string | null;
  /** Diversity zones with MVE available. */
  mveZones: string[];
}

/** What an order needs of its image. */
export interface ImageChoice {
  id: number;
  vendor: string;
  product: string;
  version: string;
  releaseImage: boolean;
  availableSizes: string[];
}

export type CatalogSource = Pick<ApiClient, 'listLocations' | 'listImages'>;

export interface CatalogOptions {
  /** How long a catalog is used before it is fetched again. */
  ttlMs?: number;
  /** A lookup that finds nothing refetches the catalog once, if it is at least this old. */
  missRefreshAfterMs?: number;
  now?: () => number;
}

export interface CatalogLookups {
  findLocation(environment: Environment, selector: LocationSelector): Promise<Selection<LocationChoice>>;
  findImage(environment: Environment, selector: ImageSelector, size?: string): Promise<Selection<ImageChoice>>;
}

export const DEFAULT_CATALOG_TTL_MS = 10 * 60_000;
export const DEFAULT_MISS_REFRESH_AFTER_MS = 60_000;
/** Selections remembered per catalog: more distinct selectors than this start the memory afresh. */
const MAX_REMEMBERED_SELECTIONS = 1_000;

interface EnvironmentCatalogs {
  locations: SharedTtlCache<Location[]>;
  images: SharedTtlCache<ImageGroup[]>;
}

/**
 * Location and image lookups over per-environment catalogs cached in the worker, so that an order costs no
 * catalog call in steady state. Selection itself is the domain's (selectLocation, selectImage).
 */
export function createCatalogLookups(
  sources: Partial<Record<Environment, CatalogSource>>,
  options: CatalogOptions = {},
): CatalogLookups {
  const ttlMs = options.ttlMs ?? DEFAULT_CATALOG_TTL_MS;
  const missRefreshAfterMs = options.missRefreshAfterMs ?? DEFAULT_MISS_REFRESH_AFTER_MS;
  const catalogs = new Map<Environment, EnvironmentCatalogs>();
  // Every order of a ticket system tends to name its location and image the same way: a selection made from a catalog
  // is kept with that catalog (not its copy: a refetched catalog starts empty), so a warm lookup scans nothing.
  const remembered = new WeakMap<object, Map<string, Selection<unknown>>>();

  function catalogsOf(environment: Environment): EnvironmentCatalogs {
    let found = catalogs.get(environment);
    if (!found) {
      const source = sources[environment];
      if (!source) throw new Error(`no ordering API is configured for the ${environment} environment`);
      found = {
        locations: new SharedTtlCache(() => source.listLocations(), ttlMs, options.now),
        images: new SharedTtlCache(async () => (await source.listImages()).data.mveImages, ttlMs, options.now),
      };
      catalogs.set(environment, found);
    }
    return found;
  }

  /**
   * Selects from the cached catalog (`key` names the selection: the same key, the same pick); on a miss against a
   * catalog old enough, refetches it and tries again.
   */
  async function select<C extends object, T>(
    cache: SharedTtlCache<C>,
    key: string,
    pick: (catalog: C) => Selection<T>,
  ): Promise<Selection<T>> {
    const first = pickOnce(await cache.get(), key, pick);
    if (first.ok || cache.age() < missRefreshAfterMs) return first;
    cache.invalidate();
    return pickOnce(await cache.get(), key, pick);
  }

  function pickOnce<C extends object, T>(catalog: C, key: string, pick: (catalog: C) => Selection<T>): Selection<T> {
    let selections = remembered.get(catalog);
    if (!selections) remembered.set(catalog, (selections = new Map<string, Selection<unknown>>()));
    let selection = selections.get(key) as Selection<T> | undefined;
    if (!selection) {
      selection = pick(catalog);
      if (selections.size >= MAX_REMEMBERED_SELECTIONS) selections.clear();
      selections.set(key, selection);
    }
    return selection;
  }

  return {
    async findLocation(environment, selector) {
      const selection = await select(catalogsOf(environment).locations, JSON.stringify(selector), (locations) =>
        selectLocation(locations, selector),
      );
      return selection.ok ? { ...selection, value: locationChoice(selection.value) } : selection;
    },
    async findImage(environment, selector, size) {
      const selection = await select(catalogsOf(environment).images, JSON.stringify([selector, size]), (groups) =>
        selectImage(groups, selector, size),
      );
      return selection.ok ? { ...selection, value: imageChoice(selection.value) } : selection;
    },
  };
}

function locationChoice(location: Location): LocationChoice {
  return {
    id: location.id,
    name: location.name,
    metro: location.metro ?? null,
    market: location.market ?? null,
    country: location.address?.country ?? null,
    mveZones: Object.entries(location.diversityZones ?? {})
      .filter(([, zone]) => zone?.mveAvailable === true)
      .map(([name]) => name),
  };
}

function imageChoice(image: ImageGroup['images'][number] & { vendor: string; product: string }): ImageChoice {
  return {
    id: image.id,
    vendor: image.vendor,
    product: image.product,
    version: image.version,
    releaseImage: image.releaseImage === true,
    availableSizes: [...image.availableSizes],
  };
}
