/**
 * approval-round.ts: a round fewer approvers could vote on than its tier needs (the requester holds the only role). It
 * says so on the timeline and to the ticket system, reads who holds the tier's roles again on the policy's
 * `directoryRecheck`, and counts someone given the role meanwhile; left alone, it expires saying why.
 */
import anyTest, { type TestFn } from 'ava';
import type { WorkflowHandle } from '@temporalio/client';
import type { QuoteRecord } from '../../../workflows/order/activity-types.js';
import { parseApprovalPolicy, type ApprovalTier, type Approver } from '../../../domain/approval/index.js';
import { newProgress, statusView, type OrderProgress } from '../../../workflows/order/progress.js';
import { waitFor } from '../../helpers/wait.js';
import { approvalRoundWorkflow, progressQuery, testVote } from './fixtures/module-workflows.js';
import { entriesOf, fakeActivities, toldOf, type Fake } from './fixtures/fake-activities.js';
import { useModuleEnv } from './fixtures/harness.js';
import { APPROVERS, governing, HOUR, orderRequest, POLICY } from './fixtures/order-input.js';

const test = anyTest as TestFn<unknown>;
const env = useModuleEnv(test);

/** Only dave holds finance-director in the module tests' directory. */
const DIRECTOR: ApprovalTier = { index: 0, name: 'director', roles: ['finance-director'], approvals: 1 };
const QUOTE = { monthlyRate: 2000, currency: 'USD' };
const DORA: Approver = { id: 'dora', roles: ['finance-director'], active: true };
const CALLBACK = 'https://tickets.example.com/hooks/mve';

/** An order for dave just validated, as the gate hands it to a new round. */
async function validated(): Promise<{ progress: OrderProgress; quote: QuoteRecord }> {
  const quote: QuoteRecord = { ...QUOTE, quotedAt: await env.temporal.env.currentTimeMs() };
  const progress = newProgress();
  progress.state = 'VALIDATING';
  progress.seq = 4;
  progress.quotes.push(quote);
  return { progress, quote };
}

/** The directory `loadApprovers` answers from (`roles`: its active holders of one), as `directory()` says now. */
function directoryOf(directory: () => Approver[]): Fake {
  return fakeActivities(
    {},
    {
      loadApprovers: ({ roles }) =>
        roles
          ? directory().filter((person) => person.active && person.roles.some((role) => roles.includes(role)))
          : directory(),
    },
  );
}

async function progressWhen(handle: WorkflowHandle, ready: (progress: OrderProgress) => boolean, what: string) {
  return waitFor(
    async () => {
      const progress = await handle.query(progressQuery).catch(() => undefined);
      return progress && ready(progress) ? progress : undefined;
    },
    20_000,
    what,
  );
}

test.serial(
  'a round only the requester could approve says so; someone given the role is read within the recheck and may approve',
  async (t) => {
    let directory: Approver[] = [...APPROVERS];
    const fake = directoryOf(() => directory);
    const outcome = await env.withWorker(fake, async (start) => {
      const { progress, quote } = await validated();
      const handle = await start(approvalRoundWorkflow, {
        request: orderRequest('SHORT-1', { requestedBy: 'dave', callbackUrl: CALLBACK }),
        governing: governing(),
        progress,
        start: { tier: DIRECTOR, quote, reason: '2000 USD needs the "director" tier' },
      });
      const short = await progressWhen(handle, (p) => p.round?.nextDirectoryReadAt !== undefined, 'the shortfall');
      const view = statusView(short, { request: orderRequest('SHORT-1', { requestedBy: 'dave' }) }, 'wf');
      t.is(view.approval?.eligibleApprovers, 0);
      t.like(view.approval?.shortOfApprovers, { eligible: 0, needed: 1 });
      t.regex(
        view.approval?.shortOfApprovers?.message ?? '',
        /no active approver but the requester \(dave\) holds finance-director/,
      );
      t.is(
        short.round!.nextDirectoryReadAt! - short.round!.startedAt,
        15 * 60_000,
        'read again after the default 15 minutes',
      );

      await env.temporal.env.sleep(HOUR - 60_000);
      await waitFor(
        () => Promise.resolve(fake.callsOf('loadApprovers').length >= 4 || undefined),
        20_000,
        'three reads',
      );
      t.is(fake.callsOf('loadApprovers').length, 1 + 3, 'the role holders read at 15, 30 and 45 minutes');
      t.deepEqual(fake.callsOf('loadApprovers')[1]?.input, { environment: 'staging', roles: ['finance-director'] });
      t.not((await handle.query(progressQuery)).round?.nextDirectoryReadAt, undefined, 'still short');
      directory = [...APPROVERS, DORA];
      await env.temporal.env.sleep(2 * 60_000);
      const found = await progressWhen(handle, (p) => p.round?.nextDirectoryReadAt === undefined, 'dora found');
      t.true(
        found.round!.approvers.some((person) => person.id === 'dora'),
        'the whole directory read again',
      );
      const after = statusView(found, { request: orderRequest('SHORT-1', { requestedBy: 'dave' }) }, 'wf');
      t.is(after.approval?.eligibleApprovers, 1);
      t.is(after.approval?.shortOfApprovers, undefined, 'the warning is gone');
      await handle.executeUpdate(testVote, { args: [{ approverId: 'dora', decision: 'approve', ...QUOTE }] });
      return handle.result();
    });
    t.is(outcome.result, undefined, 'approved by dora: the order goes on');
    t.is(outcome.progress.state, 'APPROVED');

    const notes = entriesOf(fake.written(), 'note');
    const missing = notes.find((note) => note.message.startsWith('no one can approve this order'));
    t.truthy(missing, 'the timeline says no one can approve it');
    t.regex(
      missing!.message,
      /give one more person one of these roles in the approver directory, or cancel the order$/,
    );
    t.like(missing!.details, { eligibleApprovers: 0, approvals: 1 });
    const found = notes.find((note) => note.message.startsWith('approvers found'));
    t.is(found?.message, 'approvers found: dora may now approve 2000 USD (the "director" tier needs 1)');
    t.deepEqual(
      toldOf(fake).map((told) => told.event),
      ['state-changed', 'approvers-missing', 'approvers-found', 'state-changed'],
      'the ticket system is told both',
    );
    const [opened] = entriesOf(fake.written(), 'transition');
    t.like(opened?.details, { tier: 'director', eligibleApprovers: 0 });
  },
);

test.serial('a round no one could approve expires saying so, after reads of the role holders only', async (t) => {
  const fake = directoryOf(() => APPROVERS);
  const outcome = await env.withWorker(fake, async (start) => {
    const { progress, quote } = await validated();
    const handle = await start(approvalRoundWorkflow, {
      request: orderRequest('SHORT-2', { requestedBy: 'dave' }),
      governing: governing(false, parseApprovalPolicy({ ...POLICY, directoryRecheck: '6h' })),
      progress,
      start: { tier: DIRECTOR, quote, reason: 'needs the director' },
    });
    return handle.result();
  });
  const round = outcome.progress.round!;
  t.like(outcome.result, { state: 'EXPIRED', actor: 'policy' });
  t.is(
    outcome.result?.reason,
    `no decision by the deadline ${new Date(round.deadline).toISOString()}: no one could approve it (0 of the 1 approvers the "director" tier needs held its roles)`,
  );
  const reads = fake.callsOf('loadApprovers').map((call) => call.input.roles);
  // 6 h to 42 h, then 54, 60 and 66 h: the reminder at 48 h reads the whole directory and starts the count again.
  t.is(reads.filter((roles) => roles !== undefined).length, 10, 'the role holders, every 6 h between reminders');
  t.is(reads.filter((roles) => roles === undefined).length, 1 + 2, 'the whole directory at the start and reminders');
  t.is(
    entriesOf(fake.written(), 'note').filter((note) => note.message.startsWith('no one can approve')).length,
    1,
    'said once',
  );
});

test.serial('a round that loses its approvers at a reminder says so then, and reads again from there', async (t) => {
  let directory: Approver[] = [...APPROVERS];
  const fake = directoryOf(() => directory);
  const outcome = await env.withWorker(fake, async (start) => {
    const { progress, quote } = await validated();
    const handle = await start(approvalRoundWorkflow, {
      request: orderRequest('SHORT-3', { requestedBy: 'alice' }),
      governing: governing(),
      progress,
      start: { tier: DIRECTOR, quote, reason: 'needs the director' },
    });
    const opened = await progressWhen(handle, (p) => p.round !== undefined, 'the round');
    t.is(opened.round!.nextDirectoryReadAt, undefined, 'dave could approve: nothing to read again');
    directory = APPROVERS.map((person) => (person.id === 'dave' ? { ...person, active: false } : person));
    await env.temporal.env.sleep(48 * HOUR + 60_000);
    const short = await progressWhen(handle, (p) => p.round?.nextDirectoryReadAt !== undefined, 'the shortfall');
    t.is(short.round!.remindersSent, 1, 'found at the first reminder');
    directory = [...APPROVERS];
    await env.temporal.env.sleep(16 * 60_000);
    await progressWhen(handle, (p) => p.round?.nextDirectoryReadAt === undefined, 'dave back');
    await handle.executeUpdate(testVote, { args: [{ approverId: 'dave', decision: 'approve', ...QUOTE }] });
    return handle.result();
  });
  t.is(outcome.progress.state, 'APPROVED');
  const messages = entriesOf(fake.written(), 'note').map((note) => note.message);
  t.true(messages.some((message) => message.startsWith('no one can approve this order')));
  t.true(messages.includes('approvers found: dave may now approve 2000 USD (the "director" tier needs 1)'));
});
