import { retriable } from '../failures.js';
import { clientFor, type ApiActivities, type ApiActivityDeps } from './dependencies.js';

/** The bought product as the API reports it now, for the provisioning follow-up. */
export function createReadProductActivity(deps: Pick<ApiActivityDeps, 'clients'>): ApiActivities['readProduct'] {
  return async ({ environment, technicalServiceUid }) =>
    retriable(async () => {
      const read = await clientFor(deps.clients, environment).readProduct(technicalServiceUid);
      return read.found
        ? { found: true, provisioningStatus: read.product.provisioningStatus }
        : { found: false, status: read.status };
    });
}
