/** progress.ts: the order's state object and the status view made from it (pure, no workflow). */
import test from 'ava';
import type { QuoteRecord } from '../../../workflows/order/activity-types.js';
import {
  advance,
  currentQuote,
  newProgress,
  statusView,
  type ApprovalRound,
  type OrderProgress,
} from '../../../workflows/order/progress.js';
import type { OrderWorkflowInput } from '../../../workflows/order/types.js';
import { APPROVERS, governing, HOUR, orderRequest } from './fixtures/order-input.js';

const T0 = Date.UTC(2030, 0, 1, 9, 0, 0);
const WORKFLOW_ID = 'order-P-1';
const input: OrderWorkflowInput = { request: orderRequest('P-1') };

const quote = (monthlyRate: number, quotedAt = T0): QuoteRecord => ({ monthlyRate, currency: 'USD', quotedAt });

function roundOn(q: QuoteRecord, approvals = 2): ApprovalRound {
  return {
    tier: { index: 1, name: 'finance', roles: ['finance-approver', 'finance-director'], approvals },
    quote: q,
    quoteNumber: 1,
    approvers: APPROVERS,
    votes: [],
    startedAt: T0,
    deadline: T0 + 72 * HOUR,
    remindersSent: 0,
  };
}

/** An order moved along the path RECEIVED → LOOKING_UP → VALIDATING → AWAITING_APPROVAL. */
function awaiting(): OrderProgress {
  const progress = newProgress();
  advance(progress, 'LOOKING_UP', 'engine', 'looking up', T0);
  advance(progress, 'VALIDATING', 'engine', 'validating', T0 + 1_000);
  progress.quotes.push(quote(4000));
  progress.round = roundOn(quote(4000));
  advance(progress, 'AWAITING_APPROVAL', 'policy', 'needs finance', T0 + 2_000);
  return progress;
}

test('a new order is RECEIVED, at sequence 0, with nothing recorded yet', (t) => {
  t.deepEqual(newProgress(), {
    state: 'RECEIVED',
    seq: 0,
    timeline: [],
    quotes: [],
    buyAttempts: 0,
    buyRemindersSent: 0,
    acceptedNonces: [],
  });
  t.is(currentQuote(newProgress()), undefined);
});

test('advance moves the state, takes the next sequence number and adds one timeline line, which it returns', (t) => {
  const progress = newProgress();
  progress.seq = 4; // entries written before the first move (received, policy, notes) took 1…4
  const entry = advance(progress, 'LOOKING_UP', 'engine', 'looking up the location', T0);
  t.deepEqual(entry, {
    seq: 5,
    at: new Date(T0).toISOString(),
    state: 'LOOKING_UP',
    actor: 'engine',
    reason: 'looking up the location',
  });
  t.is(progress.state, 'LOOKING_UP');
  t.is(progress.seq, 5);
  t.deepEqual(progress.timeline, [entry]);

  const second = advance(progress, 'VALIDATING', 'engine', 'validating', T0 + 1_500);
  t.is(second.seq, 6);
  t.is(second.at, new Date(T0 + 1_500).toISOString());
  t.deepEqual(
    progress.timeline.map((line) => line.seq),
    [5, 6],
    'the timeline is in sequence order',
  );
});

test('advance refuses an illegal transition and changes nothing', (t) => {
  const progress = awaiting();
  const before = structuredClone(progress);
  const error = t.throws(() => advance(progress, 'BUYING', 'engine', 'buying without approval', T0 + 3_000));
  t.is(error?.message, 'illegal order transition AWAITING_APPROVAL -> BUYING');
  t.deepEqual(progress, before, 'state, sequence and timeline are as they were');

  const ended = newProgress();
  advance(ended, 'CANCELLED', 'alice', 'not needed', T0);
  const endedBefore = structuredClone(ended);
  t.throws(() => advance(ended, 'LOOKING_UP', 'engine', 'again', T0 + 1), {
    message: 'illegal order transition CANCELLED -> LOOKING_UP',
  });
  t.throws(
    () => advance(ended, 'CANCELLED', 'engine', 'twice', T0 + 1),
    { message: /CANCELLED -> CANCELLED/ },
    'a final state is not entered twice',
  );
  t.deepEqual(ended, endedBefore);
});

test('the current quote is the latest one', (t) => {
  const progress = newProgress();
  progress.quotes.push(quote(1000), quote(1100));
  t.is(currentQuote(progress)?.monthlyRate, 1100);
});

test('statusView of a new order shows identity, state and timeline, and nothing not yet known', (t) => {
  const progress = newProgress();
  const view = statusView(progress, { ...input, submittedBy: 'ticket-bot' }, WORKFLOW_ID);
  t.deepEqual(view, {
    workflowId: WORKFLOW_ID,
    ticketId: 'P-1',
    environment: 'staging',
    requestedBy: 'alice',
    submittedBy: 'ticket-bot',
    state: 'RECEIVED',
    buyAttempts: 0,
    timeline: [],
  });
  t.false('submittedBy' in statusView(progress, input, WORKFLOW_ID), 'no submitter when the input names none');
});

test('statusView shows the approval tally: votes, how many are still needed, deadline and reminders', (t) => {
  const progress = awaiting();
  const round = progress.round!;
  let view = statusView(progress, input, WORKFLOW_ID);
  t.deepEqual(view.approval, {
    tier: round.tier,
    votes: [],
    stillNeeded: 2,
    deadline: new Date(T0 + 72 * HOUR).toISOString(),
    remindersSent: 0,
    eligibleApprovers: 2,
    directoryReadAt: new Date(round.startedAt).toISOString(),
  });

  round.votes.push({ approverId: 'fiona', decision: 'approve', monthlyRate: 4000, currency: 'USD' });
  round.remindersSent = 1;
  view = statusView(progress, input, WORKFLOW_ID);
  t.is(view.approval?.stillNeeded, 1);
  t.is(view.approval?.remindersSent, 1);
  t.deepEqual(
    view.approval?.votes.map((vote) => vote.approverId),
    ['fiona'],
  );

  // A vote that does not count (the requester's own) is shown but does not lower what is needed.
  round.votes.push({ approverId: 'alice', decision: 'approve', monthlyRate: 4000, currency: 'USD' });
  t.is(statusView(progress, input, WORKFLOW_ID).approval?.stillNeeded, 1);

  round.votes.push({ approverId: 'dave', decision: 'approve', monthlyRate: 4000, currency: 'USD' });
  t.is(statusView(progress, input, WORKFLOW_ID).approval?.stillNeeded, 0, 'approved: nothing more needed');

  const rejected = awaiting();
  rejected.round!.votes.push({
    approverId: 'dave',
    decision: 'reject',
    monthlyRate: 4000,
    currency: 'USD',
    comment: 'too dear',
  });
  t.is(statusView(rejected, input, WORKFLOW_ID).approval?.stillNeeded, 0, 'rejected: nothing more needed');
});

test('statusView says when fewer approvers could vote than the tier needs, and only while the order awaits approval', (t) => {
  const progress = awaiting();
  const round = progress.round!;
  // dave is deactivated: alice, the requester, and fiona hold the tier's roles; the tier needs two.
  round.approvers = round.approvers.map((person) => (person.id === 'dave' ? { ...person, active: false } : person));
  round.directoryReadAt = T0 + HOUR;
  round.nextDirectoryReadAt = T0 + HOUR + 15 * 60_000;
  const approval = statusView(progress, input, WORKFLOW_ID).approval!;
  t.is(approval.eligibleApprovers, 1);
  t.is(approval.directoryReadAt, new Date(T0 + HOUR).toISOString());
  t.deepEqual(approval.shortOfApprovers, {
    eligible: 1,
    needed: 2,
    message:
      'no one can approve this order: the "finance" tier needs 2 approvals and only 1 active approver other than the requester (alice) holds finance-approver or finance-director; give one more person one of these roles in the approver directory, or cancel the order',
    nextDirectoryReadAt: new Date(T0 + HOUR + 15 * 60_000).toISOString(),
  });
  progress.state = 'CANCELLED';
  t.is(statusView(progress, input, WORKFLOW_ID).approval?.shortOfApprovers, undefined, 'not once the round is over');
});

test('statusView copies what it shows: changing the view leaves the progress alone', (t) => {
  const progress = awaiting();
  progress.round!.votes.push({ approverId: 'fiona', decision: 'approve', monthlyRate: 4000, currency: 'USD' });
  const view = statusView(progress, input, WORKFLOW_ID);
  view.timeline.pop();
  view.approval!.votes.pop();
  t.is(progress.timeline.length, 3);
  t.is(progress.round!.votes.length, 1);
});

test('statusView shows the quote history only when there was more than one quote', (t) => {
  const progress = newProgress();
  t.false('quote' in statusView(progress, input, WORKFLOW_ID), 'no quote yet');
  progress.quotes.push(quote(1618.2));
  let view = statusView(progress, input, WORKFLOW_ID);
  t.is(view.quote?.monthlyRate, 1618.2);
  t.false('quoteHistory' in view, 'one quote: no history');

  progress.quotes.push(quote(1780.02, T0 + 13 * HOUR));
  view = statusView(progress, input, WORKFLOW_ID);
  t.is(view.quote?.monthlyRate, 1780.02, 'the latest quote is the current one');
  t.deepEqual(
    view.quoteHistory?.map((q) => q.monthlyRate),
    [1618.2, 1780.02],
    'oldest first',
  );
  view.quoteHistory!.pop();
  t.is(progress.quotes.length, 2, 'the history is a copy');
});

test('statusView shows the governing policy (version and hash, not the rules), the targets, product and the last error', (t) => {
  const progress = newProgress();
  progress.governing = governing(true);
  progress.targets = {
    location: { id: 4, name: 'Sydney SY1', metro: 'Sydney', country: 'AU' },
    image: { id: 42, vendor: 'Fortinet', product: 'FortiGate-VM', version: '7.0.14' },
    kind: 'K9',
    warnings: ['two locations matched'],
  };
  progress.buyAttempts = 2;
  progress.product = { technicalServiceUid: '00000000-0000-4000-8000-000000000001', provisioningStatus: 'CONFIGURED' };
  progress.lastError = {
    type: 'RateLimited',
    message: 'the API said 429',
    traceId: 'tr-1',
    at: new Date(T0).toISOString(),
  };
  const view = statusView(progress, input, WORKFLOW_ID);
  t.deepEqual(view.policy, { version: 'module-test-1', hash: 'f'.repeat(64) });
  t.deepEqual(view.location, progress.targets.location);
  t.deepEqual(view.image, progress.targets.image);
  t.is(view.kind, 'K9');
  t.false('warnings' in view);
  t.is(view.buyAttempts, 2);
  t.deepEqual(view.product, progress.product);
  t.deepEqual(view.lastError, progress.lastError);
  t.false('approval' in view, 'no round: no approval block');
});
