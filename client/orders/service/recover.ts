import { allow, mayResolveBuys } from '../access.js';
import type { Principal } from '../principal.js';
import { recoverOrder, type RecoveryResult } from '../recovery.js';
import type { OrderServiceParts } from './parts.js';
import { readOrder } from './read.js';

/**
 * Ops' recovery of an order whose run was ended (a reset, a terminate) or wedged (../recovery.ts), as the caller,
 * saying why; logged. RecoveryRefused when there is nothing to recover.
 */
export async function recover(
  parts: OrderServiceParts,
  principal: Principal,
  name: string,
  reason: string,
): Promise<RecoveryResult & { orderId: string }> {
  allow(mayResolveBuys(principal), 'recovering an order needs the ops or admin role');
  const order = await readOrder(parts, principal, name);
  const recovered = await recoverOrder(parts, order.workflowId, { actor: principal.id, reason });
  parts.log(
    `${order.orderId}: recovered by ${principal.id}: run ${recovered.recoveredRunId} reset to event ${recovered.resetToEventId}, now run ${recovered.runId}`,
  );
  return { orderId: order.orderId, ...recovered };
}
