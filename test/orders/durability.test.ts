import { once } from 'node:events';
import anyTest, { type TestFn } from 'ava';
import { usePostgres } from '../helpers/postgres.js';
import { orderOf, replayEveryHistory, startOrderEngine, sydneyRequest, type OrderEngine } from '../helpers/orders.js';
import { waitForState } from '../helpers/wait.js';
import { startWorkerProcess } from '../helpers/worker-process.js';

const test = anyTest as TestFn<{ engine: OrderEngine }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.engine = await startOrderEngine(pg, { worker: false });
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
});

async function replaceWithInProcessWorker(engine: OrderEngine): Promise<void> {
  engine.workers.push(await engine.startWorker());
}

test.serial('a worker killed while the order awaits approval: another worker finishes it, buying once', async (t) => {
  const { engine } = t.context;
  const doomed = await startWorkerProcess(engine);
  await engine.submit(sydneyRequest('KILL-WAIT', { size: 'MVE 8/32' }));
  const waiting = await waitForState(engine.orders, 'KILL-WAIT', 'AWAITING_APPROVAL', 60_000);
  doomed.kill('SIGKILL');
  await once(doomed, 'exit');

  await replaceWithInProcessWorker(engine);
  await engine.orders.approve(orderOf('KILL-WAIT'), {
    approverId: 'fiona',
    monthlyRate: waiting.quote!.monthlyRate,
    currency: 'AUD',
  });
  const outcome = await engine.orders.result(orderOf('KILL-WAIT'));
  t.is(outcome.state, 'BOUGHT');
  t.is(
    engine.sim
      .state()
      .products.filter((product) => product.technicalServiceUid === outcome.product?.technicalServiceUid).length,
    1,
  );
});

test.serial(
  'a worker killed right after the buy intent was recorded, before the request left: the order is bought exactly once',
  async (t) => {
    const { engine } = t.context;
    for (const { worker } of engine.workers) worker.shutdown();
    await Promise.all(engine.workers.splice(0).map(({ running }) => running));
    const productsBefore = engine.sim.state().products.length;

    const doomed = await startWorkerProcess(engine, 'buy-intent');
    const submitted = await engine.submit(sydneyRequest('KILL-BUY', { size: 'MVE 4/16' }));
    const [code, signal] = (await once(doomed, 'exit')) as [number | null, string | null];
    t.is(signal, 'SIGKILL', `the worker died at the buy intent (exit ${code})`);
    const intent = await engine.repository.getOrder(submitted.workflowId);
    t.deepEqual(
      intent?.buyAttempts.map((attempt) => attempt.outcome ?? 'pending'),
      ['pending'],
      'the intent is recorded, no outcome yet',
    );
    t.is(engine.sim.state().products.length, productsBefore, 'nothing was bought by the dead worker');

    await replaceWithInProcessWorker(engine);
    const outcome = await engine.orders.result(orderOf('KILL-BUY'));
    t.is(outcome.state, 'BOUGHT');
    t.is(engine.sim.state().products.length, productsBefore + 1);
    const record = await engine.repository.getOrder(submitted.workflowId);
    // The lost buy never claimed its send: run again in its retried workflow task, the same attempt claimed it and bought.
    t.deepEqual(
      record?.buyAttempts.map((attempt) => [attempt.attempt, attempt.outcome, attempt.sentAt === null]),
      [[1, 'created', false]],
    );
  },
);

test.serial('every history of this file replays cleanly', async (t) => {
  const { replayed, failures } = await replayEveryHistory(t.context.engine);
  t.is(replayed, 2);
  t.deepEqual(failures, []);
});
