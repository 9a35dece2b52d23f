import type { OrderState } from '../../domain/index.js';

/**
 * The order events the dev terminal tells, one line each: those after which the order waits for a person, or has
 * ended without the outcome asked for. Why each, in docs/running.md ("The terminal"). The others are left out: the
 * steps on the way (RECEIVED to BUYING, PROVISIONING) need nobody; BOUGHT and LIVE are what was asked for; REJECTED and
 * CANCELLED are a person's own decision, which that person has just made.
 */
export const ATTENTION_STATES = [
  'AWAITING_APPROVAL',
  'BUY_UNCERTAIN',
  'FAILED',
  'EXPIRED',
  'PROVISIONING_FAILED',
  'PROVISIONING_STALLED',
] as const satisfies readonly OrderState[];

export type AttentionState = (typeof ATTENTION_STATES)[number];

/** Orders that still wait for a person while in this state (told again at the next start). */
export const WAITING_STATES: readonly AttentionState[] = ['AWAITING_APPROVAL', 'BUY_UNCERTAIN'];

/** One event, with what the records say of its order now. */
export interface AttentionEvent {
  orderId: string;
  state: AttentionState;
  /** The event's reason, as the workflow recorded it (never a secret). */
  reason: string;
  /**
   * The event's details: for AWAITING_APPROVAL, the round (`tier`, `roles`, `approvals`, `deadline`) and how many
   * people other than the requester may vote in it (`eligibleApprovers`).
   */
  details: Record<string, unknown>;
  requestedBy: string;
  quote: { monthlyRate: number; currency: string } | undefined;
  productUid: string | undefined;
  /** For an order found waiting at the start: since when (its event's time). */
  since?: string;
}

/** Where a person acts: the console, the simulator standing in for the provider's portal, the seeded users. */
export interface AttentionPlaces {
  consoleUrl: string;
  /** The simulator dev started, if any: its `/_sim/state` lists the products it created. */
  simulatorUrl: string | undefined;
  users: ReadonlyArray<{ id: string; roles: readonly string[] }>;
}

/** `[order] <order id> <STATE>: <reason>. Next: <what a person does, and where>`: one line, no stack trace. */
export function describeAttention(event: AttentionEvent, places: AttentionPlaces): string {
  const { orderId, state } = event;
  const page = `${places.consoleUrl.replace(/\/$/, '')}/orders/${encodeURIComponent(orderId)}`;
  const since = event.since ? ` since ${event.since}` : '';
  const reason = oneLine(event.reason);
  return `[order] ${orderId} ${state}${since}${reason ? `: ${reason}` : ''}. Next: ${nextStep(event, page, places)}`;
}

function nextStep(event: AttentionEvent, page: string, places: AttentionPlaces): string {
  const { orderId } = event;
  const ops = opsUserOf(places);
  const portal = places.simulatorUrl
    ? `the provider's portal (here the simulator: ${places.simulatorUrl}/_sim/state lists the products it created)`
    : "the provider's portal";
  switch (event.state) {
    case 'AWAITING_APPROVAL':
      return awaitingApproval(event, page, places);
    case 'BUY_UNCERTAIN':
      return (
        `ops find out from ${portal} whether the buy created a product, then settle it at ${page} or with ` +
        `\`npx mve-orders resolve-buy ${orderId} --as ${ops} --created <uid>\` (or \`--not-created --note "<how you know>"\`)`
      );
    case 'FAILED':
      return `it goes no further: see why at ${page} (or \`npx mve-orders status ${orderId} --as ${ops}\`), and submit again under a new ticket id once the cause is mended`;
    case 'EXPIRED':
      return `nobody decided in time; submit again under a new ticket id if it is still wanted (${page})`;
    case 'PROVISIONING_FAILED':
    case 'PROVISIONING_STALLED':
      return `ops take up product ${event.productUid ?? '(see the order)'} with the provider, at ${portal}; the order is never bought again (${page})`;
  }
}

function awaitingApproval(event: AttentionEvent, page: string, places: AttentionPlaces): string {
  const roles = stringsOf(event.details['roles']);
  const approvals = typeof event.details['approvals'] === 'number' ? event.details['approvals'] : 1;
  const deadline = typeof event.details['deadline'] === 'string' ? ` by ${event.details['deadline']}` : '';
  const who = roles.length > 0 ? ` from ${roles.join(' or ')}` : '';
  const eligible = event.details['eligibleApprovers'];
  if (typeof eligible === 'number' && eligible < approvals) {
    // The worker found too few people who may vote (approval-round.ts): no seeded user can settle it by approving.
    const role = roles[0] ?? '<role>';
    return (
      `${approvals} approval${approvals === 1 ? '' : 's'}${who}${deadline}, but only ${eligible} person` +
      `${eligible === 1 ? '' : 's'} other than the requester may give one: give someone the role ` +
      `(\`npx mve-orders approvers add <id> --roles ${role} --database-url <databaseUrl of dev.json>\`), ` +
      `or cancel at ${page}`
    );
  }
  const approver = userWith(places, roles, event.requestedBy) ?? '<approver>';
  const command = event.quote
    ? `\`npx mve-orders approve ${event.orderId} --rate ${event.quote.monthlyRate} --currency ${event.quote.currency} --as ${approver}\``
    : `\`npx mve-orders status ${event.orderId} --as ${approver}\` for the quote to approve`;
  return `${approvals} approval${approvals === 1 ? '' : 's'}${who}${deadline}: decide at ${page}, or ${command}`;
}

/** The seeded ops user, who may read and settle any order. */
export function opsUserOf(places: AttentionPlaces): string {
  return userWith(places, ['ops'], undefined) ?? '<ops user>';
}

/** A seeded user holding one of the roles, not the requester (who may not approve their own order). */
function userWith(places: AttentionPlaces, roles: readonly string[], notUser: string | undefined): string | undefined {
  return places.users.find((user) => user.id !== notUser && user.roles.some((role) => roles.includes(role)))?.id;
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** The reason on one line, without a stop of its own before ". Next". */
function oneLine(text: string): string {
  return text
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .trim()
    .replace(/[.;:]+$/, '');
}
