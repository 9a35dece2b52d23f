/**
 * The buy activity on its own, as the lean order calls it: it writes the journal it is given (the write-ahead record)
 * before it sends, claims its attempt right before the request leaves, and records the MVE it created. Real
 * activities against the simulator and PostgreSQL; the request is handed to them as the reader would read it.
 */
import anyTest, { type TestFn } from 'ava';
import { randomBytes } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Keyring } from '../../codec/index.js';
import { createRepository, type Repository } from '../../infra/db/index.js';
import type { BuyAnswer, BuyInput, JournalEntry, OrderActivities } from '../../workflows/order/activity-types.js';
import { checkOrderRequest } from '../../domain/index.js';
import type { OrderRequest } from '../../schemas/index.js';
import { SIM_KIND_MAP, startSimulator, type Simulator } from '../../tooling/sim/index.js';
import { usePostgres } from '../helpers/postgres.js';
import { createTestActivities, simCredentials, sydneyRequest } from '../helpers/orders.js';
import { recordIntake, signedVote } from '../helpers/intake.js';

interface Context {
  sim: Simulator;
  repository: Repository;
  activities: OrderActivities;
  /** What the activities of a worker whose database breaks after the buy would do (see the last test). */
  failingAfterBuy: OrderActivities;
  actionKeys: Keyring;
}

const test = anyTest as TestFn<Context>;
const pg = usePostgres(test);
let tickets = 0;

function request(ticketId: string, size = 'MVE 4/16'): OrderRequest {
  const checked = checkOrderRequest(sydneyRequest(ticketId, { size }), { kindMap: SIM_KIND_MAP });
  if (!checked.request) throw new Error(`the test request does not check: ${JSON.stringify(checked.errors)}`);
  return checked.request;
}

test.before(async (t) => {
  const sim = await startSimulator();
  const { sql } = await pg.database();
  const repository = createRepository(sql);
  // Every run's request is its ticket's: what the reader would read from the run's start input.
  const orderRequests = {
    requestOf: ({ workflowId }: { workflowId: string }) =>
      Promise.resolve(request(workflowId.replace('mve-order-', ''))),
  };
  // Admission is not what these tests are about: the records show the run admitted (recordIntake).
  const actionKeys = Keyring.fromText(`test:${randomBytes(32).toString('base64')}`, 'test', 'action keys');
  const { activities } = createTestActivities({ ...simCredentials(sim), repository, orderRequests, actionKeys });
  const breakOutcomes = <R extends Pick<Repository, 'recordBuyOutcome'>>(records: R): R => ({
    ...records,
    recordBuyOutcome: () => Promise.reject(new Error('connection terminated unexpectedly')),
  });
  // The journal writes through one connection's repository (withOneConnection): broken there too.
  const broken: Repository = {
    ...breakOutcomes(repository),
    withOneConnection: (work) => repository.withOneConnection((orders) => work(breakOutcomes(orders))),
  };
  const failingAfterBuy = createTestActivities({
    ...simCredentials(sim),
    repository: broken,
    orderRequests,
    actionKeys,
  }).activities;
  t.context = { sim, repository, activities, failingAfterBuy, actionKeys };
});
test.after.always(async (t) => {
  await t.context.sim?.close();
});

/** A new order's run (recorded by the intake, admitted), its targets, and the journal up to its first buy intent. */
async function newOrder(t: { context: Context }, options: { size?: string } = {}) {
  const ticketId = `BUY-${++tickets}`;
  const run = { workflowId: `mve-order-${ticketId}`, runId: `run-${ticketId}` };
  const ordered = request(ticketId, options.size);
  await recordIntake(t.context.repository, t.context.actionKeys, { ...run, request: ordered });
  // The order's own steps run as local activities of its workflow task.
  const local = <I, O>(activity: (input: I) => Promise<O>, input: I): Promise<O> =>
    new MockActivityEnvironment({ workflowExecution: run, isLocal: true }).run<[I], O, typeof activity>(
      activity,
      input,
    );
  const lookup = { workflowId: run.workflowId, environment: 'staging' as const, request: ordered };
  const { location, warnings } = await local(t.context.activities.lookUpLocation.bind(t.context.activities), lookup);
  const { image, kind } = await local(t.context.activities.lookUpImage.bind(t.context.activities), lookup);
  const quote = await local(t.context.activities.validateOrder.bind(t.context.activities), {
    ...lookup,
    targets: { location, image, kind, warnings },
  });
  await t.context.repository.recordQuote({
    workflowId: run.workflowId,
    quoteNumber: 1,
    ...quote,
    quotedAt: new Date(),
  });
  const targets: BuyInput['targets'] = {
    location: { id: location.id },
    image: { id: image.id, vendor: image.vendor, product: image.product },
  };
  const at = Date.now();
  const journal: JournalEntry[] = [
    { type: 'received', seq: 1, at },
    { type: 'transition', seq: 2, at, from: 'APPROVED', to: 'BUYING', actor: 'engine', reason: 'buying' },
    { type: 'buy-intent', seq: 3, at, attempt: 1 },
  ];
  const buy = (input: BuyInput, activities = t.context.activities): Promise<BuyAnswer> =>
    local(activities.buyOrder.bind(activities), input);
  return { run, targets, journal, buy, quote };
}

test.serial('the buy writes its journal, claims its attempt, sends, and records the MVE it created', async (t) => {
  const { sim, repository } = t.context;
  const { run, targets, journal, buy } = await newOrder(t);
  const buysBefore = sim.state().calls.buy;

  const answer = await buy({ targets, attempt: 1, journal, recordCreated: { seq: 3, actor: 'engine' } });
  if (answer.outcome !== 'created') return t.fail(`not created: ${JSON.stringify(answer)}`);
  t.is(sim.state().calls.buy - buysBefore, 1);
  t.true(answer.journal?.written);
  t.deepEqual(
    answer.journal?.entries.map((entry) => [entry.seq, entry.type]),
    [
      [4, 'buy-outcome'],
      [5, 'product'],
      [6, 'transition'],
    ],
  );

  const view = (await repository.getOrder(run.workflowId))!;
  t.is(view.order.status, 'BOUGHT');
  t.is(view.order.product?.technicalServiceUid, answer.product.technicalServiceUid);
  t.is(view.order.runId, run.runId, 'the run from the activity context');
  const [attempt] = view.buyAttempts;
  t.like(attempt, { attempt: 1, outcome: 'created', runId: run.runId });
  t.truthy(attempt?.sentAt, 'claimed before it was sent');
  t.deepEqual(
    view.events.map((event) => event.to),
    ['RECEIVED', 'BUYING', 'BOUGHT'],
  );
});

test.serial(
  'a buy intent the records refuse: nothing is sent, and the answer says the journal was not written',
  async (t) => {
    const { sim, repository } = t.context;
    const { run, targets, journal, buy } = await newOrder(t);
    await repository.recordBuyIntent({ workflowId: run.workflowId, attempt: 1, runId: 'another-run' });
    const buysBefore = sim.state().calls.buy;

    const answer = await buy({ targets, attempt: 1, journal, recordCreated: { seq: 3, actor: 'engine' } });
    t.like(answer, { outcome: 'unrecorded', error: { type: 'BuyIntentRefused' } });
    t.regex(
      answer.outcome === 'unrecorded' ? answer.error.message : '',
      /buy attempt 1 of this order was begun by another run/,
    );
    t.is(sim.state().calls.buy, buysBefore, 'no buy request');
  },
);

test.serial('an attempt closed as never sent is never sent, even by a buy that wakes up late', async (t) => {
  const { sim, repository, activities } = t.context;
  const { run, targets, journal, buy } = await newOrder(t);
  await new MockActivityEnvironment({ workflowExecution: run }).run(activities.recordJournal.bind(activities), {
    entries: journal,
  });
  t.true(
    await new MockActivityEnvironment({ workflowExecution: run }).run(activities.closeUnsentBuy.bind(activities), {
      attempt: 1,
    }),
  );
  const buysBefore = sim.state().calls.buy;

  const answer = await buy({ targets, attempt: 1, journal: [], recordCreated: { seq: 3, actor: 'engine' } });
  t.like(answer, { outcome: 'not-created', retryable: false, error: { type: 'BuyNotClaimed' } });
  t.is(sim.state().calls.buy, buysBefore, 'no buy request');
  t.like((await repository.getOrder(run.workflowId))!.buyAttempts[0], {
    outcome: 'not-created',
    errorClass: 'BuyNotSent',
    sentAt: null,
  });
});

test.serial('a database that breaks after the buy: still created, with the record left to the workflow', async (t) => {
  const { repository, failingAfterBuy } = t.context;
  const { run, targets, journal, buy } = await newOrder(t);
  const answer = await buy(
    { targets, attempt: 1, journal, recordCreated: { seq: 3, actor: 'engine' } },
    failingAfterBuy,
  );
  t.is(answer.outcome, 'created', 'the MVE exists whatever the records say');
  t.false(answer.outcome === 'created' && answer.journal?.written);
  t.is(
    answer.outcome === 'created' ? answer.journal?.entries.length : 0,
    3,
    'the entries, for the workflow to journal',
  );
  t.like(
    (await repository.getOrder(run.workflowId))!.buyAttempts[0],
    { outcome: null },
    "the intent only: the outcome is the workflow's to write",
  );
});

// A buy run in its workflow task (a local activity) runs again when that task is retried after its worker was lost.
test.serial(
  'a buy run again after its first run claimed the attempt sends nothing and answers uncertain',
  async (t) => {
    const { sim, repository, activities } = t.context;
    const { run, targets, journal, buy } = await newOrder(t);
    // The first run wrote its journal and claimed the attempt; its worker was lost before it answered.
    await new MockActivityEnvironment({ workflowExecution: run }).run(activities.recordJournal.bind(activities), {
      entries: journal,
    });
    t.true((await repository.claimBuyForSending({ workflowId: run.workflowId, attempt: 1 })).claimed);
    const buysBefore = sim.state().calls.buy;

    const answer = await buy({ targets, attempt: 1, journal, recordCreated: { seq: 3, actor: 'engine' } });
    t.like(answer, { outcome: 'uncertain', error: { type: 'BuyRanBefore' } });
    t.regex(
      answer.outcome === 'uncertain' ? answer.error.message : '',
      /buy attempt 1 was claimed for sending by an earlier run of this buy, and may have been sent/,
    );
    t.is(sim.state().calls.buy, buysBefore, 'no second buy request');
  },
);

test.serial(
  'a buy run again after its first run bought and recorded the MVE sends nothing and answers created, from the records',
  async (t) => {
    const { sim, repository } = t.context;
    const { run, targets, journal, buy } = await newOrder(t);
    const first = await buy({ targets, attempt: 1, journal, recordCreated: { seq: 3, actor: 'engine' } });
    if (first.outcome !== 'created') return t.fail(`not created: ${JSON.stringify(first)}`);
    const buysBefore = sim.state().calls.buy;
    const recorded = (await repository.getOrder(run.workflowId))!;

    const again = await buy({ targets, attempt: 1, journal, recordCreated: { seq: 3, actor: 'engine' } });
    if (again.outcome !== 'created') return t.fail(`not created: ${JSON.stringify(again)}`);
    t.is(again.product.technicalServiceUid, first.product.technicalServiceUid);
    t.true(again.journal?.written, 'the entries are the ones the first run wrote: nothing to write again');
    t.deepEqual(
      again.journal?.entries.map((entry) => [entry.seq, entry.type, entry.type === 'transition' ? entry.to : '']),
      [
        [4, 'buy-outcome', ''],
        [5, 'product', ''],
        [6, 'transition', 'BOUGHT'],
      ],
    );
    t.is(sim.state().calls.buy, buysBefore, 'no second buy request');
    t.deepEqual((await repository.getOrder(run.workflowId))!.events, recorded.events, 'the records are unchanged');
  },
);

test.serial(
  'a buy run again whose reserved numbers do not hold the recorded MVE answers uncertain, naming it',
  async (t) => {
    const { sim } = t.context;
    const { targets, journal, buy } = await newOrder(t);
    const first = await buy({ targets, attempt: 1, journal, recordCreated: { seq: 3, actor: 'engine' } });
    if (first.outcome !== 'created') return t.fail(`not created: ${JSON.stringify(first)}`);
    const buysBefore = sim.state().calls.buy;

    const again = await buy({ targets, attempt: 1, journal, recordCreated: { seq: 9, actor: 'engine' } });
    t.like(again, { outcome: 'uncertain', error: { type: 'BuyRanBefore' } });
    t.true(
      again.outcome === 'uncertain' &&
        again.error.message.includes(`ended as created (${first.product.technicalServiceUid})`),
    );
    t.is(sim.state().calls.buy, buysBefore, 'no second buy request');
  },
);

test.serial('an attempt another run claimed is refused as before, not taken for a buy run again', async (t) => {
  const { sim, repository } = t.context;
  const { run, targets, journal, buy } = await newOrder(t);
  await repository.recordBuyIntent({ workflowId: run.workflowId, attempt: 1, runId: 'another-run' });
  t.true((await repository.claimBuyForSending({ workflowId: run.workflowId, attempt: 1 })).claimed);
  const buysBefore = sim.state().calls.buy;

  const answer = await buy({ targets, attempt: 1, journal, recordCreated: { seq: 3, actor: 'engine' } });
  t.like(answer, { outcome: 'unrecorded', error: { type: 'BuyIntentRefused' } });
  t.is(sim.state().calls.buy, buysBefore, 'no buy request');
});

test.serial(
  'a buy refused with a message quoting the licence it was sent: the answer and the records hide it',
  async (t) => {
    const { sim, repository } = t.context;
    const { run, targets, journal, buy } = await newOrder(t);
    const licence = request('x').vendorConfig['licenseData'] as string;
    sim.injectFault({ kind: 'echo', endpoint: 'buy', field: 'licenseData' });

    const answer = await buy({ targets, attempt: 1, journal, recordCreated: { seq: 3, actor: 'engine' } });
    t.like(answer, { outcome: 'not-created', retryable: false, error: { type: 'ApiRejected', status: 400 } });
    t.regex(
      answer.outcome === 'not-created' ? answer.error.message : '',
      /networkDesign\.0\.vendorConfig\.licenseData: the value "\[redacted\]" is not accepted/,
    );
    t.false(JSON.stringify(answer).includes(licence));
    t.false(JSON.stringify(await repository.getOrder(run.workflowId)).includes(licence));
  },
);

test.serial(
  'a buy above the auto-approve line goes only on votes the HTTP API signed, enough for the tier',
  async (t) => {
    const { sim, repository, activities, actionKeys } = t.context;
    await repository
      .addApprover({ id: 'fiona', displayName: 'Fiona Finance', roles: ['finance-approver'] })
      .catch(() => undefined /* added by an earlier test */);
    const { run, targets, journal, buy, quote } = await newOrder(t, { size: 'MVE 8/32' });
    const buysBefore = sim.state().calls.buy;

    const unapproved = await buy({ targets, attempt: 1, journal, recordCreated: { seq: 3, actor: 'engine' } });
    t.like(unapproved, { outcome: 'not-created', retryable: false, error: { type: 'BuyRefused' } });
    t.regex(
      unapproved.outcome === 'not-created' ? unapproved.error.message : '',
      /no approval under the policy covers/,
    );
    t.is(sim.state().calls.buy, buysBefore, 'nothing sent');
    t.like(await repository.listRefusedCalls({ workflowId: run.workflowId }), [
      { activity: 'buyOrder', runId: run.runId },
    ]);

    const vote = signedVote(
      actionKeys,
      { workflowId: run.workflowId, firstRunId: run.runId },
      {
        seq: 4,
        at: Date.now(),
        quoteNumber: 1,
        approverId: 'fiona',
        decision: 'approve',
        monthlyRate: quote.monthlyRate,
        currency: quote.currency,
      },
    );
    await new MockActivityEnvironment({ workflowExecution: run }).run(activities.recordJournal.bind(activities), {
      entries: [vote],
    });
    const approved = await buy({
      targets,
      attempt: 2,
      journal: [{ ...journal[2], attempt: 2 } as JournalEntry],
      recordCreated: { seq: 5, actor: 'engine' },
    });
    t.is(approved.outcome, 'created');
    t.is(sim.state().calls.buy, buysBefore + 1);
  },
);

test.serial(
  'a price no worker was quoted for the order is not paid, and a cancelled order is not bought',
  async (t) => {
    const { sim, repository } = t.context;
    const buysBefore = sim.state().calls.buy;

    const cheap = await newOrder(t);
    await repository.recordQuote({
      workflowId: cheap.run.workflowId,
      quoteNumber: 2,
      monthlyRate: 1,
      currency: 'AUD',
      quotedAt: new Date(),
    });
    const unquoted = await cheap.buy({ ...cheap, attempt: 1, recordCreated: { seq: 3, actor: 'engine' } });
    t.regex(unquoted.outcome === 'not-created' ? unquoted.error.message : '', /not the last quote a worker obtained/);

    const cancelled = await newOrder(t);
    await repository.recordTransition({
      workflowId: cancelled.run.workflowId,
      sequence: 1,
      from: 'RECEIVED',
      to: 'CANCELLED',
      actor: 'alice',
      reason: 'no longer needed',
    });
    const ended = await cancelled.buy({ ...cancelled, attempt: 1, recordCreated: { seq: 3, actor: 'engine' } });
    t.regex(ended.outcome === 'not-created' ? ended.error.message : '', /the records say the order is CANCELLED/);
    t.is((await repository.getOrder(cancelled.run.workflowId))!.order.status, 'CANCELLED');
    t.is(sim.state().calls.buy, buysBefore, 'nothing sent');
  },
);

test.serial(
  'a buy scheduled through the task queue, or for a run never admitted, is refused before anything',
  async (t) => {
    const { sim, repository, activities } = t.context;
    const { run, targets, journal } = await newOrder(t);
    const buysBefore = sim.state().calls.buy;
    const input = { targets, attempt: 1, journal, recordCreated: { seq: 3, actor: 'engine' } };

    const scheduled = await t.throwsAsync(
      new MockActivityEnvironment({ workflowExecution: run, isLocal: false }).run(
        activities.buyOrder.bind(activities),
        input,
      ),
    );
    t.like(scheduled, { type: 'ACTIVITY_REFUSED' });
    t.regex(scheduled.message, /scheduled through the task queue/);
    const stranger = { workflowId: run.workflowId, runId: 'run-of-a-reset' };
    const notAdmitted = await t.throwsAsync(
      new MockActivityEnvironment({ workflowExecution: stranger, isLocal: true }).run(
        activities.buyOrder.bind(activities),
        input,
      ),
    );
    t.regex(notAdmitted.message, /never admitted this run/);
    t.is(sim.state().calls.buy, buysBefore, 'nothing sent');
    t.deepEqual((await repository.getOrder(run.workflowId))!.buyAttempts, [], 'nothing recorded');
    t.deepEqual(
      (await repository.listRefusedCalls({ workflowId: run.workflowId }))
        .map((call) => [call.runId, call.activity])
        .sort(),
      [
        [run.runId, 'buyOrder'],
        ['run-of-a-reset', 'buyOrder'],
      ],
    );
  },
);
