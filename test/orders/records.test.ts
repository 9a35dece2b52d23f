import test from 'ava';
import postgres from 'postgres';
import { ApplicationFailure } from '@temporalio/common';
import { randomBytes } from 'node:crypto';
import { Keyring } from '../../codec/index.js';
import { createRepository, type Repository } from '../../infra/db/index.js';
import { createRecordActivities } from '../../activities/order/record-activities.js';
import { TRUNCATED } from '../../activities/order/journal/index.js';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { JournalEntry, JournalInput } from '../../workflows/order/activity-types.js';
import { usePostgres } from '../helpers/postgres.js';
import { sydneyRequest } from '../helpers/orders.js';
import { recordIntake, signedVote } from '../helpers/intake.js';
import { checkOrderRequest, redactOrderRequest } from '../../domain/index.js';
import { SIM_KIND_MAP } from '../../tooling/sim/index.js';
import { defaultApprovalPolicies } from '../../domain/approval/index.js';
import { policyHash } from '../../activities/order/policy-activity.js';

// Records cannot wedge an order: values are fitted to the records at the boundary, and a write the database
// still refuses is shown on the order while the rest of the batch goes on (the buy waits on its journal). Nor do they
// take what no legitimate run writes: an order the intake did not record, an unsigned vote, a move out of an end, a
// sequence number reused with other content. These call the activity directly, its run named by its context.

const pg = usePostgres(test);
const actionKeys = Keyring.fromText(`test:${randomBytes(32).toString('base64')}`, 'test', 'action keys');

const requestFor = (workflowId: string) =>
  checkOrderRequest(sydneyRequest(workflowId.replace('mve-order-', '')), { kindMap: SIM_KIND_MAP }).request!;

/** The order as the intake records it, and its first run admitted. */
function intake(repository: Repository, workflowId: string, runId = `run-${workflowId}`) {
  return recordIntake(repository, actionKeys, { workflowId, runId, request: requestFor(workflowId) });
}

async function journal(workflowId: string, options: { sent?: Array<{ connection: number; query: string }> } = {}) {
  const db = await pg.database();
  // With `sent`, the journal writes through a pool of its own that reports each statement and its connection.
  const sent = options.sent;
  const pool = sent
    ? postgres(db.url, { max: 4, onnotice: () => {}, debug: (connection, query) => sent.push({ connection, query }) })
    : db.sql;
  const repository = createRepository(pool);
  await repository.addApprover({ id: 'fiona', displayName: 'Fiona', roles: ['finance-approver'] });
  const { recordJournal } = createRecordActivities({ repository, actionKeys });
  await intake(repository, workflowId);
  const inRun = (entries: JournalEntry[]) =>
    new MockActivityEnvironment({ workflowExecution: { workflowId, runId: `run-${workflowId}` } }).run(recordJournal, {
      entries,
    });
  await inRun([{ type: 'received', seq: 0, at: Date.now() }]);
  return { repository, sql: db.sql, write: inRun, end: () => (sent ? pool.end({ timeout: 5 }) : Promise.resolve()) };
}

test('long texts are cut with a marker, money to 6 decimals, currencies upper case, an empty status is UNKNOWN', async (t) => {
  const { repository, write } = await journal('mve-order-FIT-1');
  const now = Date.now();
  await write([
    {
      type: 'transition',
      seq: 1,
      at: now,
      from: 'RECEIVED',
      to: 'CANCELLED',
      actor: 'a'.repeat(300),
      reason: 'r'.repeat(3000),
    },
    { type: 'note', seq: 2, at: now, actor: 'engine', message: 'm'.repeat(5000) },
    {
      type: 'quote',
      seq: 3,
      at: now,
      quoteNumber: 1,
      quote: { monthlyRate: 1618.123456789, currency: 'aud', quotedAt: now },
    },
    signedVote(
      actionKeys,
      { workflowId: 'mve-order-FIT-1', firstRunId: 'run-mve-order-FIT-1' },
      {
        seq: 4,
        at: now,
        quoteNumber: 1,
        approverId: 'fiona',
        decision: 'reject',
        monthlyRate: 1618.123456789,
        currency: 'aud',
        comment: 'c'.repeat(2500),
      },
    ),
    { type: 'buy-intent', seq: 5, at: now, attempt: 1 },
    {
      type: 'buy-outcome',
      seq: 6,
      at: now,
      attempt: 1,
      outcome: 'not-created',
      error: { type: 'ApiRejected', message: 'x'.repeat(9000) },
    },
    {
      type: 'product',
      seq: 7,
      at: now,
      product: { technicalServiceUid: '3f0c2b1e-7f4a-4b7e-9a55-3c2d1e0f9a88', provisioningStatus: '' },
      actor: 'engine',
    },
    { type: 'error', seq: 8, at: now, message: 'e'.repeat(6000) },
  ]);
  const view = (await repository.getOrder('mve-order-FIT-1'))!;
  t.is(view.events.at(-1)!.actor.length, 255);
  t.true(view.events.at(-1)!.actor.endsWith(TRUNCATED));
  t.is(view.events.at(-1)!.reason!.length, 2000);
  t.is(view.notes[0].message.length, 4000);
  t.deepEqual(view.order.quote && { rate: view.order.quote.monthlyRate, currency: view.order.quote.currency }, {
    rate: '1618.123457',
    currency: 'AUD',
  });
  t.is(view.approvals[0].reason!.length, 2000);
  t.is(view.buyAttempts[0].errorMessage!.length, 4000);
  t.is(view.order.product?.provisioningStatus, 'UNKNOWN');
  t.is(view.order.lastError?.message.length, 4000);
});

test('a write the database still refuses is shown on the order, and the rest of the batch is recorded', async (t) => {
  const { repository, write } = await journal('mve-order-REFUSED-1');
  const now = Date.now();
  await t.notThrowsAsync(
    write([
      // Nobody called "mallory" is in the directory: the vote's row breaks a foreign key.
      signedVote(
        actionKeys,
        { workflowId: 'mve-order-REFUSED-1', firstRunId: 'run-mve-order-REFUSED-1' },
        {
          seq: 1,
          at: now,
          quoteNumber: 1,
          approverId: 'mallory',
          decision: 'approve',
          monthlyRate: 1,
          currency: 'AUD',
        },
      ),
      { type: 'buy-intent', seq: 2, at: now, attempt: 1 },
    ]),
  );
  const view = (await repository.getOrder('mve-order-REFUSED-1'))!;
  t.regex(
    view.order.lastError?.message ?? '',
    /^the record of journal entry 1 \(vote\) was refused: .*approver must be known/,
  );
  t.deepEqual(
    view.buyAttempts.map((attempt) => attempt.attempt),
    [1],
    'the buy intent after it was still written',
  );
});

test('entries of an order whose first record was refused do not fail the batch, except a buy intent', async (t) => {
  const db = await pg.database();
  const { recordJournal } = createRecordActivities({ repository: createRepository(db.sql), actionKeys });
  const inRun = (entries: JournalEntry[]) =>
    new MockActivityEnvironment({ workflowExecution: { workflowId: 'mve-order-NEVER', runId: 'run-never' } }).run(
      recordJournal,
      { entries },
    );
  // No "received" row: every write is refused, and so is recording the refusal; the batch still ends…
  await t.notThrowsAsync(inRun([{ type: 'note', seq: 1, at: Date.now(), actor: 'engine', message: 'hello' }]));
  // …but a buy intent that is not on record means the buy must not leave.
  const refused = await t.throwsAsync(inRun([{ type: 'buy-intent', seq: 2, at: Date.now(), attempt: 1 }]), {
    instanceOf: ApplicationFailure,
  });
  t.is(refused?.type, 'BuyIntentRefused');
  const [row] = await db.sql`SELECT count(*)::int AS n FROM buy_attempts`;
  t.is(row.n, 0);
});

test('a buy intent for an attempt that already ended (an earlier run of the order) fails the batch: the buy must not leave', async (t) => {
  const { write, repository } = await journal('mve-order-RERUN-1');
  const now = Date.now();
  await write([
    { type: 'buy-intent', seq: 1, at: now, attempt: 1 },
    {
      type: 'buy-outcome',
      seq: 2,
      at: now,
      attempt: 1,
      outcome: 'created',
      product: { technicalServiceUid: '3f0c2b1e-7f4a-4b7e-9a55-3c2d1e0f9a88', provisioningStatus: 'DEPLOYABLE' },
    },
  ]);
  // The same intent written again by its own run (an activity retry) is fine while the attempt is open…
  const { write: writeOpen } = await journal('mve-order-RERUN-2');
  await writeOpen([{ type: 'buy-intent', seq: 1, at: now, attempt: 1 }]);
  await t.notThrowsAsync(writeOpen([{ type: 'buy-intent', seq: 1, at: now, attempt: 1 }]));
  // …but a second run starting its attempts again finds attempt 1 ended, and is refused for good.
  const refused = await t.throwsAsync(write([{ type: 'buy-intent', seq: 1, at: now + 1000, attempt: 1 }]), {
    instanceOf: ApplicationFailure,
  });
  t.is(refused?.type, 'BuyIntentRefused');
  t.true(refused?.nonRetryable);
  t.regex(refused.message, /buy attempt 1 of this order already ended as created/);
  t.deepEqual(
    (await repository.getOrder('mve-order-RERUN-1'))!.buyAttempts.map((attempt) => attempt.outcome),
    ['created'],
  );
});

test("a buy intent of another run is refused even while the first run's attempt is open (it may have been sent)", async (t) => {
  const db = await pg.database();
  const repository = createRepository(db.sql);
  const { recordJournal } = createRecordActivities({ repository, actionKeys });
  await intake(repository, 'mve-order-RUNS-1', 'run-a');
  const inRun = (runId: string) => (input: JournalInput) =>
    new MockActivityEnvironment({ workflowExecution: { workflowId: 'mve-order-RUNS-1', runId } }).run(
      recordJournal,
      input,
    );
  await inRun('run-a')({
    entries: [
      { type: 'received', seq: 0, at: Date.now() },
      { type: 'buy-intent', seq: 1, at: Date.now(), attempt: 1 },
    ],
  });
  await t.notThrowsAsync(
    inRun('run-a')({ entries: [{ type: 'buy-intent', seq: 1, at: Date.now(), attempt: 1 }] }),
    'its own retry',
  );
  const refused = await t.throwsAsync(
    inRun('run-b')({ entries: [{ type: 'buy-intent', seq: 1, at: Date.now(), attempt: 1 }] }),
    { instanceOf: ApplicationFailure },
  );
  t.is(refused?.type, 'BuyIntentRefused');
  const view = (await repository.getOrder('mve-order-RUNS-1'))!;
  t.is(view.order.runId, 'run-a');
  t.deepEqual(
    view.buyAttempts.map((attempt) => [attempt.attempt, attempt.runId]),
    [[1, 'run-a']],
  );
});

test("a journal input without its run: the run comes from the activity context, the order is the intake's", async (t) => {
  const db = await pg.database();
  const repository = createRepository(db.sql);
  await intake(repository, 'mve-order-CTX-1', 'run-ctx');
  const { recordJournal } = createRecordActivities({ repository, actionKeys });
  const activity = new MockActivityEnvironment({
    workflowExecution: { workflowId: 'mve-order-CTX-1', runId: 'run-ctx' },
  });
  const at = Date.now();
  const input: JournalInput = {
    entries: [
      { type: 'received', seq: 1, at },
      // A hash no worker stored: the order cannot name it (shown as the order's last error).
      { type: 'policy', seq: 2, at, version: 'v1', hash: 'e'.repeat(64) },
      { type: 'buy-intent', seq: 3, at, attempt: 1 },
    ],
  };
  await activity.run(recordJournal, input);
  const view = (await repository.getOrder('mve-order-CTX-1'))!;
  t.deepEqual(
    view.order.request,
    redactOrderRequest(requestFor('mve-order-CTX-1')) as unknown as Record<string, unknown>,
  );
  t.is(view.order.runId, 'run-ctx');
  t.is(view.order.policy, null);
  t.regex(
    view.order.lastError?.message ?? '',
    /^the record of journal entry 2 \(policy\) was refused: recordPolicy: no approval policy is stored with hash e{64}$/,
  );
  t.deepEqual(
    view.buyAttempts.map((attempt) => [attempt.attempt, attempt.runId]),
    [[1, 'run-ctx']],
  );
});

test('only the intake creates an order: a received entry for an order it did not record creates nothing', async (t) => {
  const db = await pg.database();
  const repository = createRepository(db.sql);
  const { recordJournal } = createRecordActivities({ repository, actionKeys });
  const received: JournalInput = { entries: [{ type: 'received', seq: 0, at: Date.now() }] };
  await new MockActivityEnvironment({
    workflowExecution: { workflowId: 'mve-order-EVIL-1.0000000000', runId: 'run-evil' },
  }).run(recordJournal, received);
  t.is(await repository.getOrder('mve-order-EVIL-1.0000000000'), null);
});

test('a vote the HTTP API did not sign for this order is refused, and the order says so', async (t) => {
  const { repository, write } = await journal('mve-order-VOTE-1');
  const now = Date.now();
  const vote = { seq: 1, at: now, quoteNumber: 1, approverId: 'fiona', decision: 'approve' as const };
  const price = { monthlyRate: 3236.4, currency: 'AUD' };
  const forOrder = { workflowId: 'mve-order-VOTE-1', firstRunId: 'run-mve-order-VOTE-1' };
  const unsigned: JournalEntry = { type: 'vote', ...vote, ...price };
  const forAnotherOrder = signedVote(
    actionKeys,
    { ...forOrder, workflowId: 'mve-order-VOTE-2' },
    { ...vote, ...price },
  );
  const otherPrice = { ...signedVote(actionKeys, forOrder, { ...vote, ...price }), monthlyRate: 1 };
  for (const [entry, why] of [
    [unsigned, /not signed by the order API/],
    [forAnotherOrder, /signature does not match/],
    [otherPrice, /does not say what the order API signed/],
  ] as const) {
    await write([entry]);
    const view = (await repository.getOrder('mve-order-VOTE-1'))!;
    t.deepEqual(view.approvals, [], 'nothing recorded');
    t.regex(view.order.lastError?.message ?? '', why);
  }
  await write([signedVote(actionKeys, forOrder, { ...vote, ...price })]);
  t.like((await repository.getOrder('mve-order-VOTE-1'))!.approvals, [{ approverId: 'fiona', decision: 'approve' }]);
});

test('the records refuse a move the order cannot make, a move out of an end, and a number reused for another note', async (t) => {
  const { repository, write } = await journal('mve-order-MOVES-1');
  const now = Date.now();
  const move = (seq: number, from: string, to: string): JournalEntry =>
    ({ type: 'transition', seq, at: now, from, to, actor: 'engine', reason: 'test' }) as JournalEntry;
  await write([move(1, 'RECEIVED', 'BOUGHT')]);
  let view = (await repository.getOrder('mve-order-MOVES-1'))!;
  t.is(view.order.status, 'RECEIVED');
  t.regex(view.order.lastError?.message ?? '', /an order does not move from RECEIVED to BOUGHT/);

  await write([move(1, 'RECEIVED', 'CANCELLED'), move(2, 'CANCELLED', 'APPROVED')]);
  view = (await repository.getOrder('mve-order-MOVES-1'))!;
  t.is(view.order.status, 'RECEIVED', 'a batch with a forbidden move records none of its moves');
  await write([move(1, 'RECEIVED', 'CANCELLED')]);
  await write([move(2, 'AWAITING_APPROVAL', 'APPROVED')]);
  view = (await repository.getOrder('mve-order-MOVES-1'))!;
  t.is(view.order.status, 'CANCELLED');
  t.regex(view.order.lastError?.message ?? '', /the order has ended \(CANCELLED\)/);

  await write([{ type: 'note', seq: 3, at: now, actor: 'engine', message: 'first' }]);
  await write([{ type: 'note', seq: 3, at: now, actor: 'engine', message: 'first' }]);
  await write([{ type: 'note', seq: 3, at: now, actor: 'engine', message: 'another' }]);
  view = (await repository.getOrder('mve-order-MOVES-1'))!;
  t.deepEqual(
    view.notes.map((note) => note.message),
    ['first'],
  );
  t.regex(view.order.lastError?.message ?? '', /sequence 3 of order mve-order-MOVES-1 holds another note already/);
});

test('a policy entry naming a hash nobody stored (read from a worker of before the deploy) gets the rules of the policy this worker serves', async (t) => {
  const db = await pg.database();
  const repository = createRepository(db.sql);
  await intake(repository, 'mve-order-CTX-3', 'run-ctx');
  const policies = { version: 'v2', source: 'test', policies: defaultApprovalPolicies() };
  const { recordJournal } = createRecordActivities({ repository, actionKeys, policies });
  const hash = policyHash(defaultApprovalPolicies().staging);
  const input: JournalInput = {
    entries: [
      { type: 'received', seq: 1, at: Date.now() },
      { type: 'policy', seq: 2, at: Date.now(), version: 'v2', hash },
    ],
  };
  await new MockActivityEnvironment({ workflowExecution: { workflowId: 'mve-order-CTX-3', runId: 'run-ctx' } }).run(
    recordJournal,
    input,
  );
  const [row] =
    await db.sql`SELECT o.policy_version, o.policy, p.policy AS stored FROM orders o JOIN approval_policies p ON p.hash = o.policy_hash WHERE o.workflow_id = 'mve-order-CTX-3'`;
  const rules = JSON.parse(JSON.stringify(defaultApprovalPolicies().staging)) as unknown;
  t.deepEqual({ ...row }, { policy_version: 'v2', policy: rules, stored: rules });
  t.is((await repository.getOrder('mve-order-CTX-3'))!.order.lastError, null);
});

test('a batch goes to PostgreSQL at once, on one connection, in the order of its entries (its transitions together)', async (t) => {
  const sent: Array<{ connection: number; query: string }> = [];
  const { repository, write, end, sql } = await journal('mve-order-ONE-CONN', { sent });
  t.teardown(end);
  const now = Date.now();
  // A first batch of the same kinds: a connection sends a statement it has not prepared yet alone (it asks its types first).
  await write([
    { type: 'transition', seq: 1, at: now, from: 'RECEIVED', to: 'LOOKING_UP', actor: 'engine', reason: 'looking up' },
    { type: 'note', seq: 2, at: now, actor: 'engine', message: 'two locations matched' },
    {
      type: 'transition',
      seq: 3,
      at: now,
      from: 'LOOKING_UP',
      to: 'VALIDATING',
      actor: 'engine',
      reason: 'validating',
    },
    { type: 'quote', seq: 4, at: now, quoteNumber: 1, quote: { monthlyRate: 800, currency: 'USD', quotedAt: now } },
    { type: 'buy-intent', seq: 5, at: now, attempt: 1 },
  ]);
  // The order's row locked elsewhere holds up the first write: what is sent meanwhile was sent without waiting for it.
  let unlock!: () => void;
  const unlocked = new Promise<void>((resolve) => (unlock = resolve));
  const locking = sql.begin(async (tx) => {
    await tx`SELECT 1 FROM orders WHERE workflow_id = 'mve-order-ONE-CONN' FOR UPDATE`;
    await unlocked;
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  sent.length = 0;
  const writing = write([
    {
      type: 'transition',
      seq: 6,
      at: now,
      from: 'VALIDATING',
      to: 'APPROVED',
      actor: 'policy',
      reason: 'below the line',
    },
    { type: 'note', seq: 7, at: now, actor: 'engine', message: 'the approvers were told' },
    { type: 'transition', seq: 8, at: now, from: 'APPROVED', to: 'BUYING', actor: 'engine', reason: 'buying' },
    { type: 'quote', seq: 9, at: now, quoteNumber: 2, quote: { monthlyRate: 810, currency: 'USD', quotedAt: now } },
    { type: 'buy-intent', seq: 10, at: now, attempt: 2 },
  ]);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const whileHeld = sent.filter(({ query }) => !/pg_catalog/.test(query));
  unlock();
  await locking;
  await writing;
  t.is(new Set(whileHeld.map(({ connection }) => connection)).size, 1, 'one connection');
  t.deepEqual(
    whileHeld.map(
      ({ query }) =>
        /INSERT INTO (order_events|order_notes|buy_attempts)/.exec(query)?.[1] ??
        (/UPDATE orders SET quote/.test(query) ? 'quote' : query.slice(0, 30)),
    ),
    ['order_events', 'order_notes', 'quote', 'buy_attempts'],
    'all sent, in order, while the first still waited; the two transitions as one statement, where the first stands',
  );
  const view = (await repository.getOrder('mve-order-ONE-CONN'))!;
  t.is(view.order.status, 'BUYING');
  t.deepEqual(
    view.buyAttempts.map((attempt) => attempt.attempt),
    [1, 2],
  );
});

test('the last error a batch leaves is the last of its refusals and error entries, as if written one by one', async (t) => {
  const { repository, write } = await journal('mve-order-LAST-ERR');
  const now = Date.now();
  await write([
    { type: 'transition', seq: 1, at: now, from: 'RECEIVED', to: 'LOOKING_UP', actor: 'engine', reason: 'looking up' },
  ]);
  const refusedTransition: JournalEntry = {
    type: 'transition',
    seq: 1,
    at: now,
    from: 'RECEIVED',
    to: 'CANCELLED',
    actor: 'engine',
    reason: 'a different event under seq 1',
  };
  await write([refusedTransition, { type: 'error', seq: 2, at: now, message: 'the API did not answer' }]);
  t.is(
    (await repository.getOrder('mve-order-LAST-ERR'))!.order.lastError?.message,
    'the API did not answer',
    'the error entry came last',
  );
  await write([{ type: 'error', seq: 2, at: now, message: 'the API did not answer' }, refusedTransition]);
  t.regex(
    (await repository.getOrder('mve-order-LAST-ERR'))!.order.lastError?.message ?? '',
    /^the record of journal entry 1 \(transition\) was refused/,
    'the refusal came last',
  );
});
