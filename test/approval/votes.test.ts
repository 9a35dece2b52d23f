import test from 'ava';
import fc from 'fast-check';
import {
  approvalRequirement,
  tallyVotes,
  validateApprovalVote,
  type ApprovalState,
  type ApprovalTier,
  type ApprovalVote,
  type Approver,
  type VoteRefusalCode,
} from '../../domain/approval/index.js';
import { testPolicy } from './fixtures.js';

const quote = { monthlyRate: 7200.5, currency: 'USD' };
const requirement = approvalRequirement(testPolicy(), quote);
if (requirement.kind !== 'needs-approval') throw new Error('fixture quote must need approval');
const directorTier: ApprovalTier = requirement.tier;

const approvers: Approver[] = [
  { id: 'ana', roles: ['finance-approver'], active: true },
  { id: 'ben', roles: ['finance-director', 'auditor'], active: true },
  { id: 'cy', roles: ['finance-approver'], active: true },
  { id: 'dee', roles: ['finance-director'], active: false },
  { id: 'eve', roles: ['engineering-manager'], active: true },
  { id: 'req', roles: ['finance-approver'], active: true },
];

const state = (overrides: Partial<ApprovalState> = {}): ApprovalState => ({
  status: 'AWAITING_APPROVAL',
  requesterId: 'req',
  quote,
  tier: directorTier,
  approvers,
  votes: [],
  ...overrides,
});

const approve = (approverId: string, overrides: Partial<ApprovalVote> = {}): ApprovalVote => ({
  approverId,
  decision: 'approve',
  ...quote,
  ...overrides,
});
const reject = (approverId: string, comment?: string): ApprovalVote =>
  comment === undefined
    ? approve(approverId, { decision: 'reject' })
    : approve(approverId, { decision: 'reject', comment });

test('an authorised approver voting on the current quote is accepted', (t) => {
  t.deepEqual(validateApprovalVote(state(), approve('ana')), { ok: true, vote: approve('ana') });
  t.true(validateApprovalVote(state(), reject('ben', 'too dear')).ok);
});

const refusals: Array<[string, ApprovalState, unknown, VoteRefusalCode, RegExp]> = [
  ['malformed vote', state(), { approverId: 'ana', decision: 'maybe', ...quote }, 'INVALID_VOTE', /decision/],
  ['missing approver id', state(), { decision: 'approve', ...quote }, 'INVALID_VOTE', /approverId/],
  [
    'order already approved',
    state({ status: 'APPROVED' }),
    approve('ana'),
    'NOT_AWAITING_APPROVAL',
    /the order is APPROVED, not awaiting approval/,
  ],
  [
    'order not yet quoted',
    state({ status: 'VALIDATING', tier: null }),
    approve('ana'),
    'NOT_AWAITING_APPROVAL',
    /VALIDATING/,
  ],
  ['unknown approver', state(), approve('mallory'), 'APPROVER_UNKNOWN', /"mallory" is not in the approver directory/],
  ['inactive approver', state(), approve('dee'), 'APPROVER_INACTIVE', /"dee" is not active/],
  ['requester approving', state(), approve('req'), 'REQUESTER_CANNOT_VOTE', /requested this order/],
  ['requester rejecting', state(), reject('req'), 'REQUESTER_CANNOT_VOTE', /cancel/],
  [
    'approver without the role',
    state(),
    approve('eve'),
    'APPROVER_LACKS_ROLE',
    /"director" tier needs \(finance-approver, finance-director\)/,
  ],
  [
    'stale rate',
    state(),
    approve('ana', { monthlyRate: 7000 }),
    'QUOTE_NOT_CURRENT',
    /names 7000 USD but the current quote is 7200.5 USD/,
  ],
  ['other currency', state(), approve('ana', { currency: 'AUD' }), 'QUOTE_NOT_CURRENT', /7200.5 AUD/],
  ['second vote', state({ votes: [approve('ana')] }), reject('ana'), 'ALREADY_VOTED', /"ana" has already voted/],
];

for (const [name, current, vote, code, reason] of refusals) {
  test(`refused: ${name} (${code})`, (t) => {
    const before = structuredClone(current);
    const result = validateApprovalVote(current, vote);
    t.false(result.ok);
    if (result.ok) return;
    t.is(result.code, code);
    t.regex(result.reason, reason);
    t.deepEqual(current, before, 'validation changes nothing');
  });
}

test('the requester is refused by identity: their name in any case or width, or a look-alike of it, is them', (t) => {
  // fiona approving orders whose requester is fiona as a ticket system might have spelled her: in capitals,
  // fullwidth, with a Cyrillic і (U+0456), a Greek ο (U+03BF), a zero-width space or a bidi override.
  const fiona = [...approvers, { id: 'fiona', roles: ['finance-approver'], active: true }];
  const spellings = [
    'fiona',
    'Fiona',
    'FIONA',
    ' fiona ',
    '\uff46\uff49\uff4f\uff4e\uff41',
    'f\u0456ona',
    'fi\u03bfna',
    'fiona\u200b',
    'fi\u202eona',
  ];
  for (const requesterId of spellings) {
    const check = validateApprovalVote(state({ requesterId, approvers: fiona }), approve('fiona'));
    t.like(check, { ok: false, code: 'REQUESTER_CANNOT_VOTE' }, JSON.stringify(requesterId));
    t.like(tallyVotes({ ...round([approve('fiona')]), requesterId, approvers: fiona }), { approvedBy: [] });
  }
  const lookAlike = validateApprovalVote(state({ requesterId: 'f\u0456ona', approvers: fiona }), reject('fiona'));
  t.false(lookAlike.ok);
  if (!lookAlike.ok) t.regex(lookAlike.reason, /its requester "f\\u0456ona" looks like the same person/);
  // Another person is not the requester, whatever the confusables data says of plain ASCII (m looks like rn).
  const rnike = [...fiona, { id: 'rnike', roles: ['finance-approver'], active: true }];
  t.true(validateApprovalVote(state({ requesterId: 'mike', approvers: rnike }), approve('rnike')).ok);
  t.true(validateApprovalVote(state({ requesterId: 'fiona@example.com', approvers: fiona }), approve('fiona')).ok);
});

test('an approver is found by identity, never by look-alike: a Cyrillic "fіona" is not fiona of the directory', (t) => {
  const fiona = [...approvers, { id: 'fiona', roles: ['finance-approver'], active: true }];
  t.deepEqual(validateApprovalVote(state({ approvers: fiona }), approve('\uff26iona')), {
    ok: true,
    vote: approve('fiona'),
  });
  t.like(validateApprovalVote(state({ approvers: fiona }), approve('f\u0456ona')), {
    ok: false,
    code: 'APPROVER_UNKNOWN',
  });
});

test('an approver with the role from a lower tier still qualifies when the tier lists it', (t) => {
  t.true(validateApprovalVote(state(), approve('cy')).ok);
});

const round = (votes: ApprovalVote[]) => ({ requesterId: 'req', quote, tier: directorTier, approvers, votes });

test('the tally waits until enough distinct approvers approve', (t) => {
  t.deepEqual(tallyVotes(round([])), { outcome: 'waiting', approvedBy: [], stillNeeded: 2 });
  t.deepEqual(tallyVotes(round([approve('ana')])), { outcome: 'waiting', approvedBy: ['ana'], stillNeeded: 1 });
  t.deepEqual(tallyVotes(round([approve('ana'), approve('ben')])), { outcome: 'approved', approvedBy: ['ana', 'ben'] });
});

test('the tally ignores votes that would be refused: repeats, requester, lacking role, inactive, old quote', (t) => {
  const votes = [
    approve('ana'),
    approve('ana'),
    approve('req'),
    approve('eve'),
    approve('dee'),
    approve('ben', { monthlyRate: 1 }),
    reject('eve'),
  ];
  t.deepEqual(tallyVotes(round(votes)), { outcome: 'waiting', approvedBy: ['ana'], stillNeeded: 1 });
});

test('one reject from an authorised approver rejects, even after approvals', (t) => {
  t.deepEqual(tallyVotes(round([approve('ana'), reject('ben', 'not this quarter')])), {
    outcome: 'rejected',
    rejectedBy: 'ben',
    comment: 'not this quarter',
  });
});

test('the first decisive vote wins: a reject after approval is reached does not undo it', (t) => {
  t.like(tallyVotes(round([approve('ana'), approve('cy'), reject('ben')])), { outcome: 'approved' });
});

const anyVote = fc.record({
  approverId: fc.constantFrom(...approvers.map((a) => a.id), 'mallory'),
  decision: fc.constantFrom('approve' as const, 'reject' as const),
  monthlyRate: fc.constantFrom(quote.monthlyRate, 7000),
  currency: fc.constantFrom('USD', 'AUD'),
});

const authorised = (vote: ApprovalVote) => {
  const approver = approvers.find((a) => a.id === vote.approverId);
  return (
    approver !== undefined &&
    approver.active &&
    approver.id !== 'req' &&
    approver.roles.some((role) => directorTier.roles.includes(role)) &&
    vote.monthlyRate === quote.monthlyRate &&
    vote.currency === quote.currency
  );
};

test('property: whatever the votes, approval means at least tier.approvals distinct authorised approvers', (t) => {
  fc.assert(
    fc.property(fc.array(anyVote, { maxLength: 12 }), fc.integer({ min: 1, max: 3 }), (votes, approvals) => {
      const tier = { ...directorTier, approvals };
      const result = tallyVotes({ ...round(votes), tier });
      if (result.outcome !== 'approved') return true;
      const distinct = new Set(result.approvedBy);
      return (
        distinct.size === result.approvedBy.length &&
        distinct.size >= approvals &&
        result.approvedBy.every((id) =>
          votes.some((vote) => vote.approverId === id && vote.decision === 'approve' && authorised(vote)),
        )
      );
    }),
  );
  t.pass();
});

test('property: votes fed through the validator, as the workflow does, tally the same as the raw sequence', (t) => {
  fc.assert(
    fc.property(fc.array(anyVote, { maxLength: 12 }), (votes) => {
      const accepted: ApprovalVote[] = [];
      for (const vote of votes) {
        const check = validateApprovalVote(state({ votes: accepted }), vote);
        if (check.ok) accepted.push(check.vote);
        if (tallyVotes(round(accepted)).outcome !== 'waiting') break;
      }
      const fromValidated = tallyVotes(round(accepted));
      const fromRaw = tallyVotes(round(votes));
      return JSON.stringify(fromValidated) === JSON.stringify(fromRaw) && accepted.every(authorised);
    }),
  );
  t.pass();
});
