import type { AwaitingApprovalRecord, ListOrdersInput, OrderRecord } from '../../../infra/db/index.js';
import { allow, mayReadOrders, mayVote, READ_NEEDS_ROLE, seesAllOrders } from '../access.js';
import { approverRoles, hasRole, sameIdentity, type Principal } from '../principal.js';
import { AccessRefused, InvalidInput } from '../refusals.js';
import { decisionFigures, type DecisionFigures } from './decision-figures.js';
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

/** An order awaiting the caller's decision, with its team's figures beside its price (null: no team). */
export type AwaitingDecision = AwaitingApprovalRecord & { budget: DecisionFigures | null };

/**
 * The orders awaiting the caller's decision (their approver roles, not their own order, not yet voted), oldest first,
 * each with its decision figures: read once per team and currency of the page.
 */
export async function awaitingApproval(
  parts: OrderServiceParts,
  principal: Principal,
  limit: number,
): Promise<AwaitingDecision[]> {
  allow(mayVote(principal), 'the approvals inbox needs an approver role (e.g. finance-approver)');
  const approverId = await parts.intake.canonicalRequester(principal.id);
  const waiting = await parts.repository.listAwaitingApproval({ approverId, roles: approverRoles(principal), limit });
  const figures = await decisionFigures(
    parts,
    waiting.map(({ order }) => ({
      workflowId: order.workflowId,
      environment: order.environment,
      team: order.team,
      quote: order.quote ? { monthlyRate: Number(order.quote.monthlyRate), currency: order.quote.currency } : null,
      quoteNumber: order.quote?.number ?? 1,
    })),
  );
  return waiting.map((item, index) => ({ ...item, budget: figures[index] ?? null }));
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
