/**
 * A run's history events, kept packed while the run is idle. A decoded event costs about three times its
 * encoded size (objects, byte views, strings: docs/scale.md), and an order parked for approval keeps its whole
 * history for days; so only the runs used most recently keep their events decoded (`HistoryCache`), and every
 * other run keeps them as one encoded `temporal.api.history.v1.History` message, decoded again when read.
 * The length is known either way, so counting events never decodes. With a spill (./history-spill.ts) the packed
 * histories are kept in a scratch file, not in memory.
 */
import type { HistorySpill } from './history-spill.js';
import { reflection } from './proto.js';
import type { HistoryEvent, ReflectedType } from './proto.js';

const HISTORY_TYPE = 'temporal.api.history.v1.History';
let historyType: ReflectedType | undefined;
const history = () => (historyType ??= reflection.lookupType(HISTORY_TYPE));

/** Runs whose events stay decoded; the least recently read are packed when more are. */
export class HistoryCache {
  private readonly decoded = new Set<EventHistory>();

  /** With `capacity` 0 only the history read last stays decoded (tests). */
  constructor(
    readonly capacity: number,
    readonly spill?: HistorySpill,
  ) {}

  /** A new, empty history (a run just started). */
  create(events: HistoryEvent[] = []): EventHistory {
    return new EventHistory(this, events, undefined, events.length);
  }

  /** A history from its events' encodings, as a durable store keeps them (one `HistoryEvent` each). */
  fromEncoded(events: Uint8Array[]): EventHistory {
    const history = new EventHistory(this, undefined, undefined, events.length);
    history.keepPacked(frame(events));
    return history;
  }

  /** How many histories are decoded now (docs, tests). */
  get size(): number {
    return this.decoded.size;
  }

  /** Marks `events` read just now; packs the least recently read beyond the capacity. */
  used(events: EventHistory): void {
    this.decoded.delete(events);
    this.decoded.add(events);
    for (const oldest of this.decoded) {
      if (this.decoded.size <= this.capacity || oldest === events) break;
      this.decoded.delete(oldest);
      oldest.pack();
    }
  }

  forget(events: EventHistory): void {
    this.decoded.delete(events);
    this.spill?.drop(events);
  }
}

export class EventHistory implements Iterable<HistoryEvent> {
  constructor(
    private readonly cache: HistoryCache,
    private decoded: HistoryEvent[] | undefined,
    private packed: Uint8Array | undefined,
    private count: number,
  ) {}

  get length(): number {
    return this.count;
  }

  /** Whether the events are packed now (tests, docs). */
  get isPacked(): boolean {
    return this.decoded === undefined;
  }

  at(index: number): HistoryEvent | undefined {
    return this.events().at(index);
  }

  slice(start?: number, end?: number): HistoryEvent[] {
    return this.events().slice(start, end);
  }

  some(predicate: (event: HistoryEvent) => boolean): boolean {
    return this.events().some(predicate);
  }

  push(...events: HistoryEvent[]): void {
    this.count = this.events().push(...events);
  }

  /** Drops the events after the first `length` (a change undone by the history limits). */
  truncate(length: number): void {
    this.events().length = length;
    this.count = length;
  }

  [Symbol.iterator](): Iterator<HistoryEvent> {
    return this.events()[Symbol.iterator]();
  }

  /** Encodes the events and lets the decoded ones go (the cache calls this). */
  pack(): void {
    if (!this.decoded) return;
    const type = history();
    const packed = type.encode(type.fromObject({ events: this.decoded })).finish();
    this.decoded = undefined;
    this.keepPacked(packed);
  }

  /** Keeps the encoded history: in the spill file when there is one and it takes it, else here. */
  keepPacked(packed: Uint8Array): void {
    this.packed = this.cache.spill?.put(this, packed) ? undefined : packed;
  }

  /** The run is gone (retention, deleted): it is not kept decoded any longer. */
  release(): void {
    this.cache.forget(this);
  }

  private events(): HistoryEvent[] {
    if (!this.decoded) {
      this.decoded = unpack(this.packed ?? this.cache.spill!.take(this));
      this.packed = undefined;
    }
    this.cache.used(this);
    return this.decoded;
  }
}

function unpack(packed: Uint8Array): HistoryEvent[] {
  const type = history();
  const { events = [] } = type.toObject(type.decode(packed), { longs: Number }) as { events?: HistoryEvent[] };
  for (const event of events) withEventDefaults(event);
  return events;
}

/** proto3 leaves zero values out of a decoded event: the engine reads these as numbers. */
export function withEventDefaults(event: HistoryEvent): HistoryEvent {
  event.eventId ??= 0;
  event.taskId ??= 0;
  event.version ??= 0;
  return event;
}

/** Encoded events as one `History` message: each is field 1, length-delimited (no decoding needed). */
function frame(events: Uint8Array[]): Uint8Array {
  let size = 0;
  for (const event of events) size += 1 + varintSize(event.length) + event.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const event of events) {
    out[at++] = 0x0a;
    for (let length = event.length; ; length >>>= 7) {
      if (length < 0x80) {
        out[at++] = length;
        break;
      }
      out[at++] = (length & 0x7f) | 0x80;
    }
    out.set(event, at);
    at += event.length;
  }
  return out;
}

function varintSize(value: number): number {
  let size = 1;
  while (value >= 0x80) {
    value >>>= 7;
    size++;
  }
  return size;
}
