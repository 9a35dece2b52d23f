import test from 'ava';
import { pollDelay, verdictOf } from '../../domain/lifecycle/index.js';

test('LIVE is done; the statuses a product never comes back from are failures; anything else is on its way', (t) => {
  t.is(verdictOf('LIVE'), 'live');
  t.is(verdictOf(' live '), 'live');
  for (const failed of ['CANCELLED', 'CANCELLED_PARENT', 'DECOMMISSIONING', 'DECOMMISSIONED', 'decommissioned'])
    t.is(verdictOf(failed), 'failed', failed);
  for (const onItsWay of ['DEPLOYABLE', 'CONFIGURED', 'NEW', 'DESIGN', 'SOMETHING_NEW'])
    t.is(verdictOf(onItsWay), 'on-its-way', onItsWay);
});

test('the wait between reads doubles from the first to the longest', (t) => {
  const plan = { firstPollMs: 15_000, maxPollMs: 300_000, reminderMs: 1_800_000, deadlineMs: 7_200_000 };
  t.deepEqual(
    [1, 2, 3, 4, 5, 6, 100].map((reads) => pollDelay(plan, reads)),
    [15_000, 30_000, 60_000, 120_000, 240_000, 300_000, 300_000],
  );
});
