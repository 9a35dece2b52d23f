/**
 * What the product refuses, on Temporal's own server: a requester's vote on their own order, votes sent straight to
 * Temporal unsigned or forged, and a ticket sent again. Each refusal leaves the order as it was, its history included:
 * a refused update leaves no event.
 */
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { Client, WorkflowUpdateFailedError } from '@temporalio/client';
import protoRoot from '@temporalio/proto';
import { encryptingDataConverter } from '../../codec/index.js';
import { namedRequest, productsFor, type ApiEngine } from '../helpers/api.js';
import { json, type ErrorBody } from '../helpers/json.js';
import { usePostgres } from '../helpers/postgres.js';
import type { ApiOrder } from '../../client/http-client/index.js';
import type { VoteInput } from '../../workflows/order/messages.js';
import type { Signed } from '../../workflows/order/signed-action.js';
import {
  assertEveryHistoryReplays,
  eventsLike,
  orderHistory,
  orderRun,
  settledIn,
  submit,
  useApiEngine,
} from './fixtures/scenario-engine.js';

const test = anyTest as TestFn<unknown>;
const pg = usePostgres(test);
const engine = useApiEngine(test, pg);
const { EventType } = protoRoot.temporal.api.enums.v1;

const TEAM = { monthlyRate: 1618.2, currency: 'AUD' }; // MVE 8/32: one finance-approver
const FINANCE = { monthlyRate: 3236.4, currency: 'AUD' }; // MVE 16/64: two approvers

/** The order as ops see it, with what the records hold. */
async function snapshot(api: ApiEngine, ticketId: string) {
  const order = json<ApiOrder>(await api.call('GET', `/api/v1/orders/${ticketId}`, { as: 'olga' }));
  const records = await api.records(ticketId);
  return {
    state: order.state,
    votes: order.approval?.votes.map((vote) => vote.approverId),
    timeline: order.timeline?.length,
    recordedVotes: records?.approvals.length,
    recordedStatus: records?.order.status,
  };
}

/** The updates the order's history holds, as accepted and completed: refused ones must leave none. */
async function updatesIn(api: ApiEngine, ticketId: string) {
  const history = await orderHistory(api, ticketId);
  return {
    accepted: eventsLike(history, /^WORKFLOW_EXECUTION_UPDATE_ACCEPTED approve$/),
    succeeded: eventsLike(history, /^WORKFLOW_EXECUTION_UPDATE_COMPLETED succeeded$/),
    failed: eventsLike(history, /^WORKFLOW_EXECUTION_UPDATE_COMPLETED failed$/),
  };
}

test.serial('a requester with an approver role cannot approve their own order: 422, nothing changes', async (t) => {
  const { api } = engine;
  await submit(t, api, 'RS-SELF', { size: 'MVE 8/32' });
  await settledIn(api, 'RS-SELF', 'AWAITING_APPROVAL');
  const before = await snapshot(api, 'RS-SELF');
  const refused = await api.call('POST', '/api/v1/orders/RS-SELF/approve', { as: 'aliceApprover', body: TEAM });
  t.is(refused.status, 422, JSON.stringify(refused.body));
  t.is(json<Partial<ErrorBody>>(refused).error?.code, 'REQUESTER_CANNOT_VOTE');
  t.deepEqual(await snapshot(api, 'RS-SELF'), before, 'the order is as it was');

  const approved = await api.call('POST', '/api/v1/orders/RS-SELF/approve', { as: 'fiona', body: TEAM });
  t.is(approved.status, 200, JSON.stringify(approved.body));
  await settledIn(api, 'RS-SELF', 'BOUGHT');
  t.is(productsFor(api, 'RS-SELF').length, 1);
  t.deepEqual(await updatesIn(api, 'RS-SELF'), { accepted: 1, succeeded: 1, failed: 0 }, "fiona's vote alone");
});

/** The signed vote the API sent for the order, read from its history with the codec key (what an insider holds). */
async function signedVoteFromHistory(codecOnly: Client, workflowId: string): Promise<Signed<VoteInput>> {
  const { events } = await codecOnly.workflow.getHandle(workflowId).fetchHistory();
  const accepted = events!.find((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED);
  const payload = accepted!.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.input!.args!.payloads![0];
  const [decoded] = await codecOnly.options.loadedDataConverter.payloadCodecs[0].decode([payload]);
  return JSON.parse(Buffer.from(decoded.data!).toString('utf8')) as Signed<VoteInput>;
}

async function refusedUpdate(t: ExecutionContext, sending: Promise<unknown>, pattern: RegExp) {
  const error = await t.throwsAsync(sending, { instanceOf: WorkflowUpdateFailedError });
  t.regex(error?.cause?.message ?? '', pattern);
}

test.serial(
  'votes sent straight to Temporal, unsigned or forged, are refused and change nothing; the genuine ones buy',
  async (t) => {
    const { api } = engine;
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
    await refusedUpdate(t, handle.executeUpdate('approve', { args: [unsigned] }), /not signed by the order API/);

    t.is((await api.call('POST', '/api/v1/orders/RS-FORGE/approve', { as: 'fiona', body: FINANCE })).status, 200);
    await settledIn(api, 'RS-FORGE', 'AWAITING_APPROVAL');
    const before = await snapshot(api, 'RS-FORGE');
    t.deepEqual(before.votes, ['fiona']);

    const fionas = await signedVoteFromHistory(codecOnly, workflowId);
    const asDave = { ...fionas, fields: { ...fionas.fields, approverId: 'dave' } };
    await refusedUpdate(t, handle.executeUpdate('approve', { args: [asDave] }), /signature does not match/);
    await refusedUpdate(t, handle.executeUpdate('approve', { args: [fionas] }), /already received once|already voted/);
    t.deepEqual(await snapshot(api, 'RS-FORGE'), before, 'the order is as it was');
    t.is(productsFor(api, 'RS-FORGE').length, 0, 'nothing bought');

    t.is((await api.call('POST', '/api/v1/orders/RS-FORGE/approve', { as: 'dave', body: FINANCE })).status, 200);
    await settledIn(api, 'RS-FORGE', 'BOUGHT');
    t.is(productsFor(api, 'RS-FORGE').length, 1, 'bought once');
    t.deepEqual(
      await updatesIn(api, 'RS-FORGE'),
      { accepted: 2, succeeded: 2, failed: 0 },
      "fiona's and dave's votes alone",
    );
  },
);

test.serial('a ticket sent again with the same body answers the order it has and starts nothing', async (t) => {
  const { api } = engine;
  const body = namedRequest('RS-AGAIN', { size: 'MVE 4/16' });
  t.is((await api.call('POST', '/api/v1/orders', { as: 'alice', body })).status, 201);
  await settledIn(api, 'RS-AGAIN', 'BOUGHT');
  const { firstRunId } = await orderRun(api, 'RS-AGAIN');
  const history = await orderHistory(api, 'RS-AGAIN');
  const buys = api.sim.state().calls.buy;

  const again = await api.call('POST', '/api/v1/orders', { as: 'alice', body });
  t.is(again.status, 200, JSON.stringify(again.body));
  t.like(again.body, { created: false, order: { ticketId: 'RS-AGAIN', state: 'BOUGHT' } });
  const runs = await api.orders.list(`TicketId = 'RS-AGAIN'`);
  t.deepEqual(
    runs.map((run) => run.runId),
    [firstRunId],
    'one workflow run for the ticket',
  );
  t.deepEqual(await orderHistory(api, 'RS-AGAIN'), history, 'its history unchanged');
  t.is(api.sim.state().calls.buy, buys, 'no buy call');
  t.is(productsFor(api, 'RS-AGAIN').length, 1, 'one product');
});

test.serial('every history of this file replays on the current workflow code', async (t) => {
  await assertEveryHistoryReplays(t, engine.api, 3);
});
