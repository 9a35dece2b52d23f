import { ApiError, type ApiClient } from '../../../../infra/ordering-api/index.js';
import type { BuyEnvelope } from '../../../../schemas/index.js';
import { summaryOf } from '../../failures.js';
import type { BuyOutcome, ProductRecord } from '../../../../workflows/order/activity-types.js';

/**
 * Sends the buy, once: the product it created, or what its answer or failure proves. Only a request that provably
 * did not take effect is worth retrying; anything ambiguous is uncertain (BUY_UNCERTAIN, for ops).
 */
export async function send(client: ApiClient, envelope: BuyEnvelope): Promise<{ product: ProductRecord } | BuyOutcome> {
  try {
    const response = await client.buy(envelope);
    const item = response.data[0];
    if (!item) {
      return {
        outcome: 'uncertain',
        error: { type: 'ApiInvalidResponse', message: 'the API accepted the buy but returned no product' },
      };
    }
    return {
      product: {
        technicalServiceUid: item.technicalServiceUid,
        provisioningStatus: item.provisioningStatus ?? 'UNKNOWN',
        ...(item.serviceName ? { serviceName: item.serviceName } : {}),
        ...(typeof item.contractTermMonths === 'number' ? { contractTermMonths: item.contractTermMonths } : {}),
      },
    };
  } catch (error) {
    return failedBuy(error);
  }
}

/** What a buy that failed proves: not created (retryable only when the API says so), or uncertain. */
function failedBuy(error: unknown): BuyOutcome {
  if (!(error instanceof ApiError) || error.outcomeUnknown) return { outcome: 'uncertain', error: summaryOf(error) };
  if (!error.retrySafe) return { outcome: 'not-created', retryable: false, error: summaryOf(error) };
  const retryAfterMs = error.toJSON().retryAfterMs;
  return {
    outcome: 'not-created',
    retryable: true,
    error: summaryOf(error),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}
