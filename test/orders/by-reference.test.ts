/**
 * The request carried once: an order's history holds its request in the workflow's start input only. The buy and
 * the journal read it from there (by reference, decrypted with the worker's data converter) and know their run from
 * their activity context; the journal names the approval policy by version and hash (its rules are stored once per
 * hash). Postgres still has the redacted request and the whole policy. Real worker, the time-skipping test server, simulator, PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import anyTest, { type TestFn } from 'ava';
import type { Client } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { policyHash } from '../../activities/order/index.js';
import type { BuyAnswer, JournalEntry } from '../../workflows/order/activity-types.js';
import {} from '../../client/orders/index.js';
import { checkOrderRequest, redactOrderRequest } from '../../domain/index.js';
import type { OrderRequest } from '../../schemas/index.js';
import { SIM_KIND_MAP } from '../../tooling/sim/index.js';
import type { OrderWorkflowInput } from '../../workflows/order/types.js';
import { usePostgres } from '../helpers/postgres.js';
import {
  orderOf,
  startOrderEngine,
  sydneyRequest,
  TEST_POLICIES,
  TEST_POLICIES_IN_FORCE,
  workflowOf,
  type OrderEngine,
} from '../helpers/orders.js';
import { waitFor, waitForState } from '../helpers/wait.js';

const test = anyTest as TestFn<{ engine: OrderEngine }>;
const pg = usePostgres(test);
const HOUR = 3_600_000;

/**
 * The buys the worker ran, with their input as the activity got it and their run. The buy is a local activity (in its
 * workflow task), so its input is not in history.
 */
const buys: Array<{ workflowId: string; runId: string; input: Record<string, unknown> }> = [];

test.before(async (t) => {
  // An order continues as new at its first reminder, 49 h in: on the time-skipping server, in milliseconds.
  const engine = await startOrderEngine(pg, { worker: false, temporal: 'time-skipping' });
  const buy = engine.activities.buyOrder.bind(engine.activities);
  engine.activities.buyOrder = (input) => {
    const { workflowId, runId } = Context.current().info.workflowExecution!;
    buys.push({ workflowId, runId, input: input as unknown as Record<string, unknown> });
    return buy(input);
  };
  engine.workers.push(await engine.startWorker());
  t.context.engine = engine;
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
});

const CANARY = `CANARY-${randomBytes(12).toString('hex')}`;
const LICENSE = Buffer.from(`-----BEGIN LICENSE-----\n${CANARY}\n-----END LICENSE-----\n`).toString('base64');

/** A request with a secret in its vendorConfig (the license), checked as the client checks it. */
function secretRequest(ticketId: string, size: string): OrderRequest {
  const base = sydneyRequest(ticketId);
  const checked = checkOrderRequest(
    { ...base, size, vendorConfig: { ...(base['vendorConfig'] as object), licenseData: LICENSE } },
    { kindMap: SIM_KIND_MAP },
  );
  if (!checked.request) throw new Error(`the test request does not check: ${JSON.stringify(checked.errors)}`);
  return checked.request;
}

/** How long one run's history is, and the ordinary activities it scheduled (their types). */
async function scheduledActivities(
  client: Client,
  workflowId: string,
): Promise<{ events: number; scheduled: string[] }> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = (history.events ?? []).flatMap(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
  );
  return { events: history.events?.length ?? 0, scheduled };
}

/** The field names anywhere in a JSON value. */
function fieldNames(value: unknown, names = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((item) => fieldNames(item, names));
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      names.add(key);
      fieldNames(inner, names);
    }
  }
  return names;
}

test.serial(
  'an auto-approved order: the buy and the journal carry no request, vendorConfig, warnings or policy rules; Postgres has them all',
  async (t) => {
    const { engine } = t.context;
    const request = secretRequest('REF-1', 'MVE 4/16'); // 809.10 AUD: auto-approved
    const { workflowId } = await engine.submit(request);
    t.is((await engine.orders.result(orderOf('REF-1'))).state, 'BOUGHT', 'bought with the request read from the run');
    const { runId } = await engine.client.workflow.getHandle(workflowId).describe();

    const { events, scheduled } = await scheduledActivities(engine.client, workflowId);
    t.true(events <= 30, `${events} history events`);
    t.deepEqual(
      scheduled,
      [],
      'no activity task: the buy ran in its workflow task, and wrote the journal, before and after',
    );
    const ran = buys.filter((buy) => buy.workflowId === workflowId);
    t.is(ran.length, 1);
    const buy = ran[0];
    t.deepEqual(
      Object.keys(buy.input).sort(),
      ['attempt', 'journal', 'recordCreated', 'targets'],
      'the buy carries its journal, to write before it sends',
    );
    const { journal: buyJournal, recordCreated, ...buyOwn } = buy.input;
    t.deepEqual(recordCreated, { seq: (buyJournal as JournalEntry[]).at(-1)!.seq, actor: 'engine' });
    const buyFields = fieldNames(buyOwn);
    for (const field of ['request', 'vendorConfig', 'warnings', 'workflowId', 'runId', 'environment'])
      t.false(buyFields.has(field), `the buy's input has no ${field}`);
    t.false(JSON.stringify(buy.input).includes(CANARY));
    t.true(JSON.stringify(buyOwn).length < 200, "the buy's own fields are a few ids");

    const fields = fieldNames(buyJournal);
    t.false(
      fields.has('request') || fields.has('vendorConfig') || fields.has('policy'),
      `no request and no policy rules: ${[...fields].join(', ')}`,
    );
    const entries = buyJournal as JournalEntry[];
    const received = entries.find((entry) => entry.type === 'received')!;
    t.deepEqual(Object.keys(received).sort(), ['at', 'seq', 'type']);
    const policy = entries.find((entry) => entry.type === 'policy')!;
    t.deepEqual(policy, {
      type: 'policy',
      seq: policy.seq,
      at: policy.at,
      version: TEST_POLICIES_IN_FORCE.version,
      hash: policyHash(TEST_POLICIES.staging),
    });

    // Postgres: the request (redacted, read from the run), the run, and the policy with its rules.
    const view = (await engine.repository.getOrder(workflowId))!;
    t.deepEqual(view.order.request, redactOrderRequest(request) as unknown as Record<string, unknown>);
    t.is((view.order.request['vendorConfig'] as Record<string, unknown>)['licenseData'], '[redacted]');
    t.is(view.order.runId, runId);
    t.deepEqual(
      view.buyAttempts.map((attempt) => [attempt.attempt, attempt.outcome, attempt.runId]),
      [[1, 'created', runId]],
    );
    const [row] = await engine.db
      .sql`SELECT policy_version, policy_hash, policy FROM orders WHERE workflow_id = ${workflowId}`;
    const rules = JSON.parse(JSON.stringify(TEST_POLICIES.staging)) as unknown;
    t.deepEqual(
      { ...row },
      { policy_version: TEST_POLICIES_IN_FORCE.version, policy_hash: policyHash(TEST_POLICIES.staging), policy: rules },
    );
    const [stored] = await engine.db
      .sql`SELECT policy FROM approval_policies WHERE hash = ${policyHash(TEST_POLICIES.staging)}`;
    t.deepEqual(stored?.['policy'], rules, 'the rules, stored once by hash');
    t.false(JSON.stringify(view).includes(CANARY));
  },
);

test.serial('a run that continued as new reads the request from its own start input, and buys with it', async (t) => {
  const { engine } = t.context;
  const ticketId = 'REF-CAN';
  const workflowId = workflowOf(ticketId);
  const input: OrderWorkflowInput = {
    request: secretRequest(ticketId, 'MVE 8/32'),
    options: { continueAsNewAfterEvents: 10 },
  }; // one approver; continues as new when it first waits
  const first = await engine.startRegistered(input);
  const waiting = await waitForState(engine.orders, ticketId, 'AWAITING_APPROVAL');
  let hours = 0;
  await waitFor(
    async () => {
      const description = await engine.client.workflow.getHandle(workflowId).describe();
      if (description.runId !== first.firstExecutionRunId) return true;
      if (hours >= 60) throw new Error('no new run after 60 hours of waiting');
      await engine.temporal.env.sleep(HOUR);
      hours++;
      return undefined;
    },
    120_000,
    'a new run',
  );
  t.is((await engine.orders.status(orderOf(ticketId))).state, 'AWAITING_APPROVAL');

  await engine.orders.approve(orderOf(ticketId), {
    approverId: 'fiona',
    monthlyRate: waiting.quote!.monthlyRate,
    currency: waiting.quote!.currency,
  });
  t.is((await engine.orders.result(orderOf(ticketId))).state, 'BOUGHT');
  const { runId: lastRunId } = await engine.client.workflow.getHandle(workflowId).describe();
  t.not(lastRunId, first.firstExecutionRunId);

  // The buy was made by a later run, with no request in its input: it read the request from that run's input.
  const buy = buys.find((ran) => ran.workflowId === workflowId);
  t.is(buy?.runId, lastRunId, 'the last run bought');
  t.false(fieldNames(buy!.input).has('request'));
  const view = (await engine.repository.getOrder(workflowId))!;
  t.is(view.order.runId, first.firstExecutionRunId, 'the order names the run that received it');
  t.deepEqual(
    view.buyAttempts.map((attempt) => [attempt.outcome, attempt.runId]),
    [['created', lastRunId]],
    'the attempt names the run that made it',
  );
});

test.serial(
  'a buy whose request cannot be read sends nothing, and is a clean "not created" worth retrying',
  async (t) => {
    const { engine } = t.context;
    const sent = engine.apiLog.length;
    // An admitted run whose start input Temporal does not know: the buy, a local activity of the run, cannot read it.
    const run = { workflowId: 'mve-order-NO-SUCH', runId: '00000000-0000-4000-8000-000000000000' };
    await engine.repository.admitRun({ ...run, firstRunId: run.runId, continuedFromRunId: null });
    const environment = new MockActivityEnvironment({ workflowExecution: run, isLocal: true });
    const outcome: BuyAnswer = await environment.run(engine.activities.buyOrder.bind(engine.activities), {
      targets: { location: { id: 101 }, image: { id: 101, vendor: 'Fortinet', product: 'FortiGate-VM' } },
      attempt: 1,
      journal: [],
      recordCreated: { seq: 1, actor: 'engine' },
    });
    t.like(outcome, { outcome: 'not-created', retryable: true, error: { type: 'OrderRequestUnavailable' } });
    t.is(engine.apiLog.length, sent, 'no API call was made');
  },
);
