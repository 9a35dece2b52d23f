/**
 * Who is calling, as established by authentication (an OIDC bearer JWT or an API token), never by a field
 * the caller fills in. Every route decides what the principal may do from `id` and `roles` alone.
 */
export interface Principal {
  /** The caller's identity: the OIDC username claim, or the API token's owner. Compared case-insensitively. */
  id: string;
  /** Roles granted by the identity provider (the configured roles claim) or stored with the API token. */
  roles: readonly string[];
  /** How the caller was authenticated: `oidc` (a person's JWT) or `token` (an API token, with its public id). */
  via: { kind: 'oidc'; issuer: string } | { kind: 'token'; tokenId: string };
}

/** Roles with a fixed meaning to the engine; any other role (e.g. `finance-approver`) is an approver role of the directory. */
export const BUILT_IN_ROLES = ['requester', 'ticket-system', 'ops', 'admin'] as const;
export type BuiltInRole = (typeof BUILT_IN_ROLES)[number];

/** A caller that could not be authenticated: HTTP 401. The message says what was wrong, never the credential. */
export class AuthenticationError extends Error {
  override readonly name = 'AuthenticationError';
}

export { sameIdentity } from '../../../domain/approval/index.js';

export function hasRole(principal: Principal, ...roles: readonly string[]): boolean {
  return principal.roles.some((role) => roles.includes(role));
}

/** Roles outside the built-in four: what the approval policy's tiers and the approver directory name. */
export function approverRoles(principal: Principal): string[] {
  return principal.roles.filter((role) => !(BUILT_IN_ROLES as readonly string[]).includes(role));
}
