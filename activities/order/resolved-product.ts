import type { ProductRead } from '../../infra/ordering-api/index.js';
import type { ResolvedProductCheck } from '../../workflows/order/activity-types.js';

/** The order an uncertain buy was made for, and the name its buy gave the product (`productNameOf`). */
export interface BuyingOrder {
  orderId: string;
  productName: string;
}

/**
 * Whether the product ops name to settle `order`'s uncertain buy as created is that buy's: the provider must have it,
 * under the very name the buy gave it. A name that only contains the order id is not enough: a requester chooses the
 * product name, and could put another order's id in it.
 */
export function verdictOnResolvedProduct(read: ProductRead, uid: string, order: BuyingOrder): ResolvedProductCheck {
  if (!read.found) {
    const answered =
      read.status === 405 ? 'it answered 405: it does not offer the product read' : `it answered ${read.status}`;
    return {
      accepted: false,
      code: 'PRODUCT_NOT_FOUND',
      reason: `the product ${uid} was not found at the provider (${answered}): check the UID in the provider's portal, where this order's product is named '${order.productName}'`,
    };
  }
  const name = read.product.productName?.trim();
  if (name === order.productName.trim()) return { accepted: true, provisioningStatus: read.product.provisioningStatus };
  return {
    accepted: false,
    code: 'PRODUCT_OF_ANOTHER_ORDER',
    reason:
      name === undefined
        ? `the product ${uid} has no name at the provider, so nothing shows it is order ${order.orderId}'s: find the product named '${order.productName}' in the provider's portal`
        : `the product ${uid} is named '${name}', which does not name order ${order.orderId}: it belongs to another order; this order's product is named '${order.productName}' in the provider's portal`,
  };
}
