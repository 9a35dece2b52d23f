/**
 * abandoned-reads.ts: a read (local activity) the SDK resolves as cancelled though nothing cancelled the order is
 * made again. bench:scale found the case: with a small workflow cache, an order whose validation waited to be retried
 * (the API had dropped a connection) was evicted, its validation came back "Activity cancelled", and the order ended
 * CANCELLED by "temporal" with no cancel asked for.
 */
import anyTest, { type TestFn } from 'ava';
import { abandonedReadsWorkflow } from './fixtures/module-workflows.js';
import { fakeActivities } from './fixtures/fake-activities.js';
import { useModuleEnv } from './fixtures/harness.js';

const test = anyTest as TestFn<unknown>;
const env = useModuleEnv(test);

async function run(input: Parameters<typeof abandonedReadsWorkflow>[0]) {
  return env.withWorker(fakeActivities({}), async (start) => {
    const handle = await start(abandonedReadsWorkflow, input);
    return handle.result();
  });
}

test.serial(
  'a read that comes back cancelled though its scope was not cancelled is made again, until it answers',
  async (t) => {
    t.deepEqual(await run({ abandoned: 2 }), { calls: 3, outcome: 'read' });
  },
);

test.serial('a read that answers at once is made once', async (t) => {
  t.deepEqual(await run({ abandoned: 0 }), { calls: 1, outcome: 'read' });
});

test.serial('a real cancel (the scope cancelled) still ends the read: cancelled, not made again', async (t) => {
  t.deepEqual(await run({ abandoned: 5, cancelFirst: true }), { calls: 1, outcome: 'cancelled' });
});

test.serial('a read that fails otherwise fails at once', async (t) => {
  t.deepEqual(await run({ abandoned: 0, fail: true }), { calls: 1, outcome: 'failed: the API refused the lookup' });
});
