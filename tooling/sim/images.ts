import { kindAcceptsSize, type SimKindId } from './appliance-kinds.js';
import { SIM_KIND_MAP, type SimKindMap } from './kind-map.js';
import { DOCUMENTED_SIZES } from './sizes.js';

// Kept here too: some callers import the kind map from this module.
export { SIM_KIND_MAP } from './kind-map.js';

/** A size label beyond the documented five, as real catalogs carry; offered by one image. */
export const EXTRA_SIZE_LABEL = 'MVE 12/48';

export interface SimImage {
  id: number;
  version: string;
  productCode: string;
  releaseImage: boolean;
  availableSizes: string[];
  vendorDescription: string;
}

export interface SimImageGroup {
  vendor: string;
  product: string;
  /** Informational; some are strings, as seen in the wild. */
  vendorProductId: number | string;
  images: SimImage[];
}

/** Three versions per product: an older and a newer release image, and a newer pre-release one. */
const VERSIONS = [
  { minor: 2, patch: 1, release: true },
  { minor: 3, patch: 0, release: true },
  { minor: 4, patch: 0, release: false },
] as const;

/**
 * One image group per (vendor, product) of the kind map, so every kind the map names is covered by
 * construction. Sizes are the documented five narrowed by the kinds' restrictions; the newest release image
 * of the first unrestricted product also offers EXTRA_SIZE_LABEL.
 */
export function generateImageGroups(kindMap: SimKindMap = SIM_KIND_MAP): SimImageGroup[] {
  let extraOffered = false;
  return kindMap.map((entry, index) => {
    const sizes = sizesFor(entry.kinds);
    const offersExtra = !extraOffered && sizes.length === DOCUMENTED_SIZES.length;
    extraOffered ||= offersExtra;
    const major = 10 + (index % 7);
    const slug = `${entry.vendor}-${entry.product}`.toUpperCase().replace(/[^A-Z0-9]+/g, '-');
    return {
      vendor: entry.vendor,
      product: entry.product,
      vendorProductId: index % 4 === 3 ? `vp-${100 + index}` : 100 + index,
      images: VERSIONS.map((version, position) => {
        const label = `${major}.${version.minor}.${version.patch}${version.release ? '' : '-rc1'}`;
        const newestRelease = position === 1;
        return {
          id: 20 + index * 10 + position,
          version: label,
          productCode: slug,
          releaseImage: version.release,
          availableSizes: offersExtra && newestRelease ? [...sizes, EXTRA_SIZE_LABEL] : [...sizes],
          vendorDescription: `${entry.vendor} ${entry.product} ${label}${version.release ? '' : ' (pre-release)'}`,
        };
      }),
    };
  });
}

/** Sizes any of the kinds accepts: the documented five, minus what each kind excludes. */
function sizesFor(kinds: readonly SimKindId[]): string[] {
  return DOCUMENTED_SIZES.filter((size) => kinds.some((kind) => kindAcceptsSize(kind, size)));
}
