/**
 * Public face of the API activities: one module per call to the ordering API or its catalog, each built from the
 * worker's injected dependencies, assembled here under the activity names the workflow's history knows them by.
 */
import { createBuyOrderActivity } from './buy/index.js';
import { createCheckResolvedProductActivity } from './check-resolved-product.js';
import type { ApiActivities, ApiActivityDeps } from './dependencies.js';
import { createLookUpImageActivity } from './look-up-image.js';
import { createLookUpLocationActivity } from './look-up-location.js';
import { createReadProductActivity } from './read-product.js';
import { createValidateOrderActivity } from './validate-order.js';

/** The API activities; their names are recorded in every order's history and never change. */
export function createApiActivities(deps: ApiActivityDeps): ApiActivities {
  return {
    lookUpLocation: createLookUpLocationActivity(deps),
    lookUpImage: createLookUpImageActivity(deps),
    readProduct: createReadProductActivity(deps),
    checkResolvedProduct: createCheckResolvedProductActivity(deps),
    validateOrder: createValidateOrderActivity(deps),
    buyOrder: createBuyOrderActivity(deps),
  };
}

export { createdEntries } from './buy/index.js';
export type { ApiActivities, ApiActivityDeps } from './dependencies.js';
