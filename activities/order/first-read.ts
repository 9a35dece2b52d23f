import { ApplicationFailure } from '@temporalio/activity';
import { isRecord } from '../../domain/index.js';
import { toApplicationFailure } from './failures.js';
import type { createPolicyReader } from './policy-activity.js';
import type { FirstReadStage, OrderActivities } from '../../workflows/order/activity-types.js';

type Reads = Pick<OrderActivities, 'lookUpOrderTargets' | 'validateOrder'>;

/**
 * The reads an order makes before its gate the first time, as one local activity: the policy in force, the lookup
 * and the validation. Each local activity costs the order a round trip through the workflow thread (an activation,
 * its promises and a marker event), and these three always run back to back. A failure says which read failed, so
 * the order ends in the state it was in (looking up or validating). The policy read never waits for the database:
 * rules it could not store travel with the order's journal.
 */
export function createFirstReadActivity(readPolicy: ReturnType<typeof createPolicyReader>, reads: Reads): Pick<OrderActivities, 'readBeforeGate'> {
  return {
    async readBeforeGate(input) {
      const governing = await stage('policy', () => readPolicy(input.environment, 'carry'));
      const targets = await stage('lookup', () => reads.lookUpOrderTargets(input));
      const quote = await stage('validation', () => reads.validateOrder({ ...input, targets }));
      return { governing, targets, quote };
    },
  };
}

/** Runs one read; its failure, in the shape Temporal retries by, gains `stage` in its first details. */
async function stage<T>(name: FirstReadStage, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (caught) {
    const error = toApplicationFailure(caught);
    const [first, ...rest] = error.details ?? [];
    throw ApplicationFailure.create({
      message: error.message,
      ...(error.type ? { type: error.type } : {}),
      nonRetryable: error.nonRetryable ?? false,
      details: [{ ...(isRecord(first) ? first : {}), stage: name }, ...rest],
      ...(error.nextRetryDelay !== undefined ? { nextRetryDelay: error.nextRetryDelay } : {}),
    });
  }
}
