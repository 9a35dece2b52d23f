/**
 * An upgrade with orders waiting: runs that continued as new before the workers kept the line of admitted runs
 * (migration 0018) are not in `admitted_runs`. Their next activity takes them in, on the server's word that they
 * started before the migration, in the ticket's chain; a run started since, not admitted, is refused.
 */
import anyTest, { type TestFn } from 'ava';
import type { Worker } from '@temporalio/worker';
import { createOrderWorker } from '../../worker/index.js';
import type { OrderWorkflowInput } from '../../workflows/order/types.js';
import { checkOrderRequest } from '../../domain/index.js';
import { SIM_KIND_MAP } from '../../tooling/sim/index.js';
import { usePostgres } from '../helpers/postgres.js';
import {
  createTestActivities,
  EARLY_REMINDER_POLICIES_IN_FORCE,
  orderOf,
  simCredentials,
  startOrderEngine,
  sydneyRequest,
  TASK_QUEUE,
  type OrderEngine,
  workflowOf,
} from '../helpers/orders.js';
import { waitFor, waitForState } from '../helpers/wait.js';

const test = anyTest as TestFn<{ engine: OrderEngine }>;
const pg = usePostgres(test);
const HOUR = 3_600_000;

test.before(async (t) => {
  // A run continues as new at its first reminder, which these workers' policy sends 5 s into the round.
  t.context = { engine: await startOrderEngine(pg, { policies: EARLY_REMINDER_POLICIES_IN_FORCE }) };
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
});

/** An order (one approver) that waited long enough to continue as new: its new run's id. */
async function continuedOrder(engine: OrderEngine, ticketId: string): Promise<string> {
  const request = checkOrderRequest(sydneyRequest(ticketId, { size: 'MVE 8/32' }), { kindMap: SIM_KIND_MAP }).request!;
  const input: OrderWorkflowInput = { request, options: { continueAsNewAfterEvents: 10 } };
  const first = await engine.startRegistered(input);
  await waitForState(engine.orders, ticketId, 'AWAITING_APPROVAL');
  return waitFor(
    async () => {
      const { runId } = await engine.client.workflow.getHandle(workflowOf(ticketId)).describe();
      return runId !== first.firstExecutionRunId ? runId : undefined;
    },
    60_000,
    'a new run',
  );
}

/** As if the run had continued before the upgrade: no admission recorded, and a worker that never saw it. */
async function forgetAdmission(engine: OrderEngine, runId: string, admissionsSince: string): Promise<Worker> {
  const { sql } = engine.db;
  await sql`DELETE FROM admitted_runs WHERE run_id = ${runId}`;
  await sql`UPDATE schema_migrations SET applied_at = ${admissionsSince}::timestamptz
            WHERE name = '0018_activity_evidence.sql'`;
  for (const { worker } of engine.workers.splice(0)) worker.shutdown();
  const { activities } = createTestActivities({
    ...simCredentials(engine.sim),
    repository: engine.repository,
    orderRequests: engine.orderRequests,
    actionKeys: engine.actionKeys,
    policies: EARLY_REMINDER_POLICIES_IN_FORCE,
  });
  const worker = await createOrderWorker({
    connection: engine.temporal.nativeConnection,
    namespace: engine.temporal.namespace,
    taskQueue: TASK_QUEUE,
    environment: 'staging',
    activities,
    codecKeys: engine.keyring,
    actionKeys: engine.actionKeys,
  });
  engine.workers.push({ worker, running: worker.run() });
  return worker;
}

test.serial('a run that continued as new before runs were admitted goes on, approved and bought', async (t) => {
  const { engine } = t.context;
  const runId = await continuedOrder(engine, 'UPGRADE-1');
  const waiting = await engine.orders.status(orderOf('UPGRADE-1'));
  // Upgraded an hour after the run started.
  await forgetAdmission(engine, runId, new Date(Date.now() + HOUR).toISOString());

  await engine.orders.approve(orderOf('UPGRADE-1'), {
    approverId: 'fiona',
    monthlyRate: waiting.quote!.monthlyRate,
    currency: waiting.quote!.currency,
  });
  t.is((await engine.orders.result(orderOf('UPGRADE-1'))).state, 'BOUGHT');
  const [admitted] = await engine.db.sql`SELECT * FROM admitted_runs WHERE run_id = ${runId}`;
  t.truthy(admitted, 'taken into the line of runs');
  t.deepEqual(await engine.repository.listRefusedCalls({ workflowId: workflowOf('UPGRADE-1') }), []);
});

test.serial(
  'a run started since runs are admitted, and not admitted, is refused: nothing recorded or bought',
  async (t) => {
    const { engine } = t.context;
    const runId = await continuedOrder(engine, 'UPGRADE-2');
    const waiting = await engine.orders.status(orderOf('UPGRADE-2'));
    await forgetAdmission(engine, runId, '2000-01-01T00:00:00Z');
    const before = engine.sim.state().calls.buy ?? 0;

    await engine.orders.approve(orderOf('UPGRADE-2'), {
      approverId: 'fiona',
      monthlyRate: waiting.quote!.monthlyRate,
      currency: waiting.quote!.currency,
    });
    const refused = await waitFor(async () => {
      const calls = await engine.repository.listRefusedCalls({ workflowId: workflowOf('UPGRADE-2') });
      return calls.length ? calls : undefined;
    });
    t.true(refused.every((call) => call.runId === runId && /never admitted this run/.test(call.reason)));
    t.is(engine.sim.state().calls.buy ?? 0, before, 'nothing bought');
    const records = (await engine.records('UPGRADE-2'))!;
    t.is(records.order.status, 'AWAITING_APPROVAL');
    t.deepEqual(records.approvals, [], 'the vote is not recorded');
  },
);
