/**
 * What the product refuses, on the real Temporal server beside the devserver: a requester's vote on their own order,
 * votes sent straight to Temporal unsigned or forged, and a ticket sent again. Each refusal leaves the order as it
 * was, and the histories of both servers must match event for event (a refused update leaves no event on either).
 */
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { Client, WorkflowUpdateFailedError } from '@temporalio/client';
import protoRoot from '@temporalio/proto';
import { encryptingDataConverter } from '../../codec/index.js';
import { historyShape } from '../helpers/history-shape.js';
import { namedRequest, productsFor, type ApiEngine } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import {
  assertEveryHistoryReplays,
  assertSameHistories,
  onBoth,
  orderRun,
  settledIn,
  submit,
  useBothServers,
} from './fixtures/both-servers.js';

const test = anyTest as TestFn<unknown>;
const pg = usePostgres(test);
const servers = useBothServers(test, pg);
const { EventType } = protoRoot.temporal.api.enums.v1;

const TEAM = { monthlyRate: 1618.2, currency: 'AUD' }; // MVE 8/32: one finance-approver
const FINANCE = { monthlyRate: 3236.4, currency: 'AUD' }; // MVE 16/64: two approvers

/** The order as ops see it, with what the records hold. */
async function snapshot(api: ApiEngine, ticketId: string) {
  const order = (await api.call('GET', `/api/v1/orders/${ticketId}`, { as: 'olga' })).body;
  const records = await api.records(ticketId);
  return {
    state: order.state,
    votes: order.approval?.votes.map((vote: { approverId: string }) => vote.approverId),
    timeline: order.timeline.length,
    recordedVotes: records?.approvals.length,
    recordedStatus: records?.order.status,
  };
}

test.serial('a requester with an approver role cannot approve their own order: 422, nothing changes', async (t) => {
  await onBoth(servers.engines, async (api, server) => {
    await submit(t, api, 'RS-SELF', { size: 'MVE 8/32' });
    await settledIn(api, 'RS-SELF', 'AWAITING_APPROVAL');
    const before = await snapshot(api, 'RS-SELF');
    const refused = await api.call('POST', '/api/v1/orders/RS-SELF/approve', { as: 'aliceApprover', body: TEAM });
    t.is(refused.status, 422, `${server}: ${JSON.stringify(refused.body)}`);
    t.is(refused.body.error?.code, 'REQUESTER_CANNOT_VOTE', server);
    t.deepEqual(await snapshot(api, 'RS-SELF'), before, `${server}: the order is as it was`);

    const approved = await api.call('POST', '/api/v1/orders/RS-SELF/approve', { as: 'fiona', body: TEAM });
    t.is(approved.status, 200, `${server}: ${JSON.stringify(approved.body)}`);
    await settledIn(api, 'RS-SELF', 'BOUGHT');
    t.is(productsFor(api, 'RS-SELF').length, 1, server);
  });
  await assertSameHistories(t, servers.engines, ['RS-SELF']);
});

/** The signed vote the API sent for the order, read from its history with the codec key (what an insider holds). */
async function signedVoteFromHistory(codecOnly: Client, workflowId: string): Promise<any> {
  const { events } = await codecOnly.workflow.getHandle(workflowId).fetchHistory();
  const accepted = events!.find((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED);
  const payload = accepted!.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.input!.args!.payloads![0]!;
  const [decoded] = await codecOnly.options.loadedDataConverter.payloadCodecs[0]!.decode([payload]);
  return JSON.parse(Buffer.from(decoded!.data!).toString('utf8'));
}

async function refusedUpdate(t: ExecutionContext, sending: Promise<unknown>, pattern: RegExp, server: string) {
  const error = await t.throwsAsync(sending, { instanceOf: WorkflowUpdateFailedError }, server);
  t.regex(error?.cause?.message ?? '', pattern, server);
}

test.serial(
  'votes sent straight to Temporal, unsigned or forged, are refused and change nothing; the genuine ones buy',
  async (t) => {
    await onBoth(servers.engines, async (api, server) => {
      // An insider with Temporal access and the codec key, but not the action key.
      const codecOnly = new Client({
        connection: api.temporal.env.connection,
        namespace: api.temporal.namespace,
        dataConverter: encryptingDataConverter(api.keyring),
      });
      await submit(t, api, 'RS-FORGE', { size: 'MVE 16/64' });
      await settledIn(api, 'RS-FORGE', 'AWAITING_APPROVAL');
      const { workflowId } = await orderRun(api, 'RS-FORGE');
      const handle = codecOnly.workflow.getHandle(workflowId);

      const unsigned = { approverId: 'dave', ...FINANCE };
      await refusedUpdate(
        t,
        handle.executeUpdate('approve', { args: [unsigned] }),
        /not signed by the order API/,
        server,
      );

      t.is((await api.call('POST', '/api/v1/orders/RS-FORGE/approve', { as: 'fiona', body: FINANCE })).status, 200);
      await settledIn(api, 'RS-FORGE', 'AWAITING_APPROVAL');
      const before = await snapshot(api, 'RS-FORGE');
      t.deepEqual(before.votes, ['fiona'], server);

      const fionas = await signedVoteFromHistory(codecOnly, workflowId);
      const asDave = { ...fionas, fields: { ...fionas.fields, approverId: 'dave' } };
      await refusedUpdate(t, handle.executeUpdate('approve', { args: [asDave] }), /signature does not match/, server);
      await refusedUpdate(
        t,
        handle.executeUpdate('approve', { args: [fionas] }),
        /already received once|already voted/,
        server,
      );
      t.deepEqual(await snapshot(api, 'RS-FORGE'), before, `${server}: the order is as it was`);
      t.is(productsFor(api, 'RS-FORGE').length, 0, `${server}: nothing bought`);

      t.is((await api.call('POST', '/api/v1/orders/RS-FORGE/approve', { as: 'dave', body: FINANCE })).status, 200);
      await settledIn(api, 'RS-FORGE', 'BOUGHT');
      t.is(productsFor(api, 'RS-FORGE').length, 1, `${server}: bought once`);
    });
    await assertSameHistories(t, servers.engines, ['RS-FORGE']);
  },
);

test.serial('a ticket sent again with the same body answers the order it has and starts nothing', async (t) => {
  await onBoth(servers.engines, async (api, server) => {
    const body = namedRequest('RS-AGAIN', { size: 'MVE 4/16' });
    t.is((await api.call('POST', '/api/v1/orders', { as: 'alice', body })).status, 201, server);
    await settledIn(api, 'RS-AGAIN', 'BOUGHT');
    const { workflowId, firstRunId } = await orderRun(api, 'RS-AGAIN');
    const history = await historyShape(api.client, workflowId, firstRunId);
    const buys = api.sim.state().calls.buy;

    const again = await api.call('POST', '/api/v1/orders', { as: 'alice', body });
    t.is(again.status, 200, `${server}: ${JSON.stringify(again.body)}`);
    t.like(again.body, { created: false, order: { ticketId: 'RS-AGAIN', state: 'BOUGHT' } }, server);
    const runs = await api.orders.list(`TicketId = 'RS-AGAIN'`);
    t.deepEqual(
      runs.map((run) => run.runId),
      [firstRunId],
      `${server}: one workflow run for the ticket`,
    );
    t.deepEqual(await historyShape(api.client, workflowId, firstRunId), history, `${server}: its history unchanged`);
    t.is(api.sim.state().calls.buy, buys, `${server}: no buy call`);
    t.is(productsFor(api, 'RS-AGAIN').length, 1, `${server}: one product`);
  });
  await assertSameHistories(t, servers.engines, ['RS-AGAIN']);
});

test.serial('every history of this file replays on the current workflow code', async (t) => {
  await assertEveryHistoryReplays(t, servers.engines, 3);
});
