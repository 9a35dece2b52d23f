/**
 * "Nothing lost, nothing bought twice": the real engine with the durable devserver and the worker each in a
 * process of its own (test/orders/fixtures/restart-env.ts), killed with SIGKILL at chosen points (orders
 * awaiting approval, a buy intent just recorded, a buy in flight, a validate in flight, approval timers
 * pending) and started again on the same data. Every order must finish as it should with at most one
 * product per ticket at the provider (the simulator, which outlives every crash); an uncertain buy is parked
 * for ops, who resolve it from what the provider shows; and every ticket re-sent through the intake (same
 * body) buys nothing more, also once Temporal has forgotten every workflow.
 *
 * The devserver keeps real time except where the test moves its clock (TestService Sleep): to let the work a killed
 * worker held time out (a workflow task, with the reads and the buy it runs, after 10 s; a journal write after 15 s),
 * and to reach approval reminders (48 h, 71 h) and the deadline (72 h) of the staging test policy.
 */
import anyTest, { type TestFn } from 'ava';
import {} from '../../client/orders/index.js';
import type { OrderStatusView } from '../../workflows/order/messages.js';
import type { OrderState } from '../../domain/order-states.js';
import type { SimEndpoint } from '../../sim/index.js';
import { orderOf, sydneyRequest, workflowOf } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import { productNameFor, startRestartEnv, type RestartEnv, type WorkerChild } from './fixtures/restart-env.js';

interface Context {
  env: RestartEnv;
  bodies: Map<string, Record<string, unknown>>;
}

const test = anyTest as TestFn<Context>;
const pg = usePostgres(test);
const HOUR = 3_600_000;

test.before(async (t) => {
  t.context.env = await startRestartEnv(await pg.database(), {
    log: (line) => process.env['RESTARTS_LOG'] && console.error(line),
  });
  t.context.bodies = new Map();
});
test.after.always(async (t) => {
  await t.context.env?.stop();
});

async function submit(t: { context: Context }, ticketId: string, size: string) {
  const body = sydneyRequest(ticketId, { size, productName: productNameFor(ticketId) });
  t.context.bodies.set(ticketId, body);
  const result = await t.context.env.intake.submit(body, 'alice');
  if (!result.created) throw new Error(`${ticketId} was not created`);
}

async function waitForState(
  env: RestartEnv,
  ticketId: string,
  state: OrderState,
  timeoutMs = 30_000,
): Promise<OrderStatusView> {
  return waitFor(
    async () => {
      const status = await env.status(ticketId);
      return status?.state === state ? status : undefined;
    },
    timeoutMs,
    `${ticketId} in ${state}`,
  );
}

/** Submits `ticketId` and waits until its call to `endpoint` is at the simulator, which holds it `ms` before answering. */
async function holdAtSimulator(t: { context: Context }, endpoint: SimEndpoint, ms: number, ticketId: string) {
  const { env } = t.context;
  env.sim.injectFault({ kind: 'latency', endpoint, ms });
  const before = env.sim.state().calls[endpoint];
  await submit(t, ticketId, 'MVE 4/16');
  await waitFor(
    async () => (env.sim.state().calls[endpoint] > before ? true : undefined),
    30_000,
    `${ticketId} at ${endpoint}`,
  );
}

const record = (env: RestartEnv, ticketId: string) => env.repository.getOrder(workflowOf(ticketId));

test.serial(
  'workers and the devserver killed at five points: every order finishes, each bought at most once',
  async (t) => {
    t.timeout(150_000);
    const { env } = t.context;
    const { sim } = env;
    let worker: WorkerChild = await env.startWorker();

    // 1. Orders awaiting approval (one to approve, one to leave to its timers: next test).
    await submit(t, 'R-WAIT', 'MVE 8/32');
    await submit(t, 'R-EXPIRE', 'MVE 8/32');
    await waitForState(env, 'R-WAIT', 'AWAITING_APPROVAL');
    await waitForState(env, 'R-EXPIRE', 'AWAITING_APPROVAL');

    // Each kill leaves an order that Temporal gives to another worker once its workflow task's timeout (10 s) passes (the
    // reads and the buy run in the workflow task). Under load, a lost order came back in the middle of the next kill
    // point's step; see the steps below for how they are kept apart.
    // 2. The worker holding the waiting orders dies. The buy intent is in Postgres, the next worker dies before it can
    // report back or buy (R-INTENT is the only order buying then, and only its intent kills the worker).
    await worker.kill();
    const intentWorker = await env.startWorker({ dieAfter: { buyIntentOf: workflowOf('R-INTENT') } });
    await submit(t, 'R-INTENT', 'MVE 4/16');
    await intentWorker.exited;
    t.is(intentWorker.child.signalCode, 'SIGKILL');
    t.deepEqual(
      (await record(env, 'R-INTENT'))?.buyAttempts.map((attempt) => attempt.outcome ?? 'pending'),
      ['pending'],
    );
    t.is(env.productsFor('R-INTENT').length, 0, 'the dead worker bought nothing');

    // 3 and 4. A buy and a validate in flight when their worker dies: the buy's request is at the provider (held 10 s,
    // then carried out), the validate held 4 s. One worker holds both and dies within seconds, well before R-INTENT
    // comes back, 10 s after its worker died (to the next worker, which nothing kills).
    const holder = await env.startWorker();
    await holdAtSimulator(t, 'buy', 10_000, 'R-BUY');
    await holdAtSimulator(t, 'validate', 4_000, 'R-VALIDATE');
    await holder.kill();
    await waitFor(
      async () => (env.productsFor('R-BUY').length === 1 ? true : undefined),
      20_000,
      'the provider carries out the orphaned buy',
    );

    // 5. The devserver dies too, with all of that open, and comes back on the same data.
    await env.killDevserver();
    await env.startDevserver();
    worker = await env.startWorker();

    // Past every timeout of what the dead workers held (workflow tasks 10 s, a journal write 15 s), with room to spare.
    await env.skipServerTime(4 * 60_000);
    const validated = await waitForState(env, 'R-VALIDATE', 'BOUGHT', 60_000);
    t.is(validated.buyAttempts, 1);
    const intent = await waitForState(env, 'R-INTENT', 'BOUGHT', 60_000);
    t.is(intent.buyAttempts, 1, 'the lost buy never sent its request: run again, the same attempt bought');
    t.deepEqual(
      (await record(env, 'R-INTENT'))?.buyAttempts.map((attempt) => attempt.outcome),
      ['created'],
    );

    // The orphaned buy is never retried: it is parked for ops, who look at what the provider created.
    const uncertain = await waitForState(env, 'R-BUY', 'BUY_UNCERTAIN', 60_000);
    t.is(uncertain.buyAttempts, 1);
    t.is(env.productsFor('R-BUY').length, 1);
    const [created] = env.productsFor('R-BUY');
    t.is(
      await env.orders.resolveBuy(orderOf('R-BUY'), {
        actor: 'olga',
        attempt: 1,
        outcome: 'created',
        technicalServiceUid: created!.technicalServiceUid,
        note: 'seen at the provider',
      }),
      'BOUGHT',
    );
    t.is((await waitForState(env, 'R-BUY', 'BOUGHT')).product?.technicalServiceUid, created!.technicalServiceUid);

    // The order that waited through every crash is approved through the signed path and bought once.
    const waiting = await waitForState(env, 'R-WAIT', 'AWAITING_APPROVAL');
    const vote = await env.orders.approve(orderOf('R-WAIT'), {
      approverId: 'fiona',
      monthlyRate: waiting.quote!.monthlyRate,
      currency: waiting.quote!.currency,
    });
    t.is(vote.state, 'APPROVED');
    await waitForState(env, 'R-WAIT', 'BOUGHT');

    for (const ticketId of ['R-WAIT', 'R-VALIDATE', 'R-BUY', 'R-INTENT']) {
      const products = env.productsFor(ticketId);
      t.is(products.length, 1, `${ticketId}: one product at the provider`);
      const kept = await waitFor(
        async () => {
          const view = await record(env, ticketId);
          return view?.order.status === 'BOUGHT' && view.order.product ? view : undefined;
        },
        15_000,
        `${ticketId} recorded as bought`,
      );
      t.is(
        kept.order.product?.technicalServiceUid,
        products[0]!.technicalServiceUid,
        `${ticketId}: the record names the product`,
      );
    }
    t.is(env.productsFor('R-EXPIRE').length, 0);
    t.is(sim.state().products.length, 4);
  },
);

test.serial(
  'approval timers pending across a devserver kill: the reminders and the deadline still come, once',
  async (t) => {
    t.timeout(120_000);
    const { env } = t.context;
    const before = await waitForState(env, 'R-EXPIRE', 'AWAITING_APPROVAL');
    t.is(before.approval?.remindersSent, 0);

    // Server time to between the first reminder (24 h before the deadline) and the second (1 h before).
    await env.skipServerTime(60 * HOUR);
    const reminded = await waitFor(
      async () => {
        const status = await env.status('R-EXPIRE');
        return status?.approval?.remindersSent === 1 ? status : undefined;
      },
      30_000,
      'the first reminder',
    );
    t.is(reminded.state, 'AWAITING_APPROVAL');

    await env.killWorkers();
    await env.killDevserver();
    await env.startDevserver();
    await env.startWorker();
    t.is(
      (await waitForState(env, 'R-EXPIRE', 'AWAITING_APPROVAL')).approval?.remindersSent,
      1,
      'the reminder is not sent again',
    );

    await env.skipServerTime(13 * HOUR); // past the second reminder (71 h) and the deadline (72 h)
    const expired = await waitFor(
      async () => {
        const view = await record(env, 'R-EXPIRE');
        return view?.order.status === 'EXPIRED' ? view : undefined;
      },
      60_000,
      'R-EXPIRE expired',
    );
    t.is(expired.order.product, null);
    const notes = expired.events.filter((event) => event.to === 'EXPIRED');
    t.is(notes.length, 1);
    t.is(env.productsFor('R-EXPIRE').length, 0);
  },
);

test.serial(
  'a worker lost right after its buy recorded the MVE: the next worker takes the buy from the records, bought once',
  async (t) => {
    t.timeout(90_000);
    const { env } = t.context;
    await env.killWorkers();
    const dying = await env.startWorker({ dieAfter: { boughtOf: workflowOf('R-RECORDED') } });
    await submit(t, 'R-RECORDED', 'MVE 4/16');
    await dying.exited;
    t.is(dying.child.signalCode, 'SIGKILL');
    const [created] = env.productsFor('R-RECORDED');
    t.truthy(created, 'the provider created it');
    t.is((await record(env, 'R-RECORDED'))?.order.status, 'BOUGHT', 'recorded by the buy before its worker died');

    // The workflow task that ran the buy is given to the next worker once its timeout (10 s) passes.
    await env.startWorker();
    await env.skipServerTime(60_000);
    const bought = await waitForState(env, 'R-RECORDED', 'BOUGHT', 60_000);
    t.is(bought.buyAttempts, 1);
    t.is(bought.product?.technicalServiceUid, created!.technicalServiceUid);
    const kept = (await record(env, 'R-RECORDED'))!;
    t.is(kept.order.status, 'BOUGHT', 'the records and the workflow agree');
    t.deepEqual(
      kept.events.map((event) => event.to).filter((to) => to === 'BOUGHT' || to === 'BUY_UNCERTAIN'),
      ['BOUGHT'],
    );
    t.deepEqual(
      kept.buyAttempts.map((attempt) => [attempt.outcome, attempt.technicalServiceUid]),
      [['created', created!.technicalServiceUid]],
    );
    t.is(env.productsFor('R-RECORDED').length, 1, 'never sent again');
  },
);

test.serial(
  'every ticket re-sent with the same body buys nothing more, also once Temporal has forgotten it',
  async (t) => {
    t.timeout(90_000);
    const { env, bodies } = t.context;
    const productsBefore = env.sim.state().products.length;
    t.is(productsBefore, 5);
    const resend = async () => {
      for (const [ticketId, body] of bodies) {
        const result = await env.intake.submit(body, 'alice');
        t.false(result.created, `${ticketId} re-sent: no new order`);
      }
    };
    await resend();

    // Temporal forgets every workflow (a devserver on a new schema): the tickets in Postgres still hold.
    await env.killWorkers();
    await env.killDevserver();
    await env.startDevserver('temporal_forgot');
    await env.startWorker();
    await resend();
    let started = 0;
    for await (const _ of env.client.workflow.list()) started++;
    t.is(started, 0, 'nothing was started again');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    t.is(env.sim.state().products.length, productsBefore);
    for (const ticketId of bodies.keys()) t.true(env.productsFor(ticketId).length <= 1, ticketId);
  },
);
