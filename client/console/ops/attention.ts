/** What the ops view lists under "needs attention", each list read from the API as the signed-in person. */
import type { ApiOrder } from '../../orders/index.js';
import type { ConsoleApi } from '../api.js';
import type { ListedOrder } from '../listed-orders.js';
import type { Attention } from './view.js';

export interface AttentionLimits {
  /** Approvals whose deadline is nearer than this are listed. */
  expiryWarningMs: number;
  /** Orders in PROVISIONING unchanged for longer than this are listed. */
  slowProvisioningMs: number;
}

export async function needsAttention(api: ConsoleApi, now: () => number, limits: AttentionLimits): Promise<Attention> {
  const listed = (status: string, limit: number) =>
    api.expect<{ orders: ListedOrder[] }>('GET', `/api/v1/orders?status=${status}&limit=${limit}`);
  const [uncertain, failed, awaiting, provisioningFailed, provisioningStalled, provisioning] = await Promise.all([
    listed('BUY_UNCERTAIN', 100),
    listed('FAILED', 10),
    listed('AWAITING_APPROVAL', 100),
    listed('PROVISIONING_FAILED', 10),
    listed('PROVISIONING_STALLED', 10),
    listed('PROVISIONING', 100),
  ]);
  const at = now();
  const rounds = await roundsOf(api, awaiting.orders);
  const failedWithTrace = await withTrace(api, failed.orders);
  const oldestChangeFirst = (a: ListedOrder, b: ListedOrder) => a.updatedAt.localeCompare(b.updatedAt);
  return {
    uncertain: [...uncertain.orders].sort(oldestChangeFirst),
    failed: failedWithTrace,
    shortOfApprovers: shortOfApprovers(rounds),
    expiring: expiringApprovals(rounds, at, limits.expiryWarningMs),
    provisioningEnded: [...provisioningFailed.orders, ...provisioningStalled.orders]
      .sort((a, b) => oldestChangeFirst(b, a))
      .slice(0, 10),
    provisioningSlow: provisioning.orders
      .filter((order) => at - Date.parse(order.updatedAt) > limits.slowProvisioningMs)
      .sort(oldestChangeFirst),
  };
}

function orderOf(api: ConsoleApi, order: ListedOrder) {
  return api.call<ApiOrder>('GET', `/api/v1/orders/${encodeURIComponent(order.orderId)}`);
}

type Approval = NonNullable<ApiOrder['approval']>;

/** Each order awaiting approval with its round, read from the order itself (the list has no round). */
async function roundsOf(
  api: ConsoleApi,
  awaiting: ListedOrder[],
): Promise<Array<{ order: ListedOrder; approval: Approval }>> {
  const details = await Promise.all(
    awaiting.map(async (order) => {
      const answer = await orderOf(api, order);
      const approval = answer.status === 200 ? answer.body.approval : undefined;
      return approval ? { order, approval } : undefined;
    }),
  );
  return details.filter((item): item is NonNullable<typeof item> => !!item);
}

/** The orders awaiting approval whose deadline is near, the nearest first. */
function expiringApprovals(
  rounds: Array<{ order: ListedOrder; approval: Approval }>,
  at: number,
  expiryWarningMs: number,
): Attention['expiring'] {
  return rounds
    .filter(({ approval }) => approval.deadline && Date.parse(approval.deadline) - at < expiryWarningMs)
    .map(({ order, approval }) => ({
      order,
      deadline: approval.deadline,
      stillNeeded: approval.stillNeeded,
      tier: approval.tier.name,
    }))
    .sort((a, b) => Date.parse(a.deadline) - Date.parse(b.deadline));
}

/** The orders awaiting approval that fewer approvers could vote on than their tier needs, the nearest deadline first. */
function shortOfApprovers(rounds: Array<{ order: ListedOrder; approval: Approval }>): Attention['shortOfApprovers'] {
  return rounds
    .flatMap(({ order, approval }) =>
      approval.shortOfApprovers
        ? [{ order, tier: approval.tier, deadline: approval.deadline, ...approval.shortOfApprovers }]
        : [],
    )
    .sort((a, b) => Date.parse(a.deadline) - Date.parse(b.deadline));
}

/** The list has the last error's message; the order itself (live, or its records) may add its type and trace id. */
async function withTrace(api: ConsoleApi, failed: ListedOrder[]): Promise<ListedOrder[]> {
  return Promise.all(
    failed.map(async (order) => {
      const answer = await orderOf(api, order);
      const lastError = answer.status === 200 ? answer.body.lastError : undefined;
      return lastError?.message ? { ...order, lastError: { ...order.lastError, ...lastError } } : order;
    }),
  );
}
