/**
 * `mve-orders worker` stopped as an orchestrator stops it (SIGTERM), as a real process, with a buy at the provider:
 * it stops polling, lets the buy finish and exits 0 — the order BOUGHT, one product. Work still running when the grace
 * period ends is left to Temporal: the worker exits 1 saying so, and another worker carries the order on.
 */
import { once } from 'node:events';
import anyTest, { type TestFn } from 'ava';
import type { SimEndpoint } from '../../tooling/sim/index.js';
import { spawnCli, type CliChild } from '../dev/child.js';
import { orderOf, sydneyRequest, startOrderEngine, type OrderEngine } from '../helpers/orders.js';
import { engineEnv } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';

const test = anyTest as TestFn<{ engine: OrderEngine; env: NodeJS.ProcessEnv }>;
const pg = usePostgres(test);

test.before(async (t) => {
  // The workers here are `mve-orders worker` processes; an in-process one is started only to carry an order on.
  const engine = await startOrderEngine(pg, { worker: false });
  t.context.engine = engine;
  t.context.env = { ...engineEnv(engine, { provider: true }), MVE_FOLLOW_PROVISIONING: 'false' };
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
});

async function startWorker(env: NodeJS.ProcessEnv): Promise<CliChild> {
  const worker = spawnCli(['worker'], env);
  await worker.waitForOutput(/worker polling \S+ on /, 120_000);
  return worker;
}

/** Submits `ticketId` (auto-approved) and waits until its call to `endpoint` is at the simulator, held `ms`. */
async function holdAtSimulator(engine: OrderEngine, endpoint: SimEndpoint, ms: number, ticketId: string) {
  engine.sim.injectFault({ kind: 'latency', endpoint, ms });
  const before = engine.sim.state().calls[endpoint];
  await engine.submit(sydneyRequest(ticketId, { productName: `${ticketId} firewall` }));
  await waitFor(
    () => Promise.resolve(engine.sim.state().calls[endpoint] > before || undefined),
    60_000,
    `${ticketId} at ${endpoint}`,
  );
}

/** Runs `work` with an in-process worker polling, stopped after it (the next test's orders are its own workers'). */
async function withAnotherWorker(engine: OrderEngine, work: () => Promise<void>) {
  const { worker, running } = await engine.startWorker();
  try {
    await work();
  } finally {
    worker.shutdown();
    await running;
  }
}

const productsOf = (engine: OrderEngine, ticketId: string) =>
  engine.sim.state().products.filter((product) => product.serviceName?.startsWith(`${ticketId} firewall [`));

test.serial('SIGTERM with a buy at the provider: the buy finishes, the order is BOUGHT once, exit 0', async (t) => {
  const { engine } = t.context;
  const worker = await startWorker(t.context.env);
  const exited = once(worker.child, 'exit') as Promise<[code: number | null, signal: NodeJS.Signals | null]>;
  await holdAtSimulator(engine, 'buy', 4_000, 'WS-BUY');
  worker.child.kill('SIGTERM');

  const [code] = await exited;
  t.is(code, 0, worker.stdout() + worker.stderr());
  t.regex(worker.stdout(), /SIGTERM: stopping the worker \(running tasks get 25 s to finish\)/);
  t.regex(worker.stdout(), /worker stopped/);
  // The buy reported back before the worker went: the records say BOUGHT, the provider made one product.
  t.is((await engine.records('WS-BUY'))?.order.status, 'BOUGHT');
  t.is(productsOf(engine, 'WS-BUY').length, 1);
  t.deepEqual(
    (await engine.records('WS-BUY'))?.buyAttempts.map((attempt) => attempt.outcome),
    ['created'],
  );
  // The order's workflow agrees, as another worker reads it.
  await withAnotherWorker(engine, async () => {
    t.is((await engine.orders.result(orderOf('WS-BUY'))).state, 'BOUGHT');
  });
  t.is(productsOf(engine, 'WS-BUY').length, 1);
});

test.serial(
  'work still running when the grace period ends is left to Temporal: exit 1, another worker goes on',
  async (t) => {
    const { engine } = t.context;
    const worker = await startWorker({ ...t.context.env, MVE_SHUTDOWN_GRACE: '2s' });
    const exited = once(worker.child, 'exit') as Promise<[code: number | null, signal: NodeJS.Signals | null]>;
    // The validation is held well past the grace period.
    await holdAtSimulator(engine, 'validate', 30_000, 'WS-SLOW');
    const signalled = Date.now();
    worker.child.kill('SIGTERM');

    const [code] = await exited;
    const tookMs = Date.now() - signalled;
    t.is(code, 1, worker.stdout() + worker.stderr());
    t.regex(
      worker.stderr(),
      /mve-orders worker: stopped before its work was done: tasks still running after 2 s \(MVE_SHUTDOWN_GRACE\) were left to Temporal/,
    );
    t.true(tookMs >= 2_000 && tookMs < 15_000, `exited ${tookMs} ms after the signal`);

    // Its workflow task goes back to Temporal when its timeout passes; another worker validates again and buys.
    await withAnotherWorker(engine, async () => {
      t.is((await engine.orders.result(orderOf('WS-SLOW'))).state, 'BOUGHT');
    });
    t.is(productsOf(engine, 'WS-SLOW').length, 1);
  },
);
