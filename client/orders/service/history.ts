import { status as GrpcStatus } from '@grpc/grpc-js';
import { isGrpcServiceError, WorkflowNotFoundError } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import { AesGcmPayloadCodec } from '../../../codec/index.js';
import { isRecord, redactOrderRequest } from '../../../domain/index.js';
import { mayReadPayloads } from '../access.js';
import type { ApiOrder } from '../order-view.js';
import { payloadFromJson } from '../payload-json.js';
import type { Principal } from '../principal.js';
import type { OrderServiceParts } from './parts.js';
import { readOrder } from './read.js';

/** Stands where a payload was, for callers who may not read payloads. */
export const PAYLOAD_WITHHELD = '[payload withheld: ops and admins only]';

/**
 * The order's timeline from the records (state changes and notes in sequence, votes, buy attempts) and its
 * workflow's history events as Temporal's HTTP API shows them, with every payload decoded (and secrets
 * redacted) for ops and admins, withheld for everyone else.
 */
export async function orderHistory(
  parts: OrderServiceParts,
  principal: Principal,
  name: string,
  includeEvents: boolean,
) {
  const order = await readOrder(parts, principal, name);
  return {
    ...(await timelineOf(parts, order)),
    events: includeEvents ? await workflowEvents(parts, order.workflowId, mayReadPayloads(principal)) : [],
  };
}

/** The order's records in sequence: state changes and notes, votes, buy attempts. */
async function timelineOf(parts: OrderServiceParts, order: ApiOrder) {
  const records = await parts.repository.getOrder(order.workflowId);
  const timeline = records
    ? [
        ...records.events.map((event) => ({
          seq: event.sequence,
          at: event.at,
          kind: 'state' as const,
          state: event.to,
          actor: event.actor,
          text: event.reason ?? '',
        })),
        ...records.notes.map((note) => ({
          seq: note.sequence,
          at: note.at,
          kind: 'note' as const,
          actor: note.actor,
          text: note.message,
        })),
      ].sort((a, b) => a.seq - b.seq)
    : [];
  return {
    orderId: order.orderId,
    ticketId: order.ticketId,
    workflowId: order.workflowId,
    timeline,
    votes: records?.approvals ?? [],
    buyAttempts: records?.buyAttempts ?? [],
  };
}

async function workflowEvents(parts: OrderServiceParts, workflowId: string, decode: boolean): Promise<unknown[]> {
  let json: unknown;
  try {
    const history = await parts.temporal.workflow.getHandle(workflowId).fetchHistory();
    // Bytes as base64, enums by name, 64-bit numbers as strings: the shape Temporal's own HTTP API gives.
    json = proto.temporal.api.history.v1.History.toObject(history as never, {
      bytes: String,
      enums: String,
      longs: String,
    });
  } catch (error) {
    // Retention dropped it; the records remain. fetchHistory does not map the server's NOT_FOUND to
    // WorkflowNotFoundError (it passes the gRPC error on), so both are answered here.
    if (error instanceof WorkflowNotFoundError || (isGrpcServiceError(error) && error.code === GrpcStatus.NOT_FOUND))
      return [];
    throw error;
  }
  const codec = new AesGcmPayloadCodec(parts.codecKeys, { plaintext: 'pass' });
  const events = isRecord(json) && Array.isArray(json['events']) ? json['events'] : [];
  return Promise.all(
    events.map((event) =>
      replacePayloads(event, async (payload) => (decode ? decodePayload(codec, payload) : PAYLOAD_WITHHELD)),
    ),
  );
}

async function decodePayload(codec: AesGcmPayloadCodec, payloadJson: Record<string, unknown>): Promise<unknown> {
  try {
    const [decoded] = await codec.decode([payloadFromJson(payloadJson, 'payload')]);
    return { decoded: redactOrderRequest(defaultPayloadConverter.fromPayload(decoded)) };
  } catch (error) {
    return { undecodable: (error as Error).message };
  }
}

/** Walks proto3 JSON and replaces each Payload (an object of `metadata` and `data`) by what `replace` makes of it. */
async function replacePayloads(
  value: unknown,
  replace: (payload: Record<string, unknown>) => Promise<unknown>,
): Promise<unknown> {
  if (Array.isArray(value)) return Promise.all(value.map((item) => replacePayloads(item, replace)));
  if (!isRecord(value)) return value;
  if (isRecord(value['metadata']) && Object.keys(value).every((key) => key === 'metadata' || key === 'data'))
    return replace(value);
  const entries = await Promise.all(
    Object.entries(value).map(async ([key, item]) => [key, await replacePayloads(item, replace)] as const),
  );
  return Object.fromEntries(entries);
}
