/** A run's history, packed while idle (src/event-history.ts): what is read back is what was written. */
import test from 'ava';
import fc from 'fast-check';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HistoryCache } from '../src/event-history.js';
import type { EventHistory } from '../src/event-history.js';
import { HistorySpill } from '../src/history-spill.js';
import { encodeEvent } from '../src/persistence/codec.js';
import { EventType } from '../src/proto.js';
import type { HistoryEvent } from '../src/proto.js';

function signaled(eventId: number, signalName: string, data: Uint8Array): HistoryEvent {
  return {
    eventId,
    eventTime: { seconds: 1_795_000_000 + eventId, nanos: eventId * 1000 },
    eventType: EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
    version: 0,
    taskId: 1_048_576 + eventId,
    workflowExecutionSignaledEventAttributes: {
      signalName,
      input: { payloads: [{ metadata: { encoding: Buffer.from('binary/encrypted') }, data }] },
      identity: 'worker@host',
    },
  };
}

const events = (count: number, from = 1) =>
  Array.from({ length: count }, (_, i) => signaled(from + i, `signal-${from + i}`, Buffer.from(`payload ${from + i}`)));
/** Events compared as the bytes they encode to (decoded bytes fields are Buffers, written ones may not be). */
const wire = (list: Iterable<HistoryEvent>) => [...list].map((event) => encodeEvent(event).toString('hex'));

test('a packed history reads back the same events; its length is known without decoding', (t) => {
  const cache = new HistoryCache(1);
  const first = cache.create(events(30));
  const second = cache.create(events(3));
  first.at(0);
  second.at(0); // the cache holds one: the first history is packed
  t.true(first.isPacked);
  t.is(first.length, 30);
  t.true(first.isPacked, 'length does not decode');
  t.deepEqual(wire(first), wire(events(30)));
  t.false(first.isPacked);
  t.true(second.isPacked, 'reading the first packed the second');
  t.is(first.at(-1)?.eventId, 30);
  t.deepEqual(wire(first.slice(10, 12)), wire(events(2, 11)));
});

test('a history loaded from stored event encodings is packed until read, and reads back those events', (t) => {
  const cache = new HistoryCache(10);
  const stored = events(12).map((event) => encodeEvent(event));
  const loaded = cache.fromEncoded(stored);
  t.true(loaded.isPacked);
  t.is(loaded.length, 12);
  t.deepEqual(wire(loaded), wire(events(12)));
  t.is(loaded.at(0)?.taskId, 1_048_577, 'zero-default fields and numbers as the engine reads them');
  t.is(cache.fromEncoded([]).length, 0);
});

test('the cache keeps the most recently read histories decoded, never more than its capacity', (t) => {
  const cache = new HistoryCache(2);
  const [a, b, c] = [cache.create(events(2)), cache.create(events(2)), cache.create(events(2))];
  for (const history of [a, b, c]) history.at(0);
  t.deepEqual([a.isPacked, b.isPacked, c.isPacked], [true, false, false]);
  b.at(0);
  a.at(0); // c is now the least recently read
  t.deepEqual([a.isPacked, b.isPacked, c.isPacked], [false, false, true]);
  t.is(cache.size, 2);
  a.release();
  t.is(cache.size, 1, 'a released history is no longer held');
});

test('appends, cuts and reads in any order, across packs, match a plain list of events', (t) => {
  type Op =
    | { kind: 'push'; history: number; count: number }
    | { kind: 'truncate'; history: number; keep: number }
    | { kind: 'read'; history: number };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('push' as const), history: fc.nat(2), count: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ kind: fc.constant('truncate' as const), history: fc.nat(2), keep: fc.nat(6) }),
    fc.record({ kind: fc.constant('read' as const), history: fc.nat(2) }),
  );
  const folder = scratchFolder(t);
  fc.assert(
    fc.property(fc.nat(3), fc.boolean(), fc.array(op, { maxLength: 40 }), (capacity, spilled, ops) => {
      // spilled: packed histories in a scratch file that compacts after 1 KB of holes
      const spill = spilled ? new HistorySpill(folder, 1024) : undefined;
      const cache = new HistoryCache(capacity, spill);
      const histories: EventHistory[] = [cache.create(), cache.create(), cache.create()];
      const models: HistoryEvent[][] = [[], [], []];
      for (const step of ops) {
        const history = histories[step.history]!;
        const model = models[step.history]!;
        if (step.kind === 'push') {
          const added = events(step.count, model.length + 1);
          history.push(...added);
          model.push(...added);
        } else if (step.kind === 'truncate') {
          const keep = Math.min(step.keep, model.length);
          history.truncate(keep);
          model.length = keep;
        } else {
          history.at(-1);
        }
        if (cache.size > Math.max(capacity, 1)) return false;
      }
      const same = histories.every(
        (history, i) =>
          history.length === models[i]!.length && JSON.stringify(wire(history)) === JSON.stringify(wire(models[i]!)),
      );
      spill?.close();
      return same;
    }),
  );
  t.pass();
});

function scratchFolder(t: { teardown(fn: () => void): void }): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'history-spill-test-'));
  t.teardown(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

test('with a spill, packed histories leave memory for a scratch file nobody else can open, and read back the same', (t) => {
  const folder = scratchFolder(t);
  const spill = new HistorySpill(folder);
  t.teardown(() => spill.close());
  const cache = new HistoryCache(1, spill);
  const [a, b] = [cache.create(events(20)), cache.create(events(5))];
  a.at(0);
  b.at(0); // a is packed, into the file
  t.deepEqual(spill.size.histories, 1);
  t.true(spill.size.live > 0);
  const loaded = cache.fromEncoded(events(7).map((event) => encodeEvent(event)));
  t.deepEqual(spill.size.histories, 2, 'a loaded history goes straight to the file');
  t.deepEqual(readdirSync(folder), [], 'the file is unlinked: nothing is left in the folder');
  t.deepEqual(wire(a), wire(events(20)));
  t.deepEqual(wire(loaded), wire(events(7)));
  t.deepEqual(
    spill.size.histories,
    2,
    'with room for one decoded history, a and b are in the file and the loaded one is decoded',
  );
  a.release();
  b.release();
  t.deepEqual(
    spill.size,
    { live: 0, file: spill.size.file, histories: 0 },
    'a released history holds nothing in the file',
  );
});

test('the spill file is compacted once its holes outgrow the live histories, and every history still reads back', (t) => {
  const spill = new HistorySpill(scratchFolder(t), 4096);
  t.teardown(() => spill.close());
  const cache = new HistoryCache(0, spill);
  const histories = Array.from({ length: 20 }, (_, i) => cache.create(events(3 + i)));
  for (let round = 0; round < 5; round++) for (const history of histories) history.at(0); // each read packs the one before
  const { live, file } = spill.size;
  t.true(file <= 2 * live + 4096, `file ${file} bytes for ${live} live`);
  histories.forEach((history, i) => t.deepEqual(wire(history), wire(events(3 + i))));
});

test('a spill that cannot take a history leaves it packed in memory', (t) => {
  const spill = new HistorySpill(scratchFolder(t));
  const cache = new HistoryCache(0, spill);
  const [a, b] = [cache.create(events(4)), cache.create(events(2))];
  spill.close(); // writes now fail
  a.at(0);
  b.at(0);
  t.true(a.isPacked);
  t.deepEqual(spill.size.histories, 0);
  t.deepEqual(wire(a), wire(events(4)));
});

test('a compaction that cannot make its new file leaves the old one in use, every history still readable', (t) => {
  const folder = mkdtempSync(path.join(tmpdir(), 'history-spill-test-'));
  const spill = new HistorySpill(folder, 1024);
  t.teardown(() => spill.close());
  rmSync(folder, { recursive: true, force: true }); // no folder for a fresh file
  const cache = new HistoryCache(0, spill);
  const histories = Array.from({ length: 10 }, (_, i) => cache.create(events(3 + i)));
  for (let round = 0; round < 3; round++) for (const history of histories) history.at(0);
  t.true(spill.size.file > 2 * spill.size.live + 1024, 'not compacted');
  histories.forEach((history, i) => t.deepEqual(wire(history), wire(events(3 + i))));
});
