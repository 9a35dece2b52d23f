/** approval-round.ts: one approval round, decided by votes, or past its deadline after the policy's reminders. */
import anyTest, { type TestFn } from 'ava';
import type { WorkflowHandle } from '@temporalio/client';
import type { QuoteRecord } from '../../../workflows/order/activity-types.js';
import type { ApprovalTier, ApprovalVote } from '../../../domain/approval/index.js';
import { newProgress, type OrderProgress } from '../../../workflows/order/progress.js';
import { waitFor } from '../../helpers/wait.js';
import { approvalRoundWorkflow, progressQuery, testVote } from './fixtures/module-workflows.js';
import { entriesOf, fakeActivities, toldOf } from './fixtures/fake-activities.js';
import { useModuleEnv } from './fixtures/harness.js';
import { APPROVERS, governing, HOUR, orderRequest } from './fixtures/order-input.js';

const test = anyTest as TestFn<unknown>;
const env = useModuleEnv(test);

const FINANCE: ApprovalTier = {
  index: 1,
  name: 'finance',
  roles: ['finance-approver', 'finance-director'],
  approvals: 2,
};
const QUOTE = { monthlyRate: 4000, currency: 'USD' };

const vote = (approverId: string, decision: 'approve' | 'reject' = 'approve', comment?: string): ApprovalVote => ({
  approverId,
  decision,
  ...QUOTE,
  ...(comment ? { comment } : {}),
});

/** An order just validated at 4,000 USD, as the gate hands it to a new round. */
async function validated(): Promise<{ progress: OrderProgress; quote: QuoteRecord }> {
  const now = await env.temporal.env.currentTimeMs();
  const quote: QuoteRecord = { ...QUOTE, quotedAt: now };
  const progress = newProgress();
  progress.state = 'VALIDATING';
  progress.seq = 4;
  progress.quotes.push(quote);
  return { progress, quote };
}

async function roundOf(handle: WorkflowHandle) {
  return waitFor(async () => (await handle.query(progressQuery).catch(() => undefined))?.round, 20_000, 'the round');
}

test.serial(
  "the tier's votes approve the round: APPROVED, by whom, and the approved quote is the round's",
  async (t) => {
    const fake = fakeActivities();
    const { outcome, round } = await env.withWorker(fake, async (start) => {
      const { progress, quote } = await validated();
      const handle = await start(approvalRoundWorkflow, {
        request: orderRequest('AR-1'),
        governing: governing(),
        progress,
        start: { tier: FINANCE, quote, reason: '4000 USD needs the "finance" tier' },
      });
      const round = await roundOf(handle);
      t.is(await handle.executeUpdate(testVote, { args: [vote('alice')] }), 1);
      t.is(await handle.executeUpdate(testVote, { args: [vote('fiona')] }), 2);
      const waiting = await handle.query(progressQuery);
      t.is(waiting.state, 'AWAITING_APPROVAL', "the requester's own vote does not count: one more approver needed");
      await handle.executeUpdate(testVote, { args: [vote('dave')] });
      return { outcome: await handle.result(), round };
    });
    t.is(outcome.result, undefined, 'the order goes on');
    const { progress } = outcome;
    t.is(progress.state, 'APPROVED');
    t.deepEqual(progress.approved, round.quote);
    t.deepEqual(
      progress.timeline.map((line) => [line.state, line.actor, line.reason]),
      [
        ['AWAITING_APPROVAL', 'policy', '4000 USD needs the "finance" tier'],
        ['APPROVED', 'fiona, dave', 'approved by fiona, dave at 4000 USD'],
      ],
    );
    t.is(round.deadline - round.startedAt, 72 * HOUR, "the policy's deadline, from the start of the round");
    t.deepEqual(round.approvers, APPROVERS, 'the directory as loadApprovers gave it');
    t.is(fake.callsOf('loadApprovers').length, 1);

    const written = fake.written();
    const [opened] = entriesOf(written, 'transition');
    t.deepEqual(opened?.details, {
      tier: 'finance',
      roles: FINANCE.roles,
      approvals: 2,
      deadline: new Date(round.deadline).toISOString(),
      eligibleApprovers: 2,
    });
    t.deepEqual(
      entriesOf(written, 'vote').map((entry) => [entry.approverId, entry.quoteNumber]),
      [
        ['alice', 1],
        ['fiona', 1],
        ['dave', 1],
      ],
    );
    t.deepEqual(
      entriesOf(written, 'transition').map((entry) => [entry.from, entry.to]),
      [
        ['VALIDATING', 'AWAITING_APPROVAL'],
        ['AWAITING_APPROVAL', 'APPROVED'],
      ],
    );
  },
);

test.serial('a rejection ends the round REJECTED by the approver, with their comment as the reason', async (t) => {
  const fake = fakeActivities();
  const outcome = await env.withWorker(fake, async (start) => {
    const { progress, quote } = await validated();
    const handle = await start(approvalRoundWorkflow, {
      request: orderRequest('AR-2'),
      governing: governing(),
      progress,
      start: { tier: FINANCE, quote, reason: 'needs finance' },
    });
    await roundOf(handle);
    await handle.executeUpdate(testVote, { args: [vote('fiona')] });
    await handle.executeUpdate(testVote, { args: [vote('dave', 'reject', 'too dear for a lab')] });
    return handle.result();
  });
  t.deepEqual(outcome.result, { state: 'REJECTED', actor: 'dave', reason: 'too dear for a lab' });
  t.is(outcome.progress.state, 'AWAITING_APPROVAL', 'the round says how it ended; the caller moves the order');
  t.is(outcome.progress.approved, undefined);
});

test.serial('a rejection without a comment names who rejected', async (t) => {
  const fake = fakeActivities();
  const outcome = await env.withWorker(fake, async (start) => {
    const { progress, quote } = await validated();
    const handle = await start(approvalRoundWorkflow, {
      request: orderRequest('AR-3'),
      governing: governing(),
      progress,
      start: { tier: FINANCE, quote, reason: 'needs finance' },
    });
    await roundOf(handle);
    await handle.executeUpdate(testVote, { args: [vote('fiona', 'reject')] });
    return handle.result();
  });
  t.deepEqual(outcome.result, { state: 'REJECTED', actor: 'fiona', reason: 'rejected by fiona' });
});

test.serial(
  "nobody decides: reminders at the policy's times (to the journal, the ticket system and the approvers), then EXPIRED at the deadline",
  async (t) => {
    const fake = fakeActivities();
    const { outcome, round } = await env.withWorker(fake, async (start) => {
      const { progress, quote } = await validated();
      const handle = await start(approvalRoundWorkflow, {
        request: orderRequest('AR-4', { callbackUrl: 'https://tickets.example.com/hooks/mve' }),
        governing: governing(true),
        progress,
        start: { tier: FINANCE, quote, reason: 'needs finance' },
      });
      const round = await roundOf(handle);
      return { outcome: await handle.result(), round };
    });
    t.deepEqual(outcome.result, {
      state: 'EXPIRED',
      actor: 'policy',
      reason: `no decision by the deadline ${new Date(round.deadline).toISOString()}`,
    });
    t.true(outcome.endedAt >= round.deadline, 'not before the deadline');
    t.true(outcome.endedAt - round.deadline < 60_000, 'at the deadline');
    t.is(outcome.progress.round?.remindersSent, 2);

    const reminders = entriesOf(fake.written(), 'note').filter((note) => /^reminder \d/.test(note.message));
    t.deepEqual(
      reminders.map((note) => note.message),
      ['reminder 1: approval still needed (2 more)', 'reminder 2: approval still needed (2 more)'],
    );
    const offsets = reminders.map((note) => note.at - round.startedAt);
    t.true(offsets[0] >= 48 * HOUR && offsets[0] < 48 * HOUR + 60_000, '24 h before the deadline');
    t.true(offsets[1] >= 71 * HOUR && offsets[1] < 71 * HOUR + 60_000, '1 h before the deadline');

    const toApprovers = fake.callsOf('notifyApprovers').map((call) => call.input);
    t.deepEqual(
      toApprovers.map((message) => [message.event, message.reminder, message.stillNeeded]),
      [
        ['awaiting-approval', undefined, 2],
        ['approval-reminder', 1, 2],
        ['approval-reminder', 2, 2],
      ],
    );
    t.true(toApprovers.every((message) => message.deadline === new Date(round.deadline).toISOString()));
    const toTickets = toldOf(fake).map((told) => told.event);
    t.is(toTickets.filter((event) => event === 'approval-reminder').length, 2);
    t.is(fake.callsOf('loadApprovers').length, 3, 'the directory is read again at each reminder');
  },
);

test.serial('a resumed round (no start) keeps its deadline and votes: the next vote completes it', async (t) => {
  const fake = fakeActivities();
  const now = await env.temporal.env.currentTimeMs();
  const startedAt = now - 50 * HOUR;
  const progress = newProgress();
  progress.state = 'AWAITING_APPROVAL';
  progress.seq = 9;
  progress.quotes.push({ ...QUOTE, quotedAt: startedAt });
  progress.round = {
    tier: FINANCE,
    quote: progress.quotes[0],
    quoteNumber: 1,
    approvers: APPROVERS,
    votes: [vote('fiona')],
    startedAt,
    deadline: startedAt + 72 * HOUR,
    remindersSent: 1,
  };
  const outcome = await env.withWorker(fake, async (start) => {
    const handle = await start(approvalRoundWorkflow, {
      request: orderRequest('AR-5'),
      governing: governing(),
      progress: structuredClone(progress),
    });
    const resumed = await roundOf(handle);
    t.is(resumed.deadline, progress.round!.deadline, 'the deadline it had');
    t.is(resumed.startedAt, startedAt);
    t.deepEqual(resumed.votes, [vote('fiona')], 'the votes it had');
    t.is(fake.callsOf('loadApprovers').length, 0, 'a resumed round is not started again');
    await handle.executeUpdate(testVote, { args: [vote('dave')] });
    return handle.result();
  });
  t.is(outcome.result, undefined);
  t.is(outcome.progress.state, 'APPROVED');
  t.deepEqual(
    outcome.progress.timeline.map((line) => [line.seq, line.state, line.actor]),
    [[11, 'APPROVED', 'fiona, dave']],
    'numbered on from the carried sequence (the vote took 10)',
  );
});

test.serial(
  'a resumed round nobody decides expires at its own deadline, after only the reminders still ahead',
  async (t) => {
    const fake = fakeActivities();
    const now = await env.temporal.env.currentTimeMs();
    const startedAt = now - 50 * HOUR; // the 48 h reminder has passed (and was sent), the 71 h one is ahead
    const deadline = startedAt + 72 * HOUR;
    const progress = newProgress();
    progress.state = 'AWAITING_APPROVAL';
    progress.quotes.push({ ...QUOTE, quotedAt: startedAt });
    progress.round = {
      tier: FINANCE,
      quote: progress.quotes[0],
      quoteNumber: 1,
      approvers: APPROVERS,
      votes: [],
      startedAt,
      deadline,
      remindersSent: 1,
    };
    const outcome = await env.withWorker(fake, async (start) => {
      const handle = await start(approvalRoundWorkflow, {
        request: orderRequest('AR-6'),
        governing: governing(),
        progress,
      });
      return handle.result();
    });
    t.deepEqual(outcome.result, {
      state: 'EXPIRED',
      actor: 'policy',
      reason: `no decision by the deadline ${new Date(deadline).toISOString()}`,
    });
    t.true(
      outcome.endedAt >= deadline && outcome.endedAt - deadline < 60_000,
      'at the carried deadline, not 72 h after the resume',
    );
    t.is(outcome.progress.round?.remindersSent, 2, 'one more reminder, the one still ahead');
    const notes = entriesOf(fake.written(), 'note').map((note) => note.message);
    t.deepEqual(
      notes.filter((message) => message.startsWith('reminder')),
      ['reminder 2: approval still needed (2 more)'],
    );
  },
);
