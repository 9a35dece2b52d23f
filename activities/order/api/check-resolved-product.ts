import { orderIdOfWorkflow, productNameOf } from '../../../domain/index.js';
import { retriable } from '../failures.js';
import { currentRun } from '../order-requests.js';
import { verdictOnResolvedProduct } from '../resolved-product.js';
import { clientFor, type ApiActivities, type ApiActivityDeps } from './dependencies.js';

/** The product ops name to settle this order's uncertain buy as created, checked at the provider. */
export function createCheckResolvedProductActivity(
  deps: Pick<ApiActivityDeps, 'clients' | 'orderRequests'>,
): ApiActivities['checkResolvedProduct'] {
  return async ({ environment, technicalServiceUid }) => {
    // The order and the name its buy gave the product come from this run (its context and start input), not the input.
    const run = currentRun();
    return retriable(async () => {
      const orderId = orderIdOfWorkflow(run.workflowId);
      const productName = productNameOf(await deps.orderRequests.requestOf(run), orderId);
      const read = await clientFor(deps.clients, environment).readProduct(technicalServiceUid);
      return verdictOnResolvedProduct(read, technicalServiceUid, { orderId, productName });
    });
  };
}
