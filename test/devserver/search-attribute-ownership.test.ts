/**
 * A run keeps its search attributes for its life, so it keeps its own copy of their bytes, never views into the
 * request that carried them (devserver/visibility/search-attributes.ts, ownedPayload; docs/scale.md).
 */
import test from 'ava';
import { decodeMessage, encodeMessage } from '../../devserver/persistence/codec.js';
import { CommandType } from '../../devserver/proto.js';
import type { Payload, SearchAttributes } from '../../devserver/proto.js';
import { mergeSearchAttributes, ownedSearchAttributes } from '../../devserver/visibility/search-attributes.js';

const keyword = (value: string): Payload => ({
  metadata: { encoding: Buffer.from('json/plain'), type: Buffer.from('Keyword') },
  data: Buffer.from(JSON.stringify(value)),
});

/** As the server gets them: decoded out of a workflow task's completion that also carries a large activity input. */
function decodedFromLargeRequest(attributes: Record<string, Payload>): SearchAttributes {
  const request = decodeMessage<{ commands: { upsertWorkflowSearchAttributesCommandAttributes?: { searchAttributes: SearchAttributes } }[] }>(
    'temporal.api.workflowservice.v1.RespondWorkflowTaskCompletedRequest',
    encodeMessage('temporal.api.workflowservice.v1.RespondWorkflowTaskCompletedRequest', {
      commands: [
        { commandType: CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK, scheduleActivityTaskCommandAttributes: { activityId: '1', input: { payloads: [{ data: Buffer.alloc(20_000, 7) }] } } },
        { commandType: CommandType.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, upsertWorkflowSearchAttributesCommandAttributes: { searchAttributes: { indexedFields: attributes } } },
      ],
    }),
  );
  return request.commands[1]!.upsertWorkflowSearchAttributesCommandAttributes!.searchAttributes;
}

/** The size of every buffer a payload's bytes keep alive. */
const retained = (payload: Payload) => [payload.data!, ...Object.values(payload.metadata ?? {})].map((bytes) => bytes.buffer.byteLength);

test('an upserted search attribute keeps its own bytes, not the request it came in', (t) => {
  const upsert = decodedFromLargeRequest({ OrderStatus: keyword('AWAITING_APPROVAL') });
  t.true(retained(upsert.indexedFields!.OrderStatus!).every((size) => size > 20_000), 'decoded fields are views into the whole request');

  const merged = mergeSearchAttributes({ indexedFields: { TicketId: keyword('T-1') } }, upsert);
  const kept = merged.indexedFields!.OrderStatus!;
  t.deepEqual(Buffer.from(kept.data!).toString(), '"AWAITING_APPROVAL"');
  t.deepEqual(Buffer.from(kept.metadata!.type!).toString(), 'Keyword');
  t.deepEqual(Buffer.from(kept.metadata!.encoding!).toString(), 'json/plain');
  t.true(retained(kept).every((size) => size < 100), `kept ${retained(kept)} bytes`);
  t.deepEqual(Buffer.from(merged.indexedFields!.TicketId!.data!).toString(), '"T-1"');
});

test('a run started with search attributes keeps its own copy of them', (t) => {
  const started = ownedSearchAttributes(decodedFromLargeRequest({ TicketId: keyword('T-2'), Environment: keyword('staging') }));
  t.deepEqual(Object.keys(started.indexedFields!).sort(), ['Environment', 'TicketId']);
  t.deepEqual(Buffer.from(started.indexedFields!.Environment!.data!).toString(), '"staging"');
  for (const payload of Object.values(started.indexedFields!)) t.true(retained(payload).every((size) => size < 100));
  t.deepEqual(ownedSearchAttributes(undefined), { indexedFields: {} });
});

test('an upsert with an empty value still removes the attribute', (t) => {
  const merged = mergeSearchAttributes({ indexedFields: { OrderStatus: keyword('BOUGHT') } }, decodedFromLargeRequest({ OrderStatus: { metadata: {}, data: Buffer.from('null') } }));
  t.deepEqual(merged.indexedFields, {});
});
