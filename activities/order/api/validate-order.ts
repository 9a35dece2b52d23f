import { ApplicationFailure } from '@temporalio/activity';
import { retriable } from '../failures.js';
import { currentRun } from '../order-requests.js';
import { sealQuote } from '../quote-seal.js';
import { clientFor, type ApiActivities, type ApiActivityDeps } from './dependencies.js';
import { orderToSend } from './order-to-send.js';

type ValidateDeps = Pick<ApiActivityDeps, 'clients' | 'kindMap' | 'now' | 'orderRequests' | 'actionKeys'> & {
  repository: Pick<ApiActivityDeps['repository'], 'recordWorkerQuote'>;
};

/** The API's validation of the order, and its price, which the worker seals in the records before answering. */
export function createValidateOrderActivity(deps: ValidateDeps): ApiActivities['validateOrder'] {
  return async ({ environment, request, targets }) => {
    const run = currentRun();
    // A buy may follow: it reads the request from here instead of from the run's history.
    deps.orderRequests.keep(run, request);
    return retriable(async () => {
      const client = clientFor(deps.clients, environment);
      const response = await client.validate(orderToSend(deps.kindMap, run, request, targets).validateBody);
      const result = response.data[0];
      if (!result) {
        throw ApplicationFailure.nonRetryable(
          'the API passed the validation but returned no price',
          'ApiInvalidResponse',
        );
      }
      const quote = { monthlyRate: result.price.monthlyRate, currency: result.price.currency.trim().toUpperCase() };
      // The buy pays only a price a worker was quoted: kept, sealed, before the workflow hears of it.
      const sealed = { workflowId: run.workflowId, ...quote, quotedAt: new Date(deps.now()) };
      await deps.repository.recordWorkerQuote({ ...run, ...sealed, seal: sealQuote(deps.actionKeys, sealed) });
      return {
        monthlyRate: result.price.monthlyRate,
        currency: result.price.currency,
        ...(result.productUid ? { productUid: result.productUid } : {}),
      };
    });
  };
}
