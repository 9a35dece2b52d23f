import { findPerson, quotedName } from '../../../domain/approval/index.js';
import type { Issue } from '../../../domain/index.js';
import { allow, maySubmit } from '../access.js';
import type { ApiOrder } from '../order-view.js';
import { hasRole, sameIdentity, type Principal } from '../principal.js';
import { AccessRefused, InvalidInput, UnknownRequester } from '../refusals.js';
import type { OrderServiceParts } from './parts.js';
import { readOrder } from './read.js';

export interface Submission {
  /** true: this submission started the order; false: the ticket already had it (same request), nothing started. */
  created: boolean;
  orderId: string;
  /** The order as it stands: just RECEIVED when created, else as read now. */
  order: ApiOrder;
  warnings: Issue[];
}

/**
 * Submits an order request as the caller: one ticket is one order, forever (client/orders/intake.ts). The request's
 * `requestedBy` is settled from the caller's identity first (`requesterFor`).
 */
export async function submitOrder(
  parts: OrderServiceParts,
  principal: Principal,
  body: Record<string, unknown>,
): Promise<Submission> {
  allow(maySubmit(principal), 'submitting orders needs the requester or ticket-system role');
  const requestedBy = await requesterFor(parts, principal, body['requestedBy']);
  const result = await parts.intake.submit({ ...body, requestedBy }, principal.qualifiedId);
  const order: ApiOrder = result.created
    ? {
        orderId: result.orderId,
        ticketId: result.ticket.ticketId,
        workflowId: result.ticket.workflowId,
        environment: result.ticket.environment,
        requestedBy,
        submittedBy: principal.qualifiedId,
        state: 'RECEIVED',
        policy: null,
        quote: null,
        source: 'workflow',
      }
    : await readOrder(parts, principal, result.orderId);
  return { created: result.created, orderId: result.orderId, order, warnings: result.warnings };
}

/**
 * Who the order is for. A requester orders for themselves (a body naming someone else is refused): they are the
 * requester by authentication. A ticket system names the requester, who must be a person of the directory: the name
 * resolves to the directory's id (ignoring case and width) or the order is refused, before anything is registered.
 */
async function requesterFor(parts: OrderServiceParts, principal: Principal, named: unknown): Promise<string> {
  if (hasRole(principal, 'ticket-system')) {
    if (typeof named !== 'string' || named.trim() === '') {
      throw new InvalidInput('INVALID_REQUEST', 'requestedBy: a ticket system must name the requester', [
        { path: 'requestedBy', message: 'must name the requester' },
      ]);
    }
    const match = findPerson(await parts.repository.listApprovers({ activeOnly: false }), named);
    if (match.ok) return match.person.id;
    const rule = `${match.problem}; a ticket system names the requester by their id in the directory`;
    throw new UnknownRequester(`requestedBy: ${quotedName(named)} ${rule}`, [{ path: 'requestedBy', message: rule }]);
  }
  if (named !== undefined && (typeof named !== 'string' || !sameIdentity(named, principal.id))) {
    throw new AccessRefused(
      `requestedBy: you submit as ${principal.id}; a requester cannot order in someone else's name`,
      [{ path: 'requestedBy', message: 'must be you (or left out)' }],
    );
  }
  return parts.intake.canonicalRequester(principal.id);
}
