/**
 * "Nothing lost, nothing bought twice": the real engine with the real Temporal server and the workers each in a
 * process of its own (test/orders/fixtures/restart-env.ts), killed with SIGKILL at chosen points (orders awaiting
 * approval, a buy intent just recorded, a buy in flight, a validate in flight, approval timers pending) and started
 * again on the same data. Every order must finish as it should with at most one product per ticket at the provider
 * (the simulator, which outlives every crash); an uncertain buy is parked for ops, who resolve it from what the
 * provider shows; and every ticket re-sent through the intake (same body) buys nothing more, also once Temporal has
 * forgotten every workflow.
 *
 * Time is real: the work a killed worker held comes back once Temporal's own timeouts pass (a workflow task, with the
 * reads and the buy it runs, after 10 s; a journal write after 15 s), and the order whose approval timers are tested
 * is started by a worker whose policy gives its round a deadline of seconds.
 */
import anyTest, { type TestFn } from 'ava';
import type { OrderStatusView } from '../../workflows/order/messages.js';
import { parseApprovalPolicy, type PoliciesInForce } from '../../domain/approval/index.js';
import type { OrderState } from '../../domain/lifecycle/index.js';
import type { SimEndpoint } from '../../tooling/sim/index.js';
import { orderOf, sydneyRequest, TEST_POLICIES, workflowOf } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import { productNameFor, startRestartEnv, type RestartEnv } from './fixtures/restart-env.js';

interface Context {
  env: RestartEnv;
  bodies: Map<string, Record<string, unknown>>;
}

const test = anyTest as TestFn<Context>;
const pg = usePostgres(test);

/**
 * The test policy with an approval round of seconds: reminders 20 s and 55 s into the round, expiry at 90 s. The 35 s
 * between them leave room for a kill and restart of Temporal and the worker on a loaded machine, and for the workflow
 * task of a timer that fired meanwhile, which waits for the dead worker until its sticky queue gives up on it (10 s).
 */
const SECONDS_POLICIES: PoliciesInForce = {
  version: 'restarts-seconds-1',
  source: 'test',
  policies: {
    ...TEST_POLICIES,
    staging: parseApprovalPolicy({
      ...TEST_POLICIES.staging,
      deadline: '90s',
      reminders: { beforeDeadline: ['70s', '35s'] },
    }),
  },
};

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
    () => Promise.resolve(env.sim.state().calls[endpoint] > before ? true : undefined),
    30_000,
    `${ticketId} at ${endpoint}`,
  );
}

const record = (env: RestartEnv, ticketId: string) => env.repository.getOrder(workflowOf(ticketId));

test.serial(
  'workers and the Temporal server killed at five points: every order finishes, each bought at most once',
  async (t) => {
    t.timeout(180_000);
    const { env } = t.context;
    const { sim } = env;
    const first = await env.startWorker();

    // 1. An order awaiting approval, approved once everything has crashed.
    await submit(t, 'R-WAIT', 'MVE 8/32');
    await waitForState(env, 'R-WAIT', 'AWAITING_APPROVAL');

    // Each kill leaves an order that Temporal gives to another worker once its workflow task's timeout (10 s) passes (the
    // reads and the buy run in the workflow task).
    // 2. The worker holding the waiting order dies. Two workers follow, each dying right after R-INTENT's buy intent is
    // in Postgres (R-INTENT is the only order buying then): the one that runs it dies before it can report back or
    // buy. The other one holds the next kill points; should R-INTENT come back to it before it is killed, it dies at
    // the same point, and the lost buy stays as lost.
    await first.kill();
    const dieAfterIntent = { dieAfter: { buyIntentOf: workflowOf('R-INTENT') } };
    const pair = await Promise.all([env.startWorker(dieAfterIntent), env.startWorker(dieAfterIntent)]);
    await submit(t, 'R-INTENT', 'MVE 4/16');
    const intentWorker = await Promise.race(pair.map((candidate) => candidate.exited.then(() => candidate)));
    const holder = pair.find((candidate) => candidate !== intentWorker)!;
    t.is(intentWorker.child.signalCode, 'SIGKILL');
    t.deepEqual(
      (await record(env, 'R-INTENT'))?.buyAttempts.map((attempt) => attempt.outcome ?? 'pending'),
      ['pending'],
    );
    t.is(env.productsFor('R-INTENT').length, 0, 'the dead worker bought nothing');

    // 3 and 4. A buy and a validate in flight when their worker dies: the buy's request is at the provider (held 10 s,
    // then carried out), the validate held 4 s. One worker holds both and dies within seconds.
    await holdAtSimulator(t, 'buy', 10_000, 'R-BUY');
    await holdAtSimulator(t, 'validate', 4_000, 'R-VALIDATE');
    await holder.kill();
    await waitFor(
      () => Promise.resolve(env.productsFor('R-BUY').length === 1 ? true : undefined),
      20_000,
      'the provider carries out the orphaned buy',
    );

    // 5. Temporal dies too, with all of that open, and comes back on the same data. What the dead workers held comes
    // back once its timeout passes (workflow tasks 10 s, a journal write 15 s).
    await env.killTemporal();
    await env.startTemporal();
    await env.startWorker();

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
        technicalServiceUid: created.technicalServiceUid,
        note: 'seen at the provider',
      }),
      'BOUGHT',
    );
    t.is((await waitForState(env, 'R-BUY', 'BOUGHT')).product?.technicalServiceUid, created.technicalServiceUid);

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
        products[0].technicalServiceUid,
        `${ticketId}: the record names the product`,
      );
    }
    t.is(sim.state().products.length, 4);
  },
);

test.serial(
  'approval timers pending across a Temporal server kill: the reminders and the deadline still come, once',
  async (t) => {
    t.timeout(180_000);
    const { env } = t.context;
    // Started by a worker whose policy gives the round seconds: the order keeps that policy whatever the workers
    // started later hold.
    await env.killWorkers();
    await env.startWorker({ policies: SECONDS_POLICIES });
    await submit(t, 'R-EXPIRE', 'MVE 8/32');
    const before = await waitForState(env, 'R-EXPIRE', 'AWAITING_APPROVAL');
    t.is(before.approval?.remindersSent, 0);

    // The first reminder (20 s into the round), then everything killed with the second (55 s) and the deadline pending.
    const reminded = await waitFor(
      async () => {
        const status = await env.status('R-EXPIRE');
        return status?.approval?.remindersSent === 1 ? status : undefined;
      },
      60_000,
      'the first reminder',
    );
    t.is(reminded.state, 'AWAITING_APPROVAL');

    await env.killWorkers();
    await env.killTemporal();
    await env.startTemporal();
    await env.startWorker();
    t.is(
      (await waitForState(env, 'R-EXPIRE', 'AWAITING_APPROVAL')).approval?.remindersSent,
      1,
      'the reminder is not sent again',
    );

    const expired = await waitFor(
      async () => {
        const view = await record(env, 'R-EXPIRE');
        return view?.order.status === 'EXPIRED' ? view : undefined;
      },
      90_000,
      'R-EXPIRE expired',
    );
    t.is(expired.order.product, null);
    const expiries = expired.events.filter((event) => event.to === 'EXPIRED');
    t.is(expiries.length, 1);
    t.true(Date.parse(expiries[0].at) >= Date.parse(before.approval!.deadline), 'not before its deadline');
    const reminders = expired.notes.filter((note) => note.message.startsWith('reminder '));
    t.deepEqual(
      reminders.map((note) => note.message.split(':')[0]),
      ['reminder 1', 'reminder 2'],
      `each reminder sent once (at ${reminders.map((note) => note.at).join(', ')}; deadline ${before.approval!.deadline})`,
    );
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
    const bought = await waitForState(env, 'R-RECORDED', 'BOUGHT', 60_000);
    t.is(bought.buyAttempts, 1);
    t.is(bought.product?.technicalServiceUid, created.technicalServiceUid);
    const kept = (await record(env, 'R-RECORDED'))!;
    t.is(kept.order.status, 'BOUGHT', 'the records and the workflow agree');
    t.deepEqual(
      kept.events.map((event) => event.to).filter((to) => to === 'BOUGHT' || to === 'BUY_UNCERTAIN'),
      ['BOUGHT'],
    );
    t.deepEqual(
      kept.buyAttempts.map((attempt) => [attempt.outcome, attempt.technicalServiceUid]),
      [['created', created.technicalServiceUid]],
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

    // Temporal forgets every workflow (started again on a new, empty file): the tickets in Postgres still hold.
    await env.killWorkers();
    await env.killTemporal();
    await env.startTemporal({ forgetEverything: true });
    await env.startWorker();
    await resend();
    const started: string[] = [];
    for await (const execution of env.client.workflow.list()) started.push(execution.workflowId);
    t.deepEqual(started, [], 'nothing was started again');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    t.is(env.sim.state().products.length, productsBefore);
    for (const ticketId of bodies.keys()) t.true(env.productsFor(ticketId).length <= 1, ticketId);
  },
);
