/**
 * Who is calling, as established by authentication (an OIDC bearer JWT or an API token), never by a field
 * the caller fills in. Every action decides what the principal may do from `id` and `roles` alone.
 */
export interface Principal {
  /**
   * The name the caller acts under as a person: the requester it orders as, the approver it votes as (matched to the
   * approver directory), the actor of its cancels and resolutions. The OIDC username claim, or the API token's
   * owner. Compared case-insensitively.
   */
  id: string;
  /**
   * Who the caller is, unique across both kinds of credential: what an order's `submittedBy` records, and what a
   * ticket system's ownership of its submissions is checked against. An API token's owner as issued (letters,
   * digits and `. _ @ -`: never a colon), or for an OIDC person the username qualified by the issuer,
   * `<issuer>#<username>` (always a colon: the issuer is a URL). So no username a person holds can make them the
   * owner of what a machine submitted, nor a token's owner of what a person did. Compared case-insensitively.
   */
  qualifiedId: string;
  /** Roles granted by the identity provider (the configured roles claim) or stored with the API token. */
  roles: readonly string[];
  /** How the caller was authenticated: `oidc` (a person's JWT) or `token` (an API token, with its public id). */
  via: { kind: 'oidc'; issuer: string } | { kind: 'token'; tokenId: string };
}

/** Roles with a fixed meaning to the engine; any other role (e.g. `finance-approver`) is an approver role of the directory. */
export const BUILT_IN_ROLES = ['requester', 'ticket-system', 'ops', 'admin'] as const;
export type BuiltInRole = (typeof BUILT_IN_ROLES)[number];

export { sameIdentity } from '../../domain/approval/index.js';

export function hasRole(principal: Principal, ...roles: readonly string[]): boolean {
  return principal.roles.some((role) => roles.includes(role));
}

/** Roles outside the built-in four: what the approval policy's tiers and the approver directory name. */
export function approverRoles(principal: Principal): string[] {
  return principal.roles.filter((role) => !(BUILT_IN_ROLES as readonly string[]).includes(role));
}
