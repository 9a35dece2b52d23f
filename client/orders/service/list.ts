import type { AwaitingApprovalRecord, ListOrdersInput, OrderRecord } from '../../../infra/db/index.js';
import { allow, mayReadOrders, mayVote, READ_NEEDS_ROLE, seesAllOrders } from '../access.js';
import { approverRoles, hasRole, sameIdentity, type Principal } from '../principal.js';
import { AccessRefused, InvalidInput } from '../refusals.js';
import type { OrderServiceParts } from './parts.js';

/** What a listing is narrowed to: a state, an environment, the person the orders were requested for. */
export interface OrderFilters extends Pick<ListOrdersInput, 'status' | 'environment'> {
  requester?: string | undefined;
}

/** Which rows, newest first: at most `limit`, after the order where the previous page ended. */
export interface OrderPage {
  limit: number;
  /**
   * Where the previous page ended, read only once the caller may list: a caller who may not list is refused for
   * that, whatever else they sent.
   */
  after?: () => NonNullable<ListOrdersInput['after']>;
}

/** The orders the caller may see, from the records, newest first. */
export async function listOrders(
  parts: OrderServiceParts,
  principal: Principal,
  { status, environment, requester }: OrderFilters,
  page: OrderPage,
): Promise<OrderRecord[]> {
  const scope = scopeOf(principal, requester);
  return parts.repository.listOrders({
    ...(status ? { status } : {}),
    ...(environment ? { environment } : {}),
    ...scope,
    ...(page.after ? { after: page.after() } : {}),
    limit: page.limit,
  });
}

/** The orders awaiting the caller's decision (their approver roles, not their own order, not yet voted), oldest first. */
export async function awaitingApproval(
  parts: OrderServiceParts,
  principal: Principal,
  limit: number,
): Promise<AwaitingApprovalRecord[]> {
  allow(mayVote(principal), 'the approvals inbox needs an approver role (e.g. finance-approver)');
  const approverId = await parts.intake.canonicalRequester(principal.id);
  return parts.repository.listAwaitingApproval({ approverId, roles: approverRoles(principal), limit });
}

/** The orders a caller's listing is limited to: a ticket system's by its qualified id, a requester's by their name. */
function scopeOf(principal: Principal, requester: string | undefined): { requestedBy?: string; submittedBy?: string } {
  if (requester !== undefined && requester.trim() === '') {
    const rule = 'must name a requester, not be blank';
    throw new InvalidInput('INVALID_INPUT', `the querystring is invalid: querystring.requester: ${rule}`, [
      { path: 'querystring.requester', message: rule },
    ]);
  }
  allow(mayReadOrders(principal), READ_NEEDS_ROLE);
  if (seesAllOrders(principal)) return requester ? { requestedBy: requester } : {};
  if (hasRole(principal, 'ticket-system'))
    return { submittedBy: principal.qualifiedId, ...(requester ? { requestedBy: requester } : {}) };
  if (requester && !sameIdentity(requester, principal.id))
    throw new AccessRefused('a requester sees only their own orders');
  return { requestedBy: principal.id };
}
