/** What one simulator holds: its token authority, faults, catalog, the products it created and the calls it took. */
import type { SimEnvironment, TokenAuthority } from './auth.js';
import type { FaultBook, SimEndpoint } from './faults.js';
import type { SimImageGroup } from './images.js';
import type { SimKindMap } from './kind-map.js';
import type { SimLocation } from './locations.js';
import type { SimVariant } from './variants.js';

export interface SimState {
  authority: TokenAuthority;
  faults: FaultBook;
  catalog: SimCatalog;
  products: SimProduct[];
  calls: Record<SimEndpoint, number>;
}

export interface SimCatalog {
  /** Which kinds each image family allows; validate and buy check orders against it. */
  kindMap: SimKindMap;
  locations: SimLocation[];
  imageGroups: SimImageGroup[];
  variants: SimVariant[];
  /** Multiplies every price (1 = the price model as is): lets a test or demo make prices move. */
  priceFactor: number;
}

/** A product created by a buy: what the simulator answers about it, never the order's secrets. */
export interface SimProduct {
  environment: SimEnvironment;
  clientId: string;
  technicalServiceUid: string;
  serviceName: string;
  productType: 'MVE';
  provisioningStatus: 'DEPLOYABLE';
  contractTermMonths: number;
  locationId: number;
  imageId: number;
  mveLabel: string;
  monthlyRate: number;
  currency: string;
  createdAt: string;
}
