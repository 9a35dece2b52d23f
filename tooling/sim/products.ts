/**
 * GET /v2/product/{productUid}: the provider's read of one product, here a product bought in the same environment
 * (any key of that environment may read it), with its provisioning status as of the moment asked.
 */
import { z } from 'zod';
import type { SimEnvironment } from './auth.js';
import { SIM_PRODUCT_READ_MODES } from './defaults.js';
import { apiError, ok, type SimResponse } from './http.js';
import type { SimIssue } from './issues.js';
import { statusAt } from './provisioning.js';
import type { SimBoughtProduct, SimProduct, SimState } from './state.js';

export const productReadModeSchema = z.enum(SIM_PRODUCT_READ_MODES, {
  error: `must be one of ${SIM_PRODUCT_READ_MODES.join(', ')}`,
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function withStatus(product: SimBoughtProduct, now: number): SimProduct {
  return { ...product, provisioningStatus: statusAt(product.timeline, Date.parse(product.createdAt), now) };
}

export function readProduct(
  state: SimState,
  environment: SimEnvironment,
  productUid: string,
  terms: string,
): SimResponse {
  if (!UUID.test(productUid)) {
    const issue: SimIssue = {
      path: 'productUid',
      rule: 'uuid',
      message: 'productUid must be a UUID: the technicalServiceUid a buy answered',
    };
    return apiError(400, issue.message, [issue]);
  }
  const uid = productUid.toLowerCase();
  const bought = state.products.find(
    (candidate) => candidate.environment === environment && candidate.technicalServiceUid === uid,
  );
  if (!bought) return apiError(404, `No product ${uid} in the ${environment} environment`);
  const product = withStatus(bought, Date.now());
  const createDate = Date.parse(product.createdAt);
  return ok({
    message: `Product ${uid}`,
    terms,
    data: {
      productUid: uid,
      productName: product.serviceName,
      productType: product.productType,
      provisioningStatus: product.provisioningStatus,
      createDate,
      liveDate: product.provisioningStatus === 'LIVE' ? createDate + product.timeline.liveAfterMs : null,
      contractTermMonths: product.contractTermMonths,
      locationId: product.locationId,
      mveLabel: product.mveLabel,
    },
  });
}
