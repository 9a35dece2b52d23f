import type { ApiCall } from './errors.js';

/** The ordering API's calls but the token request (which the token provider makes). */
export type ApiOperation = Exclude<ApiCall, 'token'>;

/** Method and path of each call (spec section 4); `{name}` in a path is filled in per call. */
export const ENDPOINTS: Record<ApiOperation, { method: 'GET' | 'POST'; path: string }> = {
  locations: { method: 'GET', path: '/v3/locations' },
  images: { method: 'GET', path: '/v4/product/mve/images' },
  variants: { method: 'GET', path: '/v3/product/mve/variants' },
  validate: { method: 'POST', path: '/v3/networkdesign/validate' },
  buy: { method: 'POST', path: '/v4/networkdesign/buy' },
  product: { method: 'GET', path: '/v2/product/{productUid}' },
};
