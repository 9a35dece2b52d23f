import test from 'ava';
import { approvalDeadline, isQuoteStale, reminderTimes } from '../../domain/approval/index.js';
import { HOUR, testPolicy } from './fixtures.js';

const start = Date.UTC(2026, 0, 5, 9);

test('the deadline is the start plus the policy deadline', (t) => {
  t.is(approvalDeadline(testPolicy(), start), start + 72 * HOUR);
});

test('reminders before the deadline come out in time order', (t) => {
  t.deepEqual(reminderTimes(testPolicy(), start), [start + 48 * HOUR, start + 71 * HOUR]);
});

test('interval reminders stop before the deadline and merge with the fixed ones without repeats', (t) => {
  const policy = testPolicy({ reminders: { every: '24h', beforeDeadline: ['24h', '2h'] } });
  t.deepEqual(reminderTimes(policy, start), [start + 24 * HOUR, start + 48 * HOUR, start + 70 * HOUR]);
});

test('no reminders configured gives none', (t) => {
  t.deepEqual(reminderTimes(testPolicy({ reminders: {} }), start), []);
});

test('a quote is stale only when older than maxQuoteAge', (t) => {
  const policy = testPolicy();
  t.false(isQuoteStale(policy, start, start + 24 * HOUR), 'exactly the maximum age is still fresh');
  t.true(isQuoteStale(policy, start, start + 24 * HOUR + 1));
  t.false(isQuoteStale(policy, start, start));
});
