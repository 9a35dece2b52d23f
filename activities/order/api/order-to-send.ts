import { buildOrder, orderIdOfWorkflow, type KindMap } from '../../../domain/index.js';
import type { OrderRequest } from '../../../schemas/index.js';
import type { RunReference } from '../order-requests.js';
import type { BuyTargets } from '../../../workflows/order/activity-types.js';

/**
 * The order exactly as it will be sent; the same request and targets always build the same order. The product is
 * named after the order this activity runs for (its workflow, from the activity's context).
 */
export function orderToSend(kindMap: KindMap, run: RunReference, request: OrderRequest, targets: BuyTargets) {
  return buildOrder(request, { id: targets.location.id }, targets.image, {
    kindMap,
    orderId: orderIdOfWorkflow(run.workflowId),
  });
}
