import test from 'ava';
import {
  approverShortfall,
  approversFoundMessage,
  eligibleApprovers,
  parseApprovalPolicy,
  type ApprovalTier,
  type Approver,
} from '../../domain/approval/index.js';
import { TEST_POLICY_INPUT } from './fixtures.js';

const team: ApprovalTier = { index: 0, name: 'team', roles: ['finance-approver', 'engineering-manager'], approvals: 1 };
const finance: ApprovalTier = {
  index: 1,
  name: 'finance',
  roles: ['finance-approver', 'finance-director'],
  approvals: 2,
};

const directory: Approver[] = [
  { id: 'fiona', roles: ['finance-approver'], active: true },
  { id: 'dave', roles: ['finance-director'], active: true },
  { id: 'dee', roles: ['finance-director'], active: false },
  { id: 'pat', roles: [], active: true },
];

test('who could vote: active, holding one of the tier roles, and not the requester by name, case or look-alike', (t) => {
  t.deepEqual(eligibleApprovers({ requesterId: 'pat', tier: finance }, directory), ['fiona', 'dave']);
  t.deepEqual(eligibleApprovers({ requesterId: 'pat', tier: team }, directory), ['fiona']);
  t.deepEqual(eligibleApprovers({ requesterId: 'FIONA', tier: team }, directory), []);
  // fіona with a Cyrillic і (U+0456): the requester looks like fiona, who may not vote on it.
  t.deepEqual(eligibleApprovers({ requesterId: 'f\u0456ona', tier: team }, directory), []);
  t.deepEqual(eligibleApprovers({ requesterId: 'dave', tier: finance }, directory), ['fiona'], 'dee is inactive');
});

test('a shortfall is said only when fewer could vote than the tier needs, naming the roles and the next step', (t) => {
  t.is(approverShortfall({ requesterId: 'pat', tier: finance }, ['fiona', 'dave']), undefined);
  t.deepEqual(approverShortfall({ requesterId: 'fiona', tier: team }, []), {
    eligible: 0,
    needed: 1,
    message:
      'no one can approve this order: the "team" tier needs 1 approval and no active approver but the requester (fiona) holds finance-approver or engineering-manager; give one more person one of these roles in the approver directory, or cancel the order',
  });
  t.regex(
    approverShortfall({ requesterId: 'ana', tier: { ...finance, approvals: 3 } }, ['fiona'])!.message,
    /needs 3 approvals and only 1 active approver other than the requester \(ana\) holds .*; give 2 more people/,
  );
  t.is(
    approversFoundMessage({ tier: team, quote: { monthlyRate: 1618.2, currency: 'AUD' } }, ['erin']),
    'approvers found: erin may now approve 1618.2 AUD (the "team" tier needs 1)',
  );
});

test("the policy's directoryRecheck: a duration of at least 1 s, absent unless given", (t) => {
  t.is(parseApprovalPolicy(TEST_POLICY_INPUT).directoryRecheck, undefined);
  t.false('directoryRecheck' in parseApprovalPolicy(TEST_POLICY_INPUT), 'a policy without it hashes as before');
  t.is(parseApprovalPolicy({ ...TEST_POLICY_INPUT, directoryRecheck: '10m' }).directoryRecheck, 600_000);
  const error = t.throws(() => parseApprovalPolicy({ ...TEST_POLICY_INPUT, directoryRecheck: 500 }));
  t.regex(error.message, /directoryRecheck: must be at least 1s/);
});
