/**
 * Timers on Temporal's own server, which has no time skipping: the workers' policy gives approval rounds a deadline of
 * seconds (reminders 8 s and 16 s in, expiry at 24 s), so a reminder, an expiry and a long wait that continues as new
 * all happen in real time.
 */
import anyTest, { type TestFn } from 'ava';
import { checkOrderRequest } from '../../domain/index.js';
import { SIM_KIND_MAP } from '../../tooling/sim/index.js';
import { namedRequest, productsFor, type ApiEngine } from '../helpers/api.js';
import { startCallbackReceiver, testPoliciesTimed, type CallbackReceiver } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import {
  assertEveryHistoryReplays,
  orderHistory,
  orderRun,
  settledIn,
  submit,
  useApiEngine,
} from './fixtures/scenario-engine.js';

const SECONDS_POLICIES = testPoliciesTimed('test-seconds-1', {
  deadline: '24s',
  reminders: { beforeDeadline: ['16s', '8s'] },
});
const TEAM = { monthlyRate: 1618.2, currency: 'AUD' }; // MVE 8/32: one finance-approver

const test = anyTest as TestFn<unknown>;
const pg = usePostgres(test);
const engine = useApiEngine(test, pg, { policies: SECONDS_POLICIES });
let tickets: CallbackReceiver | undefined;
test.before(async () => {
  tickets = await startCallbackReceiver();
});
test.after.always(async () => {
  await tickets?.close();
});

/** Waits until the order has expired; how it was while it waited and once expired, and how long that took. */
async function expiry(api: ApiEngine, ticketId: string, submitted: number) {
  const waiting = await settledIn(api, ticketId, 'AWAITING_APPROVAL');
  const expired = await settledIn(api, ticketId, 'EXPIRED', 120_000);
  const tookMs = Date.now() - submitted;
  return { waiting, expired, records: (await api.records(ticketId))!, tookMs };
}

test.serial(
  'an order nobody decides is reminded twice, then expires at its deadline, all told to its ticket',
  async (t) => {
    t.timeout(240_000);
    const { api } = engine;
    // Two orders side by side: one on its own, and one whose ticket system is told of each step (its notifications
    // run beside its timers).
    const submitted = Date.now();
    await submit(t, api, 'RS-EXPIRE', { size: 'MVE 8/32' });
    await submit(t, api, 'RS-EXPIRE-TOLD', { size: 'MVE 8/32', callbackUrl: tickets!.url });
    const [plain, told] = await Promise.all([
      expiry(api, 'RS-EXPIRE', submitted),
      expiry(api, 'RS-EXPIRE-TOLD', submitted),
    ]);
    for (const [ticketId, { waiting, expired, records, tookMs }] of Object.entries({
      'RS-EXPIRE': plain,
      'RS-EXPIRE-TOLD': told,
    })) {
      t.is(waiting.approval?.remindersSent, 0, ticketId);
      t.true(tookMs >= 24_000, `${ticketId}: not before the deadline (${tookMs} ms)`);
      t.is(expired.approval?.remindersSent, 2, `${ticketId}: reminded 8 s and 16 s in`);
      t.is(records.notes.filter((note) => /^reminder \d/.test(note.message)).length, 2, ticketId);
      t.is(productsFor(api, ticketId).length, 0, `${ticketId}: nothing bought`);
    }

    const notifications = await waitFor(
      () => {
        const mine = tickets!.received.filter((notification) => notification.ticketId === 'RS-EXPIRE-TOLD');
        return Promise.resolve(mine.some((notification) => notification.state === 'EXPIRED') ? mine : undefined);
      },
      60_000,
      'the ticket told of the expiry',
    );
    t.is(notifications.filter((notification) => notification.event === 'approval-reminder').length, 2);
    t.deepEqual(
      notifications
        .filter((notification) => notification.event === 'state-changed')
        .map((notification) => notification.state),
      ['LOOKING_UP', 'VALIDATING', 'AWAITING_APPROVAL', 'EXPIRED'],
    );
    t.is(tickets!.badSignatures, 0);
  },
);

test.serial('a wait that grows its history continues as a new run, and is then approved and bought', async (t) => {
  const { api } = engine;
  // Started as the intake starts it, with a continue-as-new threshold low enough for the first reminder to cross.
  const request = checkOrderRequest(namedRequest('RS-LONG', { size: 'MVE 8/32' }), {
    kindMap: SIM_KIND_MAP,
  }).request!;
  const first = await api.startRegistered({
    request,
    submittedBy: 'alice',
    options: { continueAsNewAfterEvents: 15 },
  });
  await settledIn(api, 'RS-LONG', 'AWAITING_APPROVAL');
  const handle = api.client.workflow.getHandle(first.workflowId);
  const continued = await waitFor(
    async () => {
      const description = await handle.describe();
      return description.runId !== first.firstExecutionRunId ? description : undefined;
    },
    60_000,
    'a new run',
  );
  t.is(continued.status.name, 'RUNNING');
  const resumed = await settledIn(api, 'RS-LONG', 'AWAITING_APPROVAL');
  t.is(resumed.approval?.remindersSent, 1, 'the round goes on where it was');
  t.deepEqual(resumed.approval?.votes, []);

  const approved = await api.call('POST', '/api/v1/orders/RS-LONG/approve', { as: 'fiona', body: TEAM });
  t.is(approved.status, 200, JSON.stringify(approved.body));
  const bought = await settledIn(api, 'RS-LONG', 'BOUGHT');
  t.is(productsFor(api, 'RS-LONG').length, 1, 'bought once');
  t.deepEqual(
    bought.timeline?.map((entry) => entry.state),
    // validated again after the wait, so that the price charged is the price approved
    [
      'RECEIVED',
      'LOOKING_UP',
      'VALIDATING',
      'AWAITING_APPROVAL',
      'APPROVED',
      'VALIDATING',
      'APPROVED',
      'BUYING',
      'BOUGHT',
    ],
  );
  t.is((await orderRun(api, 'RS-LONG')).firstRunId, first.firstExecutionRunId);
  const runs = await orderHistory(api, 'RS-LONG');
  t.is(runs.length, 2, 'one run continued as new, the next bought');
  t.regex(runs[0].at(-1)!, /^WORKFLOW_EXECUTION_CONTINUED_AS_NEW\b/);
  t.is(runs[1].at(-1), 'WORKFLOW_EXECUTION_COMPLETED');
});

test.serial('every history of this file replays on the current workflow code', async (t) => {
  await assertEveryHistoryReplays(t, engine.api, 3);
});
