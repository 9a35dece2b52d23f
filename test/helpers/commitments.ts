/**
 * Orders recorded as the workflow records them, each approved and bought (or not) at a chosen moment: what the
 * commitments read sums. Recorded directly, with no workflow: the figures depend on the records only.
 */
import type { OrderState } from '../../domain/lifecycle/index.js';
import type { Repository } from '../../infra/db/index.js';

/** The path of each kind of order, as the workflow moves it. */
const PATHS = {
  bought: ['LOOKING_UP', 'VALIDATING', 'APPROVED', 'BUYING', 'BOUGHT'],
  live: ['LOOKING_UP', 'VALIDATING', 'APPROVED', 'BUYING', 'BOUGHT', 'PROVISIONING', 'LIVE'],
  approved: ['LOOKING_UP', 'VALIDATING', 'AWAITING_APPROVAL', 'APPROVED'],
  cancelled: ['LOOKING_UP', 'VALIDATING', 'APPROVED', 'CANCELLED'],
  // Approved, then its stale quote was validated again and rose: it waits for a new approval.
  requoted: ['LOOKING_UP', 'VALIDATING', 'APPROVED', 'VALIDATING', 'AWAITING_APPROVAL'],
} satisfies Record<string, OrderState[]>;

const BUYING: ReadonlySet<OrderState> = new Set(['BUYING', 'BOUGHT', 'PROVISIONING', 'LIVE']);

export interface CommittedSeed {
  ticketId: string;
  team: string | null;
  monthlyRate: string;
  currency?: string;
  term?: number;
  environment?: 'staging' | 'production';
  path: keyof typeof PATHS;
  /** When it was approved (its latest approval), and when bought where its path buys. */
  approvedAt: string;
  boughtAt?: string;
}

/** The workflow id the seeded order is recorded under. */
export const seededWorkflowId = (ticketId: string) => `mve-order-${ticketId}`;

/** Records the order, its quote, its moves along its path and, where its path approves it, its commitment. */
export async function seedCommitted(repository: Repository, order: CommittedSeed): Promise<void> {
  const workflowId = seededWorkflowId(order.ticketId);
  await repository.recordOrderReceived({
    workflowId,
    ticketId: order.ticketId,
    environment: order.environment ?? 'production',
    requestedBy: 'alice',
    request: { ticketId: order.ticketId, term: order.term ?? 12 },
    team: order.team,
    at: '2025-11-01T00:00:00.000Z',
  });
  await repository.recordQuote({
    workflowId,
    quoteNumber: 1,
    monthlyRate: order.monthlyRate,
    currency: order.currency ?? 'AUD',
    quotedAt: order.approvedAt,
  });
  let from: OrderState = 'RECEIVED';
  let approved = false;
  for (const [index, to] of (PATHS[order.path] as OrderState[]).entries()) {
    // What an order does after its approval and short of a buy (a new quote, a new round) comes a second later.
    const afterApproval = new Date(Date.parse(order.approvedAt) + 1000).toISOString();
    const at = BUYING.has(to) ? order.boughtAt! : approved ? afterApproval : order.approvedAt;
    approved ||= to === 'APPROVED';
    await repository.recordTransition({ workflowId, sequence: index + 1, from, to, actor: 'engine', at });
    from = to;
  }
  if (!(PATHS[order.path] as OrderState[]).includes('APPROVED')) return;
  const commitment = {
    workflowId,
    environment: order.environment ?? 'production',
    team: order.team,
    currency: order.currency ?? 'AUD',
    monthlyRate: Number(order.monthlyRate),
    tier: null,
    check: null,
    at: order.approvedAt,
  };
  await repository.commitBudget(commitment, () => ({ commit: true, overBudget: false, fit: null }));
}

/**
 * January 2026 in Sydney (13:00 UTC on 31 December to 13:00 UTC on 31 January), for team network in AUD: run-rate
 * 1618.22 (A and E), approved 3236.42 (C and E), approved and not bought 3336.41 (C and D); D is February's; B's term
 * ended on 10 January; F and H no longer stand; G is staging's; N is charged to no team.
 */
export const JANUARY_ORDERS: CommittedSeed[] = [
  // Running all January: bought in December for 12 months.
  {
    ticketId: 'A',
    team: 'network',
    monthlyRate: '1618.2',
    path: 'live',
    approvedAt: '2025-12-20T00:00:00Z',
    boughtAt: '2025-12-20T01:00:00Z',
  },
  // One month, bought on 10 December: its term ended on 10 January, before the month's end.
  {
    ticketId: 'B',
    team: 'network',
    monthlyRate: '809.1',
    term: 1,
    path: 'bought',
    approvedAt: '2025-12-10T00:00:00Z',
    boughtAt: '2025-12-10T00:00:00Z',
  },
  // Approved at 23:59:59.999 on 31 January in Sydney: January's.
  { ticketId: 'C', team: 'network', monthlyRate: '3236.4', path: 'approved', approvedAt: '2026-01-31T12:59:59.999Z' },
  // Approved at midnight starting 1 February in Sydney (still 31 January in UTC): February's.
  { ticketId: 'D', team: 'network', monthlyRate: '100.01', path: 'approved', approvedAt: '2026-01-31T13:00:00Z' },
  // Approved at midnight starting 1 January in Sydney (still 31 December in UTC), bought on 5 January: both.
  {
    ticketId: 'E',
    team: 'network',
    monthlyRate: '0.02',
    path: 'bought',
    approvedAt: '2025-12-31T13:00:00Z',
    boughtAt: '2026-01-05T00:00:00Z',
  },
  // Approved in January, then cancelled; another approved and sent back for a new approval: neither stands.
  {
    ticketId: 'F',
    team: 'sec-ops',
    monthlyRate: '50.05',
    currency: 'USD',
    path: 'cancelled',
    approvedAt: '2026-01-10T00:00:00Z',
  },
  { ticketId: 'H', team: 'network', monthlyRate: '7', path: 'requoted', approvedAt: '2026-01-10T00:00:00Z' },
  // Staging's, and one charged to no team.
  {
    ticketId: 'G',
    team: 'network',
    monthlyRate: '10',
    environment: 'staging',
    path: 'bought',
    approvedAt: '2026-01-10T00:00:00Z',
    boughtAt: '2026-01-10T00:00:00Z',
  },
  {
    ticketId: 'N',
    team: null,
    monthlyRate: '5.5',
    path: 'bought',
    approvedAt: '2026-01-10T00:00:00Z',
    boughtAt: '2026-01-10T00:00:00Z',
  },
];

/** A decimal string as whole millionths, exactly (amounts carry at most six decimals). */
export function millionths(amount: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d{1,6}))?$/.exec(amount);
  if (!match) throw new Error(`not a decimal amount: ${amount}`);
  const whole = BigInt(match[2]) * 1_000_000n + BigInt((match[3] ?? '').padEnd(6, '0'));
  return match[1] ? -whole : whole;
}
