/** What one simulator holds: its token authority, faults, catalog, the products it created and the calls it took. */
import type { SimEnvironment, TokenAuthority } from './auth.js';
import type { FaultBook, SimEndpoint } from './faults.js';
import type { SimImageGroup } from './images.js';
import type { SimKindMap } from './kind-map.js';
import type { SimLocation } from './locations.js';
import type { SimProductReadMode } from './defaults.js';
import type { SimProvisioningStatus, SimProvisioningTimes, SimTimeline } from './provisioning.js';
import type { SimVariant } from './variants.js';

export interface SimState {
  authority: TokenAuthority;
  faults: FaultBook;
  catalog: SimCatalog;
  products: SimBoughtProduct[];
  /** The course given to each product bought from now on. */
  provisioning: SimProvisioningTimes;
  /** Whether the API offers the product read, or answers it as a path it does not have. */
  productRead: SimProductReadMode;
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

/** A product created by a buy, as kept: never the order's secrets. Its status follows from `timeline` and the clock. */
export interface SimBoughtProduct {
  environment: SimEnvironment;
  clientId: string;
  technicalServiceUid: string;
  serviceName: string;
  productType: 'MVE';
  contractTermMonths: number;
  locationId: number;
  imageId: number;
  mveLabel: string;
  monthlyRate: number;
  currency: string;
  createdAt: string;
  timeline: SimTimeline;
}

/** A product as the simulator reports it: with its status at the time asked. */
export interface SimProduct extends SimBoughtProduct {
  provisioningStatus: SimProvisioningStatus;
}
