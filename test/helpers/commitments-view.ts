/**
 * What the commitments view's tests (over HTTP, in the console, on the command line) read: production's policy with
 * two teams and budgets in Sydney's months, January 2026's orders (./commitments.ts), and terms that end soon after
 * January (its `asOf` is 2026-01-31T13:00Z, the first midnight of February in Sydney).
 */
import type { ApiEngine } from './api.js';
import { JANUARY_ORDERS, seedCommitted, type CommittedSeed } from './commitments.js';
import { joinTeams, networkTeam, secOpsTeam, teamedPolicies } from './teams.js';

export const TEAMED_POLICIES = teamedPolicies({
  version: 'test-teams-1',
  environment: 'production',
  teams: [
    networkTeam({ monthlyNew: { AUD: 3236.41, USD: 100 }, runRateCap: { AUD: 1618.23 } }),
    secOpsTeam({ monthlyNew: { USD: 500 } }),
  ],
  budgetTimeZone: 'Australia/Sydney',
  overBudget: { tier: 'finance-senior' },
});

/**
 * Terms ending after January: R2 in under a day, R3 on 10 February at 10:00 in Sydney (bought in its winter, it ends
 * in its summer: 23:00 UTC), R1 in 43 days, R4 after 121 days (outside the 90 days by default). The four are in
 * January's run-rate, which they add to: network AUD 1618.22 + 100 + 20 = 1738.22, over its cap of 1618.23.
 */
export const RENEWING_ORDERS: CommittedSeed[] = [
  {
    ticketId: 'R1',
    team: 'network',
    monthlyRate: '100',
    path: 'bought',
    approvedAt: '2025-03-15T00:00:00Z',
    boughtAt: '2025-03-15T00:00:00Z',
  },
  {
    ticketId: 'R2',
    team: 'sec-ops',
    monthlyRate: '250.5',
    currency: 'USD',
    path: 'live',
    approvedAt: '2025-02-01T00:00:00Z',
    boughtAt: '2025-02-01T00:00:00Z',
  },
  {
    ticketId: 'R3',
    team: 'network',
    monthlyRate: '20',
    term: 6,
    path: 'bought',
    approvedAt: '2025-08-10T00:00:00Z',
    boughtAt: '2025-08-10T00:00:00Z',
  },
  {
    ticketId: 'R4',
    team: 'sec-ops',
    monthlyRate: '75',
    currency: 'USD',
    path: 'bought',
    approvedAt: '2025-06-01T00:00:00Z',
    boughtAt: '2025-06-01T00:00:00Z',
  },
];

/** alice is in team network; January's orders and the renewing ones are recorded. */
export async function seedCommitmentsView(api: ApiEngine): Promise<void> {
  await joinTeams(api.repository, { alice: 'network' });
  for (const order of [...JANUARY_ORDERS, ...RENEWING_ORDERS]) await seedCommitted(api.repository, order);
}
