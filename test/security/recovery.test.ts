/**
 * Ops' way back for an order whose run no longer goes on (docs/security.md, "Recovering an order"), on the real
 * Temporal server through the HTTP API: an order wedged by a signal under a key id the workers do not hold, and one
 * whose run someone ended with `temporal workflow reset` (its copy refused). `POST …/recover` resets the latest
 * admitted run to its last completed workflow task; the workers let that run go on, the approver's vote is taken, and
 * it is bought once. A healthy or ended order is not recovered, and only ops may.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import anyTest, { type TestFn } from 'ava';
import protoRoot from '@temporalio/proto';
import type { OrderRecovery } from '../../client/http-client/index.js';
import { json, type ErrorBody } from '../helpers/json.js';
import { namedRequest, productsFor, startApiEngine, waitForApiState, type ApiEngine } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import { workflowOf } from '../helpers/orders.js';
import { temporalCli } from '../helpers/real-temporal.js';
import { waitFor } from '../helpers/wait.js';

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);
const { EventType } = protoRoot.temporal.api.enums.v1;
const TEAM = { monthlyRate: 1618.2, currency: 'AUD' }; // MVE 8/32: one finance-approver

test.before(async (t) => {
  t.context = { api: await startApiEngine(pg, { temporal: 'real' }) };
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

async function waitingOrder(api: ApiEngine, ticketId: string): Promise<void> {
  const submitted = await api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: { ...namedRequest(ticketId, { size: 'MVE 8/32' }), requestedBy: undefined },
  });
  if (submitted.status !== 201) throw new Error(`not submitted: ${JSON.stringify(submitted.body)}`);
  await waitForApiState(api, ticketId, 'AWAITING_APPROVAL', 60_000);
}

const recover = (api: ApiEngine, ticketId: string, as: 'olga' | 'alice' = 'olga') =>
  api.call('POST', `/api/v1/orders/${ticketId}/recover`, { as, body: { reason: 'found it stuck' } });

async function approveAndBuy(t: { is: (a: unknown, b: unknown, m?: string) => void }, api: ApiEngine, id: string) {
  // A recovered run reads as it is replayed (RECEIVED at first) until it has caught up with its history.
  await waitForApiState(api, id, 'AWAITING_APPROVAL', 60_000);
  const approved = await api.call('POST', `/api/v1/orders/${id}/approve`, { as: 'fiona', body: TEAM });
  t.is(approved.status, 200, JSON.stringify(approved.body));
  await waitForApiState(api, id, 'BOUGHT', 60_000);
  t.is(productsFor(api, id).length, 1, 'bought once');
}

test.serial(
  'an order wedged by a message under an unknown key id is recovered by ops, then approved and bought',
  async (t) => {
    const { api } = t.context;
    await waitingOrder(api, 'RC-WEDGED');
    const workflowId = workflowOf('RC-WEDGED');
    // Anyone can label a payload with a key id the workers do not hold: its workflow task fails, and is retried.
    await api.client.workflowService.signalWorkflowExecution({
      namespace: api.temporal.namespace,
      workflowExecution: { workflowId },
      signalName: 'approve',
      input: {
        payloads: [
          {
            metadata: {
              encoding: new TextEncoder().encode('binary/encrypted'),
              'encryption-key-id': new TextEncoder().encode('nobody-holds-this'),
            },
            data: randomBytes(64),
          },
        ],
      },
      identity: 'attacker',
    });
    await waitFor(async () => {
      const { events } = await api.client.workflow.getHandle(workflowId).fetchHistory();
      return events?.some((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED) ? true : undefined;
    });

    const recovered = await recover(api, 'RC-WEDGED');
    t.is(recovered.status, 200, JSON.stringify(recovered.body));
    t.not(json<OrderRecovery>(recovered).runId, json<OrderRecovery>(recovered).recoveredRunId);
    const [recorded] = await api.repository.listRecoveries(workflowId);
    t.like(recorded, {
      actor: 'olga',
      reason: 'found it stuck',
      fromRunId: json<OrderRecovery>(recovered).recoveredRunId,
    });
    t.is(recorded?.toRunId, json<OrderRecovery>(recovered).runId, 'the new run took its place');
    // What a worker reads to let the new run in, had it acted before the API adopted it: its history names the reset.
    t.deepEqual(await api.orderRequests.resetOf!({ workflowId, runId: json<OrderRecovery>(recovered).runId }), {
      baseRunId: json<OrderRecovery>(recovered).recoveredRunId,
      eventId: json<OrderRecovery>(recovered).resetToEventId,
    });
    await approveAndBuy(t, api, 'RC-WEDGED');
  },
);

test.serial(
  'an order whose run was reset by someone goes on once ops recover it, approved and bought once',
  async (t) => {
    const { api } = t.context;
    await waitingOrder(api, 'RC-RESET');
    const workflowId = workflowOf('RC-RESET');
    await promisify(execFile)(temporalCli(), [
      'workflow',
      'reset',
      '--address',
      api.temporal.address,
      '--namespace',
      api.temporal.namespace,
      '--workflow-id',
      workflowId,
      '--type',
      'FirstWorkflowTask',
      '--reason',
      'test: someone resets a waiting order',
    ]);
    // The reset's copy is refused at admission; the order no longer goes on.
    await waitFor(async () => ((await api.repository.listRefusedRuns({ workflowId })).length ? true : undefined));
    const before = (await api.repository.getOrder(workflowId))!;
    t.is(before.order.status, 'AWAITING_APPROVAL');

    const recovered = await recover(api, 'RC-RESET');
    t.is(recovered.status, 200, JSON.stringify(recovered.body));
    await approveAndBuy(t, api, 'RC-RESET');
    t.deepEqual(
      (await api.repository.getOrder(workflowId))!.events.slice(0, before.events.length),
      before.events,
      'nothing recorded before was taken back',
    );
  },
);

test.serial('a healthy or ended order is not recovered, and only ops and admins may recover', async (t) => {
  const { api } = t.context;
  await waitingOrder(api, 'RC-HEALTHY');
  const healthy = await recover(api, 'RC-HEALTHY');
  t.is(healthy.status, 409);
  t.is(json<Partial<ErrorBody>>(healthy).error?.code, 'NOT_WEDGED');
  t.is((await recover(api, 'RC-HEALTHY', 'alice')).status, 403);
  const cancelled = await api.call('POST', '/api/v1/orders/RC-HEALTHY/cancel', {
    as: 'alice',
    body: { reason: 'no longer needed' },
  });
  t.is(cancelled.status, 200, JSON.stringify(cancelled.body));
  const ended = await recover(api, 'RC-HEALTHY');
  t.is(ended.status, 409);
  t.is(json<Partial<ErrorBody>>(ended).error?.code, 'NOT_RECOVERABLE');
  t.regex(json<Partial<ErrorBody>>(ended).error?.message ?? '', /the order has ended \(CANCELLED\)/);
  t.deepEqual(await api.repository.listRecoveries(workflowOf('RC-HEALTHY')), [], 'nothing recorded');
});
