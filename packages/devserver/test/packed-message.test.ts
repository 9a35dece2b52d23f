/**
 * A run keeps its search attributes and its start request for its life, packed into bytes of their own, never as
 * views into the request that carried them (src/packed-message.ts; the app's docs/scale.md).
 */
import test from 'ava';
import {
  packSearchAttributes,
  packStartRequest,
  searchAttributesFromEncoded,
  startRequestFromEncoded,
} from '../src/packed-message.js';
import { decodeMessage, encodeMessage } from '../src/persistence/codec.js';
import { CommandType } from '../src/proto.js';
import type { Payload, SearchAttributes } from '../src/proto.js';
import type { StartRequest } from '../src/execution.js';
import { mergeSearchAttributes } from '../src/visibility/search-attributes.js';

const keyword = (value: string): Payload => ({
  metadata: { encoding: Buffer.from('json/plain'), type: Buffer.from('Keyword') },
  data: Buffer.from(JSON.stringify(value)),
});

/** As the server gets them: decoded out of a workflow task's completion that also carries a large activity input. */
function decodedFromLargeRequest(attributes: Record<string, Payload>): SearchAttributes {
  const request = decodeMessage<{
    commands: { upsertWorkflowSearchAttributesCommandAttributes?: { searchAttributes: SearchAttributes } }[];
  }>(
    'temporal.api.workflowservice.v1.RespondWorkflowTaskCompletedRequest',
    encodeMessage('temporal.api.workflowservice.v1.RespondWorkflowTaskCompletedRequest', {
      commands: [
        {
          commandType: CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK,
          scheduleActivityTaskCommandAttributes: {
            activityId: '1',
            input: { payloads: [{ data: Buffer.alloc(20_000, 7) }] },
          },
        },
        {
          commandType: CommandType.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
          upsertWorkflowSearchAttributesCommandAttributes: { searchAttributes: { indexedFields: attributes } },
        },
      ],
    }),
  );
  return request.commands[1]!.upsertWorkflowSearchAttributesCommandAttributes!.searchAttributes;
}

const text = (attributes: SearchAttributes) =>
  Object.fromEntries(
    Object.entries(attributes.indexedFields ?? {}).map(([name, payload]) => [
      name,
      [Buffer.from(payload.data!).toString(), Buffer.from(payload.metadata!.type!).toString()],
    ]),
  );

test('search attributes decoded out of a large request are kept in a few bytes of their own, and read back the same', (t) => {
  const upsert = decodedFromLargeRequest({ OrderStatus: keyword('AWAITING_APPROVAL'), TicketId: keyword('T-1') });
  t.true(
    upsert.indexedFields!.OrderStatus!.data!.buffer.byteLength > 20_000,
    'decoded fields are views into the whole request',
  );

  const packed = packSearchAttributes(upsert);
  t.true(packed.encoded.buffer.byteLength < 200, `kept ${packed.encoded.buffer.byteLength} bytes`);
  t.deepEqual(text(packed.unpack()), {
    OrderStatus: ['"AWAITING_APPROVAL"', 'Keyword'],
    TicketId: ['"T-1"', 'Keyword'],
  });
  t.deepEqual(
    text(searchAttributesFromEncoded(packed.encoded).unpack()),
    text(packed.unpack()),
    'from a stored encoding',
  );
});

test('an upsert merged into packed attributes replaces, adds and removes values', (t) => {
  const started = packSearchAttributes({
    indexedFields: { TicketId: keyword('T-2'), OrderStatus: keyword('RECEIVED'), Environment: keyword('staging') },
  });
  const upsert = decodedFromLargeRequest({
    OrderStatus: keyword('BOUGHT'),
    MonthlyRate: keyword('12.5'),
    Environment: { metadata: {}, data: Buffer.from('null') },
  });
  const merged = packSearchAttributes(mergeSearchAttributes(started.unpack(), upsert));
  t.deepEqual(text(merged.unpack()), {
    TicketId: ['"T-2"', 'Keyword'],
    OrderStatus: ['"BOUGHT"', 'Keyword'],
    MonthlyRate: ['"12.5"', 'Keyword'],
  });
  t.deepEqual(
    text(started.unpack()).OrderStatus,
    ['"RECEIVED"', 'Keyword'],
    'the packed value before the upsert is unchanged',
  );
});

test('a run started without search attributes has none, and what a caller changes in a read is not kept', (t) => {
  const none = packSearchAttributes(undefined);
  t.deepEqual(none.unpack().indexedFields ?? {}, {});
  const packed = packSearchAttributes({ indexedFields: { TicketId: keyword('T-3') } });
  delete packed.unpack().indexedFields!.TicketId;
  t.deepEqual(Object.keys(packed.unpack().indexedFields!), ['TicketId']);
});

test('a start request is kept packed and reads back whole: its input, timeouts and retry policy', (t) => {
  const request = {
    namespace: 'default',
    workflowId: 'mve-order-T-4',
    workflowType: { name: 'orderWorkflow' },
    taskQueue: { name: 'mve-orders.staging' },
    input: { payloads: [{ metadata: { encoding: Buffer.from('binary/encrypted') }, data: Buffer.alloc(1_500, 3) }] },
    workflowRunTimeout: { seconds: 86_400 * 30 },
    retryPolicy: { maximumAttempts: 3, initialInterval: { seconds: 1 } },
    cronSchedule: '0 * * * *',
    requestId: 'request-1',
  };
  // durations as the engine writes them, seconds as numbers (the generated type says Long)
  const packed = packStartRequest(request as unknown as StartRequest);
  const read = startRequestFromEncoded(packed.encoded).unpack();
  t.is(read.workflowId, 'mve-order-T-4');
  t.is(read.requestId, 'request-1');
  t.is(read.cronSchedule, '0 * * * *');
  t.deepEqual(read.workflowRunTimeout, { seconds: 86_400 * 30 }, '64-bit seconds read back as numbers');
  t.is(read.retryPolicy?.maximumAttempts, 3);
  t.deepEqual(Buffer.from(read.input!.payloads![0]!.data!), Buffer.alloc(1_500, 3));
  t.is(packed.encoded.buffer.byteLength, packed.encoded.byteLength, 'the bytes are a buffer of their own');
});
