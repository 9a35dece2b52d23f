import test from 'ava';
import { approvalRequirement, requoteDecision, type ApprovalRequirement } from '../../domain/approval/index.js';
import { testPolicy } from './fixtures.js';

const policy = testPolicy();
const tierName = (requirement: ApprovalRequirement) =>
  requirement.kind === 'auto-approved' ? 'auto' : `${requirement.tier.name}/${requirement.cause}`;

test('below the auto-approve line is approved without a human; exactly at the line is not', (t) => {
  t.is(tierName(approvalRequirement(policy, { monthlyRate: 999.99, currency: 'USD' })), 'auto');
  t.is(tierName(approvalRequirement(policy, { monthlyRate: 0, currency: 'USD' })), 'auto');
  t.is(
    tierName(approvalRequirement(policy, { monthlyRate: 1000, currency: 'USD' })),
    'manager/above-auto-approve-line',
  );
});

test('each tier covers amounts up to its limit inclusive; above the last limit the top tier applies', (t) => {
  const at = approvalRequirement(policy, { monthlyRate: 5000, currency: 'USD' });
  t.is(tierName(at), 'manager/above-auto-approve-line');
  const above = approvalRequirement(policy, { monthlyRate: 5000.01, currency: 'USD' });
  t.deepEqual(above, {
    kind: 'needs-approval',
    cause: 'above-auto-approve-line',
    tier: { index: 1, name: 'director', roles: ['finance-approver', 'finance-director'], approvals: 2 },
  });
});

test('lines and limits are per currency', (t) => {
  t.is(tierName(approvalRequirement(policy, { monthlyRate: 1200, currency: 'AUD' })), 'auto');
  t.is(
    tierName(approvalRequirement(policy, { monthlyRate: 7000, currency: 'AUD' })),
    'manager/above-auto-approve-line',
  );
  t.is(
    tierName(approvalRequirement(policy, { monthlyRate: 7000, currency: 'USD' })),
    'director/above-auto-approve-line',
  );
});

test('an unknown currency, even a tiny amount, takes the top tier', (t) => {
  t.is(tierName(approvalRequirement(policy, { monthlyRate: 1, currency: 'EUR' })), 'director/unknown-currency');
  t.is(tierName(approvalRequirement(policy, { monthlyRate: 1, currency: 'usd' })), 'director/unknown-currency');
});

test('an amount that is not a finite non-negative number takes the top tier', (t) => {
  for (const monthlyRate of [Number.NaN, -5, Number.POSITIVE_INFINITY]) {
    t.is(tierName(approvalRequirement(policy, { monthlyRate, currency: 'USD' })), 'director/invalid-amount');
  }
});

test('with alwaysRequireHuman an amount under the line needs the lowest tier; above it, tiers as usual', (t) => {
  const strict = testPolicy({ alwaysRequireHuman: true });
  t.is(tierName(approvalRequirement(strict, { monthlyRate: 10, currency: 'USD' })), 'manager/always-require-human');
  t.is(
    tierName(approvalRequirement(strict, { monthlyRate: 9000, currency: 'USD' })),
    'director/above-auto-approve-line',
  );
});

const usd = (monthlyRate: number) => ({ monthlyRate, currency: 'USD' });

test('a requote at the same price or lower buys', (t) => {
  t.deepEqual(requoteDecision(policy, usd(2000), usd(2000)), { decision: 'buy' });
  t.deepEqual(requoteDecision(policy, usd(2000), usd(1500)), { decision: 'buy' });
});

test('a rise exactly at the allowance buys; a cent more asks again (the smaller of amount and percent applies)', (t) => {
  // 5% of 2000 is 100, the USD amount allowance is 30: the rise allowed is 30.
  t.deepEqual(requoteDecision(policy, usd(2000), usd(2030)), { decision: 'buy' });
  const over = requoteDecision(policy, usd(2000), usd(2030.01));
  t.is(over.decision, 'ask-again');
  t.is(over.decision === 'ask-again' && over.code, 'PRICE_ROSE');
  // 5% of 400 AUD is 20 and AUD has no amount allowance: the percent alone applies.
  const aud = (monthlyRate: number) => ({ monthlyRate, currency: 'AUD' });
  t.deepEqual(requoteDecision(policy, aud(1600), aud(1680)), { decision: 'buy' });
  t.is(requoteDecision(policy, aud(1600), aud(1680.01)).decision, 'ask-again');
});

test('float noise does not move the boundary (999.99 + 30 is exactly the allowance)', (t) => {
  const amountOnly = testPolicy({ maxRiseWithoutApproval: { amount: { USD: 30 } } });
  t.deepEqual(requoteDecision(amountOnly, usd(1049.99), usd(1079.99)), { decision: 'buy' });
});

test('with no allowance configured any rise that needs a human asks again', (t) => {
  const none = testPolicy({ maxRiseWithoutApproval: {} });
  t.is(requoteDecision(none, usd(2000), usd(2000.01)).decision, 'ask-again');
});

test('a changed currency always asks again', (t) => {
  const decision = requoteDecision(policy, usd(2000), { monthlyRate: 1, currency: 'AUD' });
  t.like(decision, { decision: 'ask-again', code: 'CURRENCY_CHANGED' });
});

test('a rise into a higher tier asks again even within the allowance', (t) => {
  t.like(requoteDecision(policy, usd(4990), usd(5010)), { decision: 'ask-again', code: 'TIER_RAISED' });
  // Auto-approved before, now over the line: nobody has approved, so a human must.
  t.like(requoteDecision(policy, usd(990), usd(1010)), { decision: 'ask-again', code: 'TIER_RAISED' });
});

test('a rise that still needs no human buys whatever the allowance', (t) => {
  t.deepEqual(requoteDecision(policy, usd(100), usd(900)), { decision: 'buy' });
});
