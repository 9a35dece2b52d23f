/**
 * Timers on the real Temporal server, which has no time skipping: the workers' policy gives approval rounds a deadline
 * of seconds (reminders 8 s and 16 s in, expiry at 24 s), so a reminder, an expiry and a long wait that continues as
 * new all happen in real time — on the real server and on the devserver at once, with histories that must match.
 */
import anyTest, { type TestFn } from 'ava';
import { checkOrderRequest } from '../../domain/index.js';
import { parseApprovalPolicy, type PoliciesInForce } from '../../domain/approval/index.js';
import { SIM_KIND_MAP } from '../../sim/index.js';
import { namedRequest, productsFor, type ApiEngine } from '../helpers/api.js';
import { startCallbackReceiver, TEST_POLICIES, type CallbackReceiver } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import {
  assertEveryHistoryReplays,
  assertSameHistories,
  onBoth,
  orderRun,
  settledIn,
  SERVERS,
  submit,
  useBothServers,
  type ServerName,
} from './fixtures/both-servers.js';

const SECONDS_POLICIES: PoliciesInForce = {
  version: 'test-seconds-1',
  source: 'test',
  policies: {
    ...TEST_POLICIES,
    staging: parseApprovalPolicy({
      autoApproveBelow: { AUD: 1000, USD: 1000 },
      tiers: [
        { name: 'team', roles: ['finance-approver'], approvals: 1, upTo: { AUD: 3000, USD: 3000 } },
        { name: 'finance', roles: ['finance-approver', 'finance-director'], approvals: 2 },
      ],
      deadline: '24s',
      reminders: { beforeDeadline: ['16s', '8s'] },
      maxRiseWithoutApproval: { percent: 2 },
      maxQuoteAge: '12h',
    }),
  },
};
const TEAM = { monthlyRate: 1618.2, currency: 'AUD' }; // MVE 8/32: one finance-approver

const test = anyTest as TestFn<unknown>;
const pg = usePostgres(test);
const servers = useBothServers(test, pg, { policies: SECONDS_POLICIES });
const tickets = {} as Record<ServerName, CallbackReceiver>;
test.before(async () => {
  for (const server of SERVERS) tickets[server] = await startCallbackReceiver();
});
test.after.always(async () => {
  await Promise.all(Object.values(tickets).map((receiver) => receiver.close()));
});

/** Waits until the order has expired; how it was while it waited and once expired, and how long that took. */
async function expiry(api: ApiEngine, ticketId: string, submitted: number) {
  const waiting = await settledIn(api, ticketId, 'AWAITING_APPROVAL');
  const expired = await settledIn(api, ticketId, 'EXPIRED', 60_000);
  const tookMs = Date.now() - submitted;
  return { waiting, expired, records: (await api.records(ticketId))!, tookMs };
}

test.serial(
  'an order nobody decides is reminded twice, then expires at its deadline, all told to its ticket',
  async (t) => {
    await onBoth(servers.engines, async (api, server) => {
      // Two orders side by side: the one compared with the other server, and one whose ticket system is told of each
      // step (its notifications run beside its timers, so its history's interleaving is down to timing).
      const submitted = Date.now();
      await submit(t, api, 'RS-EXPIRE', { size: 'MVE 8/32' });
      await submit(t, api, 'RS-EXPIRE-TOLD', { size: 'MVE 8/32', callbackUrl: tickets[server].url });
      const [plain, told] = await Promise.all([
        expiry(api, 'RS-EXPIRE', submitted),
        expiry(api, 'RS-EXPIRE-TOLD', submitted),
      ]);
      for (const [ticketId, { waiting, expired, records, tookMs }] of Object.entries({
        'RS-EXPIRE': plain,
        'RS-EXPIRE-TOLD': told,
      })) {
        t.is(waiting.approval.remindersSent, 0, `${server} ${ticketId}`);
        t.true(tookMs >= 24_000, `${server} ${ticketId}: not before the deadline (${tookMs} ms)`);
        t.is(expired.approval.remindersSent, 2, `${server} ${ticketId}: reminded 8 s and 16 s in`);
        t.is(records.notes.filter((note) => /^reminder \d/.test(note.message)).length, 2, `${server} ${ticketId}`);
        t.is(productsFor(api, ticketId).length, 0, `${server} ${ticketId}: nothing bought`);
      }

      const notifications = await waitFor(
        async () => {
          const mine = tickets[server].received.filter((notification) => notification.ticketId === 'RS-EXPIRE-TOLD');
          return mine.some((notification) => notification.state === 'EXPIRED') ? mine : undefined;
        },
        20_000,
        `${server}: the ticket told of the expiry`,
      );
      t.is(notifications.filter((notification) => notification.event === 'approval-reminder').length, 2, server);
      t.deepEqual(
        notifications
          .filter((notification) => notification.event === 'state-changed')
          .map((notification) => notification.state),
        ['LOOKING_UP', 'VALIDATING', 'AWAITING_APPROVAL', 'EXPIRED'],
        server,
      );
      t.is(tickets[server].badSignatures, 0, server);
    });
    await assertSameHistories(t, servers.engines, ['RS-EXPIRE']);
  },
);

test.serial('a wait that grows its history continues as a new run, and is then approved and bought', async (t) => {
  await onBoth(servers.engines, async (api, server) => {
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
      30_000,
      `${server}: a new run`,
    );
    t.is(continued.status.name, 'RUNNING', server);
    const resumed = await settledIn(api, 'RS-LONG', 'AWAITING_APPROVAL');
    t.is(resumed.approval.remindersSent, 1, `${server}: the round goes on where it was`);
    t.deepEqual(resumed.approval.votes, [], server);

    const approved = await api.call('POST', '/api/v1/orders/RS-LONG/approve', { as: 'fiona', body: TEAM });
    t.is(approved.status, 200, `${server}: ${JSON.stringify(approved.body)}`);
    const bought = await settledIn(api, 'RS-LONG', 'BOUGHT');
    t.is(productsFor(api, 'RS-LONG').length, 1, `${server}: bought once`);
    t.deepEqual(
      bought.timeline.map((entry: { state: string }) => entry.state),
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
      server,
    );
    t.is((await orderRun(api, 'RS-LONG')).firstRunId, first.firstExecutionRunId, server);
  });
  await assertSameHistories(t, servers.engines, ['RS-LONG']);
});

test.serial('every history of this file replays on the current workflow code', async (t) => {
  await assertEveryHistoryReplays(t, servers.engines, 3);
});
