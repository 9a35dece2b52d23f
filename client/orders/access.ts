import { approverRoles, hasRole, sameIdentity, type Principal } from './principal.js';
import { AccessRefused } from './refusals.js';

// Who may do what: the order service (and the console, to offer only what it may) asks here, with the authenticated
// principal, never with a name from the body.

/** Ops, admins and approvers see every order; requesters their own; ticket systems what they submitted. */
export function seesAllOrders(principal: Principal): boolean {
  return hasRole(principal, 'ops', 'admin') || approverRoles(principal).length > 0;
}

/** Why a caller with no role is refused every order, even one it once requested or submitted. */
export const READ_NEEDS_ROLE =
  'reading orders needs a role: requester (your own orders), ticket-system (what it submitted), an approver role, ops or admin; your credential carries none';

/** Reading is for a role, never for merely being authenticated: a caller with no role reads no order at all. */
export function mayReadOrders(principal: Principal): boolean {
  return seesAllOrders(principal) || hasRole(principal, 'requester', 'ticket-system');
}

/**
 * Ops, admins and approvers see every order; a requester the orders requested in their name; a ticket system what
 * it submitted, by its qualified id (so an OIDC person, whose qualified id names the issuer, is never taken for the
 * ticket system whose token owner has their username). A caller with no role sees nothing.
 */
export function maySee(principal: Principal, order: OwnedOrder): boolean {
  if (seesAllOrders(principal)) return true;
  if (hasRole(principal, 'requester') && sameIdentity(principal.id, order.requestedBy)) return true;
  return hasRole(principal, 'ticket-system') && submittedByCaller(principal, order);
}

/** Who an order belongs to: the person it was requested for, and the qualified id of whoever submitted it. */
export interface OwnedOrder {
  requestedBy: string;
  submittedBy: string | null | undefined;
}

function submittedByCaller(principal: Principal, order: OwnedOrder): boolean {
  return !!order.submittedBy && sameIdentity(principal.qualifiedId, order.submittedBy);
}

/**
 * Commitments (what teams spend): ops, admins and approvers read every team's; a requester their own team's (the
 * directory's), and no other; anyone else none.
 */
export function mayReadAllCommitments(principal: Principal): boolean {
  return seesAllOrders(principal);
}

/** Why a caller may read no commitments at all. */
export const COMMITMENTS_NEED_ROLE =
  "reading commitments needs a role: an approver role or ops (every team's), or requester (your own team's)";

export function maySubmit(principal: Principal): boolean {
  return hasRole(principal, 'requester', 'ticket-system');
}

/** Why a caller without an approver role cannot vote. */
export const VOTE_NEEDS_ROLE = 'voting needs an approver role (e.g. finance-approver)';

export function mayVote(principal: Principal): boolean {
  return approverRoles(principal).length > 0;
}

/** Ops and admins cancel any order; a requester their own; a ticket system what it submitted. */
export function mayCancel(principal: Principal, order: OwnedOrder): boolean {
  if (hasRole(principal, 'ops', 'admin')) return true;
  if (hasRole(principal, 'requester') && sameIdentity(principal.id, order.requestedBy)) return true;
  return hasRole(principal, 'ticket-system') && submittedByCaller(principal, order);
}

/** Settling an uncertain buy decides whether money is spent again: ops and admins only. */
export function mayResolveBuys(principal: Principal): boolean {
  return hasRole(principal, 'ops', 'admin');
}

/** Decoded workflow payloads (the request, quotes, votes; secrets redacted) are for ops and admins. */
export function mayReadPayloads(principal: Principal): boolean {
  return hasRole(principal, 'ops', 'admin');
}

/** Refuses (AccessRefused, `message` saying what it needs) unless `allowed`. */
export function allow(allowed: boolean, message: string): void {
  if (!allowed) throw new AccessRefused(message);
}
