/**
 * A protobuf message a run keeps for its life but rarely reads — its search attributes, its start request — kept
 * encoded in a buffer of its own and decoded when read. Decoded, every payload in it is an object with a metadata
 * map and byte views, and the views point into the request that carried the message, which they keep alive
 * whole: for an order parked for approval that was about 6 KB for its search attributes alone (docs/scale.md).
 * A new value is a new object, so "changed?" is an identity check.
 */
import type { StartRequest } from './execution.js';
import { decodeMessage, encodeMessage, ownedBytes, TYPES } from './persistence/codec.js';
import type { SearchAttributes } from './proto.js';

export class PackedMessage<T extends object> {
  private constructor(
    private readonly typeName: string,
    /** In an ArrayBuffer of its own (a small encoding is otherwise a slice of a shared 8 KiB pool slab). */
    readonly encoded: Buffer,
  ) {}

  static pack<T extends object>(typeName: string, value: T | null | undefined): PackedMessage<T> {
    return new PackedMessage<T>(typeName, ownedBytes(encodeMessage(typeName, value ?? {})));
  }

  /** From an encoding kept elsewhere (the durable store's row), copied. */
  static fromEncoded<T extends object>(typeName: string, bytes: Uint8Array): PackedMessage<T> {
    return new PackedMessage<T>(typeName, ownedBytes(bytes));
  }

  /** Decoded afresh on every call (64-bit numbers as numbers): callers may change what they get. */
  unpack(): T {
    return decodeMessage<T>(this.typeName, this.encoded);
  }
}

export type PackedSearchAttributes = PackedMessage<SearchAttributes>;
export type PackedStartRequest = PackedMessage<StartRequest>;

export const packSearchAttributes = (attributes: SearchAttributes | null | undefined): PackedSearchAttributes =>
  PackedMessage.pack(TYPES.searchAttributes, attributes);
export const searchAttributesFromEncoded = (bytes: Uint8Array): PackedSearchAttributes =>
  PackedMessage.fromEncoded(TYPES.searchAttributes, bytes);
export const packStartRequest = (request: StartRequest): PackedStartRequest =>
  PackedMessage.pack(TYPES.startRequest, request);
export const startRequestFromEncoded = (bytes: Uint8Array): PackedStartRequest =>
  PackedMessage.fromEncoded(TYPES.startRequest, bytes);
