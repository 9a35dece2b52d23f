/**
 * A protobuf message a run keeps for its life but rarely reads — its search attributes, its start request — kept
 * encoded in a buffer of its own and decoded when read. Decoded, every payload in it is an object with a metadata
 * map and byte views, and the views point into the request that carried the message, which they keep alive
 * whole: for an order parked for approval that was about 6 KB for its search attributes alone (docs/scale.md).
 * A new value is a new object, so "changed?" is an identity check.
 */
import { reflection } from './proto.js';
import type { ReflectedType, SearchAttributes } from './proto.js';
import type { StartRequest } from './execution.js';

const types = new Map<string, ReflectedType>();
const type = (name: string) => types.get(name) ?? types.set(name, reflection.lookupType(name)).get(name)!;

export class PackedMessage<T extends object> {
  private constructor(
    private readonly typeName: string,
    readonly encoded: Uint8Array,
  ) {}

  static pack<T extends object>(typeName: string, value: T | null | undefined): PackedMessage<T> {
    const t = type(typeName);
    // a copy in an ArrayBuffer of its own: a small encoding is a slice of a shared 8 KiB pool slab
    return new PackedMessage<T>(typeName, new Uint8Array(t.encode(t.fromObject(value ?? {})).finish()));
  }

  /** From an encoding kept elsewhere (the durable store's row), copied. */
  static fromEncoded<T extends object>(typeName: string, bytes: Uint8Array): PackedMessage<T> {
    return new PackedMessage<T>(typeName, new Uint8Array(bytes));
  }

  /** Decoded afresh on every call (64-bit numbers as numbers): callers may change what they get. */
  unpack(): T {
    const t = type(this.typeName);
    return t.toObject(t.decode(this.encoded), { longs: Number }) as T;
  }
}

const SEARCH_ATTRIBUTES = 'temporal.api.common.v1.SearchAttributes';
const START_REQUEST = 'temporal.api.workflowservice.v1.StartWorkflowExecutionRequest';

export type PackedSearchAttributes = PackedMessage<SearchAttributes>;
export type PackedStartRequest = PackedMessage<StartRequest>;

export const packSearchAttributes = (attributes: SearchAttributes | null | undefined): PackedSearchAttributes => PackedMessage.pack(SEARCH_ATTRIBUTES, attributes);
export const searchAttributesFromEncoded = (bytes: Uint8Array): PackedSearchAttributes => PackedMessage.fromEncoded(SEARCH_ATTRIBUTES, bytes);
export const packStartRequest = (request: StartRequest): PackedStartRequest => PackedMessage.pack(START_REQUEST, request);
export const startRequestFromEncoded = (bytes: Uint8Array): PackedStartRequest => PackedMessage.fromEncoded(START_REQUEST, bytes);
