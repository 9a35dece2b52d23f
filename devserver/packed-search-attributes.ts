/**
 * A run's search attributes as it keeps them for its life: one encoded `SearchAttributes` message in a buffer of
 * its own, decoded when read (an upsert, a new visibility row, a listing, a describe). Decoded, each attribute
 * is a payload with a metadata map and three byte views, and views into the request that carried them would
 * keep that whole request alive: about 4 KB for each order parked, against a few hundred bytes encoded
 * (docs/scale.md). A new value is a new object, so "changed?" is an identity check.
 */
import { reflection } from './proto.js';
import type { ReflectedType, SearchAttributes } from './proto.js';

let searchAttributesType: ReflectedType | undefined;
const type = () => (searchAttributesType ??= reflection.lookupType('temporal.api.common.v1.SearchAttributes'));

export class PackedSearchAttributes {
  private constructor(readonly encoded: Uint8Array) {}

  static pack(attributes: SearchAttributes | null | undefined): PackedSearchAttributes {
    const t = type();
    // a copy in an ArrayBuffer of its own: a small encoding is a slice of a shared 8 KiB pool slab
    return new PackedSearchAttributes(new Uint8Array(t.encode(t.fromObject(attributes ?? {})).finish()));
  }

  /** From an encoding kept elsewhere (the durable store's row), copied. */
  static fromEncoded(bytes: Uint8Array): PackedSearchAttributes {
    return new PackedSearchAttributes(new Uint8Array(bytes));
  }

  /** Decoded afresh on every call: callers may change what they get. */
  unpack(): SearchAttributes {
    const t = type();
    const { indexedFields = {} } = t.toObject(t.decode(this.encoded)) as SearchAttributes;
    return { indexedFields };
  }
}
