/**
 * A message the workers cannot read is refused as that message, not by wedging the order (docs/security.md, "The
 * codec"), on the real Temporal server. A client without the codec key sends an order awaiting approval a plaintext
 * `approve` update and a plaintext signal: the update is refused with the reason, the signal is ignored and noted, no
 * workflow task fails, and the order goes on: the API reads it live, takes the approver's vote, and it is bought.
 */
import anyTest, { type TestFn } from 'ava';
import { Client } from '@temporalio/client';
import protoRoot from '@temporalio/proto';
import { AesGcmPayloadCodec, FAILURE_CONVERTER_PATH } from '../../codec/index.js';
import type { ApiOrder } from '../../client/http-client/index.js';
import { json } from '../helpers/json.js';
import { namedRequest, productsFor, startApiEngine, waitForApiState, type ApiEngine } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';

const test = anyTest as TestFn<{ api: ApiEngine; plaintext: Client }>;
const pg = usePostgres(test);
const { EventType } = protoRoot.temporal.api.enums.v1;
const TEAM = { monthlyRate: 1618.2, currency: 'AUD' }; // MVE 8/32: one finance approver

test.before(async (t) => {
  const api = await startApiEngine(pg, { temporal: 'real' });
  const codec = new AesGcmPayloadCodec(api.keyring);
  t.context = {
    api,
    // Sends its payloads as they are, as a client without the codec key does; reads the workers' answers with the key,
    // so the test can see what they said.
    plaintext: new Client({
      connection: api.temporal.env.connection,
      namespace: api.temporal.namespace,
      dataConverter: {
        payloadCodecs: [
          { encode: (payloads) => Promise.resolve(payloads), decode: (payloads) => codec.decode(payloads) },
        ],
        failureConverterPath: FAILURE_CONVERTER_PATH,
      },
    }),
  };
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

test('a plaintext update and signal to an order awaiting approval are refused; the approver is heard and it buys', async (t) => {
  const { api, plaintext } = t.context;
  const submitted = await api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: namedRequest('UNREAD-1', { size: 'MVE 8/32' }),
  });
  t.is(submitted.status, 201, JSON.stringify(submitted.body));
  await waitForApiState(api, 'UNREAD-1', 'AWAITING_APPROVAL');
  const { workflowId } = (await api.ticket('UNREAD-1'))!;
  const handle = plaintext.workflow.getHandle(workflowId);

  const update = await t.throwsAsync(handle.executeUpdate('approve', { args: [{ approverId: 'fiona', ...TEAM }] }));
  const cause = (update as { cause?: { type?: string; message?: string } }).cause;
  t.is(cause?.type, 'UNREADABLE_MESSAGE');
  t.regex(cause?.message ?? '', /^the approve could not be read: a payload was not encrypted with the payload codec/);

  await handle.signal('approve', { approverId: 'fiona', ...TEAM });
  const note = await waitFor(async () =>
    (await api.records('UNREAD-1'))?.notes.find((entry) => /a signal the workers could not read/.test(entry.message)),
  );
  t.regex(note.message, /was ignored: a payload was not encrypted with the payload codec/);
  t.false(note.message.includes('fiona'), 'nothing of what was sent');

  const waiting = json<ApiOrder>(await api.call('GET', '/api/v1/orders/UNREAD-1', { as: 'olga' }));
  t.is(waiting.state, 'AWAITING_APPROVAL');
  t.is(waiting.source, 'workflow', 'read live from the order, not from the records');
  t.deepEqual(waiting.approval?.votes, [], 'no vote taken');

  const approved = await api.call('POST', '/api/v1/orders/UNREAD-1/approve', { as: 'fiona', body: TEAM });
  t.is(approved.status, 200, JSON.stringify(approved.body));
  await waitFor(async () => ((await api.records('UNREAD-1'))?.order.status === 'BOUGHT' ? true : undefined));
  t.is(productsFor(api, 'UNREAD-1').length, 1, 'bought once');

  const { events } = await api.client.workflow.getHandle(workflowId).fetchHistory();
  t.false(
    events!.some((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED),
    'no workflow task failed',
  );
  t.is(events!.filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED).length, 1);
});
