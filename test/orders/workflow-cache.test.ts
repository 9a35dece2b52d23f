import anyTest, { type TestFn } from 'ava';
import { ConfigError } from '../../config/env.js';
import { DEFAULT_WORKFLOW_CACHE_SIZE, workflowCacheSize } from '../../worker/cache.js';
import { usePostgres } from '../helpers/postgres.js';
import { orderOf, replayEveryHistory, startOrderEngine, sydneyRequest, type OrderEngine } from '../helpers/orders.js';
import { waitForState } from '../helpers/wait.js';

const test = anyTest as TestFn<{ engine: OrderEngine }>;
const pg = usePostgres(test);
const CACHE = 2;

test.before(async (t) => {
  t.context.engine = await startOrderEngine(pg, { maxCachedWorkflows: CACHE });
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
});

test('MVE_WORKFLOW_CACHE_SIZE: the default, a chosen size, and a refusal that names the variable and the rule', (t) => {
  t.is(workflowCacheSize({}), DEFAULT_WORKFLOW_CACHE_SIZE);
  t.is(workflowCacheSize({ MVE_WORKFLOW_CACHE_SIZE: '40' }), 40);
  t.is(workflowCacheSize({ MVE_WORKFLOW_CACHE_SIZE: '0' }), 0);
  const tooSmall = t.throws(() => workflowCacheSize({ MVE_WORKFLOW_CACHE_SIZE: '1' }), { instanceOf: ConfigError });
  t.regex(tooSmall.message, /MVE_WORKFLOW_CACHE_SIZE: must be 0 .* or at least 2/);
  const notANumber = t.throws(() => workflowCacheSize({ MVE_WORKFLOW_CACHE_SIZE: 'lots' }), {
    instanceOf: ConfigError,
  });
  t.regex(notANumber.message, /MVE_WORKFLOW_CACHE_SIZE/);
});

test.serial(
  'orders parked beyond the workflow cache leave it bounded, and an evicted order is approved and bought',
  async (t) => {
    const { orders, workers } = t.context.engine;
    const tickets = ['CACHE-1', 'CACHE-2', 'CACHE-3', 'CACHE-4'];
    for (const ticketId of tickets) {
      await t.context.engine.submit(sydneyRequest(ticketId, { size: 'MVE 16/64' }));
      await waitForState(orders, ticketId, 'AWAITING_APPROVAL');
    }
    t.true(
      workers[0].worker.getStatus().numCachedWorkflows <= CACHE,
      'the worker keeps no more orders than its cache holds',
    );

    // The first order parked was evicted long ago: its approvals replay it from history.
    const waiting = await orders.status(orderOf('CACHE-1'));
    const quote = { monthlyRate: waiting.quote!.monthlyRate, currency: waiting.quote!.currency };
    await orders.approve(orderOf('CACHE-1'), { approverId: 'fiona', ...quote });
    await orders.approve(orderOf('CACHE-1'), { approverId: 'dave', ...quote });
    t.is((await orders.result(orderOf('CACHE-1'))).state, 'BOUGHT');
    for (const ticketId of tickets.slice(1))
      await orders.cancel(orderOf(ticketId), { actor: 'alice', reason: 'test over' });

    const replay = await replayEveryHistory(t.context.engine);
    t.deepEqual(replay.failures, []);
  },
);
