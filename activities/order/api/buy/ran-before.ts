import { summaryOf } from '../../failures.js';
import type { RunReference } from '../../order-requests.js';
import type { BuyInput, BuyOutcome } from '../../../../workflows/order/activity-types.js';
import type { ApiActivityDeps } from '../dependencies.js';
import { recordedCreation } from './created.js';

/**
 * Uncertain when this run's attempt was claimed for sending already: a buy run in its workflow task (a local
 * activity) is run again when that task is retried after its worker was lost, and its first run may have sent the
 * request. It is never sent again; ops settle it (BUY_UNCERTAIN). When that first run recorded what it created, the
 * records say so: the product is taken from there, with the entries it wrote in this run's reserved numbers.
 */
export async function ranBefore(
  repository: Pick<ApiActivityDeps['repository'], 'getOrder'>,
  run: RunReference,
  { attempt, recordCreated }: Pick<BuyInput, 'attempt' | 'recordCreated'>,
): Promise<BuyOutcome | undefined> {
  let order;
  try {
    order = await repository.getOrder(run.workflowId);
  } catch (error) {
    // Which it was cannot be told now: not sending, and not saying it was never sent either.
    return {
      outcome: 'uncertain',
      error: {
        type: 'BuyRanBefore',
        message: `buy attempt ${attempt} was refused and could not be read back (${summaryOf(error).message}): not sending it`,
      },
    };
  }
  const earlier = order?.buyAttempts.find((recorded) => recorded.attempt === attempt);
  if (!order || !earlier || earlier.sentAt === null || earlier.runId !== run.runId) return undefined;
  const recorded = recordedCreation(order, earlier, recordCreated);
  if (recorded) return recorded;
  const outcome =
    earlier.outcome === null
      ? 'may have been sent'
      : `ended as ${earlier.outcome}${earlier.technicalServiceUid ? ` (${earlier.technicalServiceUid})` : ''}`;
  return {
    outcome: 'uncertain',
    error: {
      type: 'BuyRanBefore',
      message: `buy attempt ${attempt} was claimed for sending by an earlier run of this buy, and ${outcome}: not sending it again`,
    },
  };
}
