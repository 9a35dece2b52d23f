/**
 * The buy proves its budget from the records (docs/security.md): when the order's team has a budget in the currency,
 * an admitted run's buy is refused without a commitment of the price, and with a commitment over budget until the
 * policy's overBudget tier approved it by signed votes. Real activities against the simulator and PostgreSQL, as the
 * order's own local activities run them.
 */
import anyTest, { type TestFn } from 'ava';
import { randomBytes } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Keyring } from '../../codec/index.js';
import { checkOrderRequest } from '../../domain/index.js';
import { parseApprovalPolicy } from '../../domain/approval/index.js';
import { createRepository, type Repository, type Sql } from '../../infra/db/index.js';
import { SIM_KIND_MAP, startSimulator, type Simulator } from '../../tooling/sim/index.js';
import type { BuyAnswer, JournalEntry, OrderActivities } from '../../workflows/order/activity-types.js';
import { BUDGET_TEST_RULES, monthly } from '../helpers/budgets.js';
import { recordIntake, signedVote } from '../helpers/intake.js';
import { createTestActivities, simCredentials, sydneyRequest } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';

interface Context {
  sim: Simulator;
  sql: Sql;
  repository: Repository;
  activities: OrderActivities;
  actionKeys: Keyring;
}

const test = anyTest as TestFn<Context>;
const pg = usePostgres(test);

const POLICIES = {
  version: 'budget-buy-1',
  source: 'test',
  policies: {
    staging: parseApprovalPolicy({
      ...BUDGET_TEST_RULES,
      budgetTimeZone: 'UTC',
      teams: [{ id: 'net', name: 'Network', budget: monthly(100_000) }],
      overBudget: { tier: 'finance' },
    }),
    production: parseApprovalPolicy(BUDGET_TEST_RULES),
  },
};

function request(ticketId: string) {
  const checked = checkOrderRequest(sydneyRequest(ticketId, { size: 'MVE 8/32' }), { kindMap: SIM_KIND_MAP });
  if (!checked.request) throw new Error(`the test request does not check: ${JSON.stringify(checked.errors)}`);
  return checked.request;
}

test.before(async (t) => {
  const sim = await startSimulator();
  const { sql } = await pg.database();
  const repository = createRepository(sql);
  const orderRequests = {
    requestOf: ({ workflowId }: { workflowId: string }) =>
      Promise.resolve(request(workflowId.replace('mve-order-', ''))),
  };
  const actionKeys = Keyring.fromText(`test:${randomBytes(32).toString('base64')}`, 'test', 'action keys');
  const { activities } = createTestActivities({
    ...simCredentials(sim),
    repository,
    orderRequests,
    actionKeys,
    policies: POLICIES,
  });
  for (const id of ['fiona', 'dave'])
    await repository.addApprover({
      id,
      displayName: id,
      roles: [id === 'dave' ? 'finance-director' : 'finance-approver'],
    });
  t.context = { sim, sql, repository, activities, actionKeys };
});
test.after.always(async (t) => {
  await t.context.sim?.close();
});

test.serial(
  'an admitted run of a budgeted team buys only a committed price, over budget only on the tier',
  async (t) => {
    const { sim, sql, repository, activities, actionKeys } = t.context;
    const run = { workflowId: 'mve-order-BUDGET-BUY-1', runId: 'run-BUDGET-BUY-1' };
    const ordered = request('BUDGET-BUY-1');
    await recordIntake(repository, actionKeys, { ...run, request: ordered });
    await sql`UPDATE orders SET team = 'net' WHERE workflow_id = ${run.workflowId}`;
    const local = <I, O>(activity: (input: I) => Promise<O>, input: I): Promise<O> =>
      new MockActivityEnvironment({ workflowExecution: run, isLocal: true }).run<[I], O, typeof activity>(
        activity,
        input,
      );
    const lookup = { workflowId: run.workflowId, environment: 'staging' as const, request: ordered };
    const { location, warnings } = await local(activities.lookUpLocation.bind(activities), lookup);
    const { image, kind } = await local(activities.lookUpImage.bind(activities), lookup);
    const quote = await local(activities.validateOrder.bind(activities), {
      ...lookup,
      targets: { location, image, kind, warnings },
    });
    await repository.recordQuote({ workflowId: run.workflowId, quoteNumber: 1, ...quote, quotedAt: new Date() });
    const vote = (seq: number, approverId: string) =>
      signedVote(
        actionKeys,
        { workflowId: run.workflowId, firstRunId: run.runId },
        { seq, at: Date.now(), quoteNumber: 1, approverId, decision: 'approve', ...quote },
      );
    const journal = (entries: JournalEntry[]) =>
      new MockActivityEnvironment({ workflowExecution: run }).run(activities.recordJournal.bind(activities), {
        entries,
      });
    await journal([vote(1, 'fiona')]);
    const targets = {
      location: { id: location.id },
      image: { id: image.id, vendor: image.vendor, product: image.product },
    };
    const at = Date.now();
    let seq = 10;
    const buy = (attempt: number): Promise<BuyAnswer> => {
      const entries: JournalEntry[] =
        attempt === 1
          ? [
              { type: 'received', seq: 2, at },
              { type: 'transition', seq: 3, at, from: 'APPROVED', to: 'BUYING', actor: 'engine', reason: 'buying' },
              { type: 'buy-intent', seq: 4, at, attempt },
            ]
          : [{ type: 'buy-intent', seq: ++seq, at, attempt }];
      return local(activities.buyOrder.bind(activities), {
        targets,
        attempt,
        journal: entries,
        recordCreated: { seq: ++seq, actor: 'engine' },
      });
    };
    const refusal = (answer: BuyAnswer) => (answer.outcome === 'not-created' ? answer.error.message : '');
    const buysBefore = sim.state().calls.buy;

    // Approved by the tier its price needs, but no approval committed it against the team's budget.
    t.regex(refusal(await buy(1)), /no approval committed 1618\.2 AUD against team net's budget/);

    // Committed over budget on the lower tier's word: the records show the overBudget tier never approved it.
    await repository.commitBudget(
      { workflowId: run.workflowId, environment: 'staging', team: 'net', ...quote, tier: 'finance', check: null },
      () => ({ commit: true, overBudget: true, fit: null }),
    );
    t.regex(refusal(await buy(2)), /1618\.2 AUD is over team net's budget and the "finance" tier has not approved it/);
    t.is(sim.state().calls.buy, buysBefore, 'nothing sent');

    await journal([vote(5, 'dave')]);
    t.is((await buy(3)).outcome, 'created', 'the finance tier approved it: fiona and dave');
    t.is(sim.state().calls.buy, buysBefore + 1);
  },
);

test.serial("the budget check takes no price but the order's last sealed quote", async (t) => {
  const { sql, repository, activities, actionKeys } = t.context;
  const run = { workflowId: 'mve-order-BUDGET-BUY-2', runId: 'run-BUDGET-BUY-2' };
  const ordered = request('BUDGET-BUY-2');
  await recordIntake(repository, actionKeys, { ...run, request: ordered });
  await sql`UPDATE orders SET team = 'net' WHERE workflow_id = ${run.workflowId}`;
  const lookup = { workflowId: run.workflowId, environment: 'staging' as const, request: ordered };
  const as =
    (isLocal: boolean) =>
    <I, O>(activity: (input: I) => Promise<O>, input: I): Promise<O> =>
      new MockActivityEnvironment({ workflowExecution: run, isLocal }).run<[I], O, typeof activity>(activity, input);
  const local = as(true);
  const { location, warnings } = await local(activities.lookUpLocation.bind(activities), lookup);
  const { image, kind } = await local(activities.lookUpImage.bind(activities), lookup);
  const quote = await local(activities.validateOrder.bind(activities), {
    ...lookup,
    targets: { location, image, kind, warnings },
  });
  // A records activity, scheduled on the task queue for the admitted run.
  const scheduled = as(false);

  const cheaper = { monthlyRate: 1, currency: 'AUD', tier: 'finance' };
  const refused = await t.throwsAsync(scheduled(activities.commitBudget.bind(activities), cheaper));
  t.regex(refused.message, /1 AUD is not the last quote a worker obtained for mve-order-BUDGET-BUY-2/);
  t.is(await repository.budgetCommitment(run.workflowId), null, 'nothing committed');

  // The first test's order committed 1618.2 of the 100000 already.
  const preview = await scheduled(activities.previewBudget.bind(activities), quote);
  t.like(preview, { overBudget: false, committed: false, fit: { remainingAfter: { monthlyNew: '96763.6' } } });
  const committed = await scheduled(activities.commitBudget.bind(activities), { ...quote, tier: 'team' });
  t.like(committed, { overBudget: false, committed: true });
  t.like(await repository.budgetCommitment(run.workflowId), { team: 'net', monthlyRate: '1618.2', tier: 'team' });
});
