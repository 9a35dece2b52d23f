import { approverRoles, hasRole, sameIdentity, type Principal } from './auth/principal.js';
import { forbidden } from './errors.js';

// Who may do what: every route asks here, with the authenticated principal, never with a name from the body.

/** Ops, admins and approvers see every order; requesters their own; ticket systems what they submitted. */
export function seesAllOrders(principal: Principal): boolean {
  return hasRole(principal, 'ops', 'admin') || approverRoles(principal).length > 0;
}

export function maySee(
  principal: Principal,
  order: { requestedBy: string; submittedBy: string | null | undefined },
): boolean {
  return (
    seesAllOrders(principal) ||
    sameIdentity(principal.id, order.requestedBy) ||
    (order.submittedBy !== null && order.submittedBy !== undefined && sameIdentity(principal.id, order.submittedBy))
  );
}

export function maySubmit(principal: Principal): boolean {
  return hasRole(principal, 'requester', 'ticket-system');
}

/** Why a caller without an approver role cannot vote. */
export const VOTE_NEEDS_ROLE = 'voting needs an approver role (e.g. finance-approver)';

export function mayVote(principal: Principal): boolean {
  return approverRoles(principal).length > 0;
}

/** Ops and admins cancel any order; a requester their own; a ticket system what it submitted. */
export function mayCancel(
  principal: Principal,
  order: { requestedBy: string; submittedBy: string | null | undefined },
): boolean {
  if (hasRole(principal, 'ops', 'admin')) return true;
  if (hasRole(principal, 'requester') && sameIdentity(principal.id, order.requestedBy)) return true;
  return hasRole(principal, 'ticket-system') && !!order.submittedBy && sameIdentity(principal.id, order.submittedBy);
}

/** Settling an uncertain buy decides whether money is spent again: ops and admins only. */
export function mayResolveBuys(principal: Principal): boolean {
  return hasRole(principal, 'ops', 'admin');
}

/** Decoded workflow payloads (the request, quotes, votes; secrets redacted) are for ops and admins. */
export function mayReadPayloads(principal: Principal): boolean {
  return hasRole(principal, 'ops', 'admin');
}

export function allow(allowed: boolean, message: string): void {
  if (!allowed) throw forbidden(message);
}
