/** The devserver's clock (a timer heap) and the indexed heap under it. */
import assert from 'node:assert/strict';
import test from 'ava';
import fc from 'fast-check';
import { Clock } from '../src/clock.js';
import { PriorityQueue } from '../src/priority-queue.js';
import type { HeapEntry } from '../src/priority-queue.js';

/** A time-skipping clock (no real timer is needed to fire anything) and the order its timers fired in. */
function skippingClock() {
  const errors: unknown[] = [];
  const clock = new Clock(true, (error) => errors.push(error));
  const fired: string[] = [];
  const set = (name: string, atMs: number) => clock.at(atMs, () => fired.push(name));
  return { clock, fired, set, errors, base: clock.now() };
}

const nextTick = () => new Promise((resolve) => setImmediate(resolve));
// deadlines are minutes apart, so that the real time a test takes never makes one due early
const MINUTE = 60_000;

test('timers fire in deadline order, and only once due', (t) => {
  const { clock, fired, set, base } = skippingClock();
  set('c', base + 3 * MINUTE);
  set('a', base + MINUTE);
  set('b', base + 2 * MINUTE);
  clock.advanceTo(base + 2 * MINUTE - MINUTE / 2);
  t.deepEqual(fired, ['a']);
  clock.advanceTo(base + 5 * MINUTE);
  t.deepEqual(fired, ['a', 'b', 'c']);
  clock.close();
});

test('timers due at the same time fire in the order they were set', (t) => {
  const { clock, fired, set, base } = skippingClock();
  for (const name of ['first', 'second', 'third']) set(name, base + MINUTE);
  set('earlier', base + MINUTE / 2);
  set('fourth', base + MINUTE);
  clock.advanceTo(base + MINUTE);
  t.deepEqual(fired, ['earlier', 'first', 'second', 'third', 'fourth']);
  clock.close();
});

test('a cancelled timer does not fire; cancelling twice, an unknown id or undefined is harmless', (t) => {
  const { clock, fired, set, base } = skippingClock();
  const a = set('a', base + MINUTE);
  const b = set('b', base + 2 * MINUTE);
  set('c', base + 3 * MINUTE);
  clock.cancel(a);
  clock.cancel(b);
  clock.cancel(b);
  clock.cancel(12345);
  clock.cancel(undefined);
  t.is(clock.nextDeadline(), base + 3 * MINUTE);
  clock.advanceTo(base + 3 * MINUTE);
  t.deepEqual(fired, ['c']);
  clock.close();
});

test('nextDeadline is the earliest pending deadline, after sets, cancels and fires', (t) => {
  const { clock, set, base } = skippingClock();
  t.is(clock.nextDeadline(), undefined);
  const late = set('late', base + 5 * MINUTE);
  t.is(clock.nextDeadline(), base + 5 * MINUTE);
  const early = set('early', base + MINUTE);
  t.is(clock.nextDeadline(), base + MINUTE);
  clock.cancel(early);
  t.is(clock.nextDeadline(), base + 5 * MINUTE);
  set('middle', base + 3 * MINUTE);
  clock.advanceTo(base + 3 * MINUTE);
  t.is(clock.nextDeadline(), base + 5 * MINUTE);
  clock.cancel(late);
  t.is(clock.nextDeadline(), undefined);
  clock.close();
});

test('advanceTo moves time forward, never back, and fires timers set by timers when they fall due', (t) => {
  const { clock, fired, base } = skippingClock();
  clock.at(base + MINUTE, () => {
    fired.push('outer');
    clock.at(base + 1.5 * MINUTE, () => fired.push('set by outer, due'));
    clock.at(base + 9 * MINUTE, () => fired.push('set by outer, later'));
  });
  clock.advanceTo(base + 2 * MINUTE);
  t.deepEqual(fired, ['outer', 'set by outer, due']);
  const now = clock.now();
  clock.advanceTo(base);
  t.true(clock.now() >= now);
  t.is(clock.nextDeadline(), base + 9 * MINUTE);
  clock.close();
});

test('a timer that throws is reported and the others still fire', (t) => {
  const { clock, fired, set, errors, base } = skippingClock();
  clock.at(base + MINUTE, () => {
    throw new Error('boom');
  });
  set('after', base + MINUTE);
  clock.advanceTo(base + MINUTE);
  t.deepEqual(fired, ['after']);
  t.is((errors[0] as Error).message, 'boom');
  clock.close();
});

test('a NaN deadline never fires and holds back no other timer', (t) => {
  const { clock, fired, set, base } = skippingClock();
  set('never', Number.NaN);
  set('due', base + MINUTE);
  clock.advanceTo(base + MINUTE);
  t.deepEqual(fired, ['due']);
  clock.close();
});

test('with time skipping, the clock jumps deadline by deadline only while the server is idle', async (t) => {
  const { clock, fired, set, base } = skippingClock();
  let idle = false;
  clock.isIdle = () => idle;
  set('a', base + 60 * MINUTE);
  set('b', base + 120 * MINUTE);
  await nextTick();
  t.deepEqual(fired, []);
  idle = true;
  clock.requestSkip();
  await nextTick();
  await nextTick();
  t.deepEqual(fired, ['a', 'b']);
  t.true(clock.now() >= base + 120 * MINUTE);
  clock.close();
});

test('without time skipping, timers fire in real time', async (t) => {
  const clock = new Clock(false, () => {});
  const fired: string[] = [];
  const now = clock.now();
  clock.after(20, () => fired.push('later'));
  clock.at(now + 5, () => fired.push('sooner'));
  const cancelled = clock.after(10, () => fired.push('cancelled'));
  clock.cancel(cancelled);
  await new Promise((resolve) => setTimeout(resolve, 60));
  t.deepEqual(fired, ['sooner', 'later']);
  clock.close();
});

test('the clock fires any mix of sets and cancels as a sorted list would', (t) => {
  const operation = fc.oneof(
    fc.record({ kind: fc.constant('set' as const), at: fc.integer({ min: 0, max: 50 }) }),
    fc.record({ kind: fc.constant('cancel' as const), which: fc.nat() }),
    fc.record({
      kind: fc.constant('advance' as const),
      by: fc.integer({ min: 0, max: 20 }).map((minutes) => minutes * MINUTE),
    }),
  );
  fc.assert(
    fc.property(fc.array(operation, { maxLength: 200 }), (operations) => {
      const { clock, fired, base } = skippingClock();
      // the reference: pending timers sorted by (deadline, order set)
      let expected: { name: string; at: number; seq: number }[] = [];
      const expectedFired: string[] = [];
      const ids = new Map<string, number>();
      let now = 0;
      operations.forEach((op, seq) => {
        if (op.kind === 'set') {
          const name = `t${seq}`;
          const at = now + op.at * MINUTE;
          ids.set(
            name,
            clock.at(base + at, () => fired.push(name)),
          );
          expected.push({ name, at, seq });
        } else if (op.kind === 'cancel') {
          const names = [...ids.keys()];
          if (!names.length) return;
          const name = names[op.which % names.length]!;
          clock.cancel(ids.get(name));
          ids.delete(name);
          expected = expected.filter((timer) => timer.name !== name);
        } else {
          now += op.by;
          clock.advanceTo(base + now);
          expected.sort((a, b) => a.at - b.at || a.seq - b.seq);
          while (expected.length && expected[0]!.at <= now) {
            const timer = expected.shift()!;
            expectedFired.push(timer.name);
            ids.delete(timer.name);
          }
        }
        assert.equal(
          clock.nextDeadline(),
          expected.length ? base + Math.min(...expected.map((timer) => timer.at)) : undefined,
        );
      });
      clock.close();
      assert.deepEqual(fired, expectedFired);
    }),
  );
  t.pass();
});

test('the heap pops in order and removes any entry, against a sorted array', (t) => {
  fc.assert(
    fc.property(
      fc.array(
        fc.oneof(
          fc.integer({ min: 0, max: 30 }),
          fc.constant('pop' as const),
          fc.nat().map((n) => ({ remove: n })),
        ),
        { maxLength: 300 },
      ),
      (operations) => {
        const heap = new PriorityQueue<number>((a, b) => a < b);
        const entries: HeapEntry<number>[] = [];
        let reference: HeapEntry<number>[] = [];
        for (const op of operations) {
          if (op === 'pop') {
            assert.equal(heap.pop(), reference.length ? Math.min(...reference.map((entry) => entry.value)) : undefined);
            // among equal values the heap may take any one: follow the entry it took (marked with index -1)
            reference = reference.filter((entry) => entry.index !== -1);
          } else if (typeof op === 'number') {
            const entry = heap.push(op);
            entries.push(entry);
            reference.push(entry);
          } else if (entries.length) {
            const entry = entries[op.remove % entries.length]!;
            const present = reference.includes(entry);
            assert.equal(heap.remove(entry), present);
            reference = reference.filter((other) => other !== entry);
          }
          assert.equal(heap.size, reference.length);
          assert.equal(heap.peek(), reference.length ? Math.min(...reference.map((entry) => entry.value)) : undefined);
        }
      },
    ),
  );
  t.pass();
});
