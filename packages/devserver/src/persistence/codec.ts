/**
 * Protobuf encoding of what the durable store writes: history events (as `temporal.api.history.v1.HistoryEvent`,
 * the form the real server stores them in) and the protobuf parts of a run's record (failures, payloads, update
 * requests, the start request). Decoded messages come back as plain objects with numbers for 64-bit fields,
 * like the ones the engine builds.
 */
import { withEventDefaults } from '../event-history.js';
import { eventAttributesKey, reflection } from '../proto.js';
import type { HistoryEvent, ReflectedType } from '../proto.js';

export const TYPES = {
  event: 'temporal.api.history.v1.HistoryEvent',
  failure: 'temporal.api.failure.v1.Failure',
  payloads: 'temporal.api.common.v1.Payloads',
  memo: 'temporal.api.common.v1.Memo',
  searchAttributes: 'temporal.api.common.v1.SearchAttributes',
  updateRequest: 'temporal.api.update.v1.Request',
  startRequest: 'temporal.api.workflowservice.v1.StartWorkflowExecutionRequest',
} as const;

const types = new Map<string, ReflectedType>();
function type(name: string): ReflectedType {
  let found = types.get(name);
  if (!found) types.set(name, (found = reflection.lookupType(name)));
  return found;
}

export function encodeMessage(typeName: string, value: object): Buffer {
  const t = type(typeName);
  const bytes = t.encode(t.fromObject(value)).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function decodeMessage<T = Record<string, unknown>>(typeName: string, bytes: Uint8Array): T {
  const t = type(typeName);
  // From a copy of its own: decoded bytes fields are views into the input, which is often a slice of a shared
  // 8 KiB pool slab (the database driver's), and a loaded run keeps them for its life.
  return t.toObject(t.decode(new Uint8Array(bytes)), { longs: Number }) as T;
}

/** The bytes in an ArrayBuffer of their own, for keeping: a small encoded message is a slice of a shared pool slab. */
export function ownedBytes(bytes: Uint8Array): Buffer {
  const copy = new Uint8Array(bytes);
  return Buffer.from(copy.buffer, 0, copy.byteLength);
}

/** For protobuf values inside a JSON record. */
export function encodeBase64(typeName: string, value: object): string {
  return encodeMessage(typeName, value).toString('base64');
}

export function decodeBase64<T = Record<string, unknown>>(typeName: string, text: string): T {
  return decodeMessage<T>(typeName, Buffer.from(text, 'base64'));
}

export const encodeEvent = (event: HistoryEvent): Buffer => encodeMessage(TYPES.event, event);

export const decodeEvent = (bytes: Uint8Array): HistoryEvent =>
  withEventDefaults(decodeMessage<HistoryEvent>(TYPES.event, bytes));

/** The attributes of an event, whatever its type. */
export function eventAttributes<T = Record<string, any>>(event: HistoryEvent): T {
  return (event[eventAttributesKey(event.eventType)] ?? {}) as T;
}
