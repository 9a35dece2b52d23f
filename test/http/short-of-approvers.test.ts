/**
 * An order no one can approve, through real HTTP against the real worker on Temporal: a ticket system submits for a
 * requester who is the only holder of the tier's role. The order says so (API, timeline, console order page, ops
 * view); an order someone else can approve says nothing; and once someone is given the role, the order reads the
 * directory again, the warning goes and they approve it.
 */
import anyTest, { type TestFn } from 'ava';
import { formatStatus } from '../../client/cli/commands/order-view.js';
import { issueApiToken } from '../../client/http/index.js';
import type { ApiOrder } from '../../client/http-client/index.js';
import { parseApprovalPolicy } from '../../domain/approval/index.js';
import { namedRequest, waitForApiState, type ApiEngine } from '../helpers/api.js';
import { json } from '../helpers/json.js';
import { replayEveryHistory, TEST_POLICIES } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import { Client, startConsole, type ConsoleHarness } from '../console/harness.js';

const test = anyTest as TestFn<{ harness: ConsoleHarness; ops: Client }>;
const pg = usePostgres(test);

/**
 * Staging as the tests have it, but the one-approver tier (MVE 8/32, 1,618.20 AUD) is decided by finance-director,
 * which only dave holds in the test directory; a round short of approvers reads the directory again every second.
 */
const POLICIES = {
  version: 'test-director-2',
  source: 'test',
  policies: {
    ...TEST_POLICIES,
    staging: parseApprovalPolicy({
      autoApproveBelow: { AUD: 1000, USD: 1000 },
      tiers: [
        { name: 'director', roles: ['finance-director'], approvals: 1, upTo: { AUD: 3000, USD: 3000 } },
        { name: 'finance', roles: ['finance-approver', 'finance-director'], approvals: 2 },
      ],
      deadline: '72h',
      reminders: { beforeDeadline: ['24h', '1h'] },
      maxRiseWithoutApproval: { percent: 2 },
      maxQuoteAge: '12h',
      directoryRecheck: '1s',
    }),
  },
};

test.before(async (t) => {
  t.context.harness = await startConsole(pg, { browser: false, engine: { policies: POLICIES } });
  t.context.ops = new Client(t.context.harness.url);
  await t.context.ops.signIn('olga');
});
test.after.always(async (t) => {
  await t.context.harness?.stop();
});

/** ticket-bot submits an MVE 8/32 for `requestedBy`; answers the order once it awaits approval. */
async function submittedFor(api: ApiEngine, ticketId: string, requestedBy: string): Promise<ApiOrder> {
  const response = await api.call('POST', '/api/v1/orders', {
    as: 'ticket-bot',
    body: namedRequest(ticketId, { size: 'MVE 8/32', requestedBy }),
  });
  if (response.status !== 201) throw new Error(JSON.stringify(response.body));
  return waitForApiState(api, ticketId, 'AWAITING_APPROVAL');
}

async function orderAs(api: ApiEngine, ticketId: string): Promise<ApiOrder> {
  return json<ApiOrder>(await api.call('GET', `/api/v1/orders/${ticketId}`, { as: 'ticket-bot' }));
}

/** The tickets the ops view lists as no one able to approve them. */
async function listedAsShort(ops: Client): Promise<string[]> {
  const page = await ops.request('GET', '/ops');
  if (page.status !== 200) throw new Error(`/ops: ${page.status}`);
  return [...page.text.matchAll(/data-testid="attention-short-of-approvers" data-ticket="([^"]+)"/g)].map(
    (match) => match[1],
  );
}

test.serial(
  'ticket-bot orders for the only holder of the role: the order, its timeline and the ops view say no one can approve it',
  async (t) => {
    const { harness, ops } = t.context;
    const { api } = harness;
    await submittedFor(api, 'NOAPP-1', 'dave');
    const order = await waitFor(
      async () => {
        const current = await orderAs(api, 'NOAPP-1');
        return current.approval?.shortOfApprovers ? current : undefined;
      },
      20_000,
      'the warning',
    );
    t.is(order.approval?.eligibleApprovers, 0);
    t.like(order.approval?.shortOfApprovers, { eligible: 0, needed: 1 });
    t.is(
      order.approval?.shortOfApprovers?.message,
      'no one can approve this order: the "director" tier needs 1 approval and no active approver but the requester (dave) holds finance-director; give one more person one of these roles in the approver directory, or cancel the order',
    );
    t.truthy(order.approval?.shortOfApprovers?.nextDirectoryReadAt, 'says when it looks again');
    t.regex(
      formatStatus(order),
      /\n {2}warning {6}no one can approve this order: .* \(the directory is read again at /,
    );

    const history = await waitFor(
      async () => {
        const answer = await api.call('GET', '/api/v1/orders/NOAPP-1/history?events=false', { as: 'ticket-bot' });
        const body = json<{ timeline: Array<{ kind: string; text: string }> }>(answer);
        return body.timeline.some((line) => line.kind === 'note' && line.text.startsWith('no one can approve'))
          ? body
          : undefined;
      },
      20_000,
      'the note on the timeline',
    );
    t.truthy(history);
    t.deepEqual(await listedAsShort(ops), ['NOAPP-1']);
    const page = await ops.request('GET', '/orders/NOAPP-1');
    t.regex(page.text, /data-testid="short-of-approvers"/);
    t.regex(page.text, /mve-orders approvers update/);
  },
);

test.serial('an order someone else can approve says nothing of the kind', async (t) => {
  const { harness, ops } = t.context;
  const order = await submittedFor(harness.api, 'NOAPP-2', 'pat');
  t.is(order.approval?.eligibleApprovers, 1, 'dave');
  t.is(order.approval?.shortOfApprovers, undefined);
  t.notRegex(formatStatus(order), /warning/);
  t.false((await listedAsShort(ops)).includes('NOAPP-2'));
  const page = await ops.request('GET', '/orders/NOAPP-2');
  t.notRegex(page.text, /data-testid="short-of-approvers"/);
});

test.serial(
  'someone given the role meanwhile: the order reads the directory again, the warning goes, and they approve it',
  async (t) => {
    const { harness, ops } = t.context;
    const { api } = harness;
    await api.repository.addApprover({ id: 'dora', displayName: 'Dora Director', roles: ['finance-director'] });
    const found = await waitFor(
      async () => {
        const current = await orderAs(api, 'NOAPP-1');
        return current.approval?.eligibleApprovers === 1 ? current : undefined;
      },
      20_000,
      'dora counted',
    );
    t.is(found.approval?.shortOfApprovers, undefined, 'the warning is gone');
    t.deepEqual(await listedAsShort(ops), []);

    const dora = (await issueApiToken(api.repository, { owner: 'dora', roles: ['finance-director'] })).token;
    const approved = await api.call('POST', '/api/v1/orders/NOAPP-1/approve', {
      token: dora,
      body: { monthlyRate: found.quote!.monthlyRate, currency: found.quote!.currency },
    });
    t.is(approved.status, 200, JSON.stringify(approved.body));
    await waitForApiState(api, 'NOAPP-1', 'BOUGHT');
    const answer = await api.call('GET', '/api/v1/orders/NOAPP-1/history?events=false', { as: 'ticket-bot' });
    const notes = json<{ timeline: Array<{ kind: string; text: string }> }>(answer).timeline.filter(
      (line) => line.kind === 'note',
    );
    t.true(
      notes.some(
        (line) => line.text === 'approvers found: dora may now approve 1618.2 AUD (the "director" tier needs 1)',
      ),
    );
  },
);

test.serial('every history of this file replays cleanly', async (t) => {
  const { replayed, failures } = await replayEveryHistory(t.context.harness.api);
  t.true(replayed >= 2, `replayed ${replayed}`);
  t.deepEqual(failures, []);
});
