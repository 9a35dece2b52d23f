/**
 * The signed-in person as the API's own access rules take them: the views ask those rules (client/http) where to
 * show a form, and the API asks them again when the form is sent.
 */
import { hasRole, mayReadAllCommitments, type Principal } from '../orders/index.js';
import type { ConsoleUser } from './sessions.js';

export function principalOf(user: ConsoleUser): Principal {
  return {
    id: user.id,
    qualifiedId: user.qualifiedId,
    roles: user.roles,
    via: user.via === 'oidc' ? { kind: 'oidc', issuer: '' } : { kind: 'token', tokenId: '' },
  };
}

/** Ops and admins: they see the ops view and the workflow's history events. */
export function isOps(user: ConsoleUser): boolean {
  return hasRole(principalOf(user), 'ops', 'admin');
}

/** Whoever the API lets read commitments: approvers and ops every team's, a requester their own team's. */
export function mayReadCommitments(user: ConsoleUser): boolean {
  const principal = principalOf(user);
  return mayReadAllCommitments(principal) || hasRole(principal, 'requester');
}
