import anyTest, { type TestFn } from 'ava';
import type { ProvisioningPlan } from '../../domain/lifecycle/index.js';
import { checkOrderRequest } from '../../domain/index.js';
import type { OrderRequest } from '../../schemas/index.js';
import { SIM_KIND_MAP } from '../../tooling/sim/index.js';
import { usePostgres } from '../helpers/postgres.js';
import {
  orderOf,
  replayEveryHistory,
  startCallbackReceiver,
  startOrderEngine,
  sydneyRequest,
  workflowOf,
  type CallbackReceiver,
  type OrderEngine,
} from '../helpers/orders.js';
import { waitFor, waitForState } from '../helpers/wait.js';
import { eventShape } from '../helpers/history-shape.js';
import protoRoot from '@temporalio/proto';

const { History } = protoRoot.temporal.api.history.v1;

const test = anyTest as TestFn<{ engine: OrderEngine; tickets: CallbackReceiver }>;
const pg = usePostgres(test);

/**
 * Reads soon after the buy and often, a reminder every 5 s, stalled after 15 s: the simulator's product is LIVE after
 * 1.5 s, so every order here runs in real time (a result awaited on the test server would skip time the simulator's
 * clock does not).
 */
const PLAN: ProvisioningPlan = { firstPollMs: 200, maxPollMs: 400, reminderMs: 5_000, deadlineMs: 15_000 };

test.before(async (t) => {
  t.context.engine = await startOrderEngine(pg, {
    provisioning: PLAN,
    simProvisioning: { configuredAfterMs: 1_000, liveAfterMs: 5_000 },
  });
  t.context.tickets = await startCallbackReceiver();
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
  await t.context.tickets?.close();
});

/** An auto-approved order (MVE 4/16 is under the test policy's line), told to the test's ticket system. */
async function submit(engine: OrderEngine, ticketId: string, tickets?: CallbackReceiver) {
  return engine.submit(sydneyRequest(ticketId, tickets ? { callbackUrl: tickets.url } : {}));
}

function checkedRequest(ticketId: string): OrderRequest {
  const checked = checkOrderRequest(sydneyRequest(ticketId), { kindMap: SIM_KIND_MAP });
  if (!checked.request) throw new Error(`the test request does not check: ${JSON.stringify(checked.errors)}`);
  return checked.request;
}

function productsBought(engine: OrderEngine): number {
  return engine.sim.state().calls.buy;
}

test.serial(
  'a bought MVE is followed until it is LIVE, each change told to the ticket system and recorded',
  async (t) => {
    const { engine, tickets } = t.context;
    const boughtBefore = productsBought(engine);
    const submitted = await submit(engine, 'PROV-LIVE', tickets);
    const live = await waitForState(engine.orders, 'PROV-LIVE', 'LIVE', 30_000);

    t.is(productsBought(engine), boughtBefore + 1, 'one buy, and only reads after it');
    t.deepEqual(
      live.provisioning?.statuses.map((seen) => seen.status),
      ['DEPLOYABLE', 'CONFIGURED', 'LIVE'],
    );
    t.is(live.provisioning?.status, 'LIVE');
    t.is(live.product?.provisioningStatus, 'LIVE');
    t.deepEqual(live.timeline.map((line) => line.state).slice(-3), ['BOUGHT', 'PROVISIONING', 'LIVE']);

    const outcome = await engine.orders.result(orderOf('PROV-LIVE'));
    t.is(outcome.state, 'LIVE');
    const records = await engine.repository.getOrder(submitted.workflowId);
    t.is(records?.order.status, 'LIVE');
    t.is(records?.order.product?.provisioningStatus, 'LIVE');
    t.deepEqual(
      records?.notes.filter((note) => note.message.startsWith('product ')).map((note) => note.message.split(' ')[3]),
      ['CONFIGURED', 'LIVE'],
      'each status change is in the records, with how long the one before lasted',
    );

    const mine = await waitFor(() => {
      const told = tickets.received.filter((notification) => notification.ticketId === 'PROV-LIVE');
      return Promise.resolve(told.some((notification) => notification.state === 'LIVE') ? told : undefined);
    });
    t.deepEqual(
      mine
        .filter((notification) => notification.event === 'provisioning-changed')
        .map((n) => n.product?.provisioningStatus),
      ['CONFIGURED', 'LIVE'],
    );
    t.deepEqual(
      mine
        .filter((notification) => notification.event === 'state-changed')
        .map((n) => n.state)
        .slice(-3),
      ['BOUGHT', 'PROVISIONING', 'LIVE'],
    );
  },
);

test.serial(
  'a product the provider fails ends the order PROVISIONING_FAILED with its status; nothing is bought again',
  async (t) => {
    const { engine } = t.context;
    const boughtBefore = productsBought(engine);
    engine.sim.injectFault({ kind: 'provisioning', outcome: 'fail', status: 'DECOMMISSIONED', times: 1 });
    await submit(engine, 'PROV-FAIL');
    await waitForState(engine.orders, 'PROV-FAIL', 'PROVISIONING_FAILED', 30_000);
    const outcome = await engine.orders.result(orderOf('PROV-FAIL'));
    t.is(outcome.state, 'PROVISIONING_FAILED');
    t.regex(outcome.reason, /as DECOMMISSIONED/);
    const status = await engine.orders.status(orderOf('PROV-FAIL'));
    t.regex(status.lastError?.message ?? '', /DECOMMISSIONED/);
    t.is(status.product?.provisioningStatus, 'DECOMMISSIONED');
    t.is(productsBought(engine), boughtBefore + 1);
  },
);

test.serial(
  'a product stuck in CONFIGURED: ops are reminded while it is slow, and the order ends PROVISIONING_STALLED at the deadline',
  async (t) => {
    const { engine, tickets } = t.context;
    const started = Date.now();
    engine.sim.injectFault({ kind: 'provisioning', outcome: 'stuck', times: 1 });
    const submitted = await submit(engine, 'PROV-STUCK', tickets);
    await waitForState(engine.orders, 'PROV-STUCK', 'PROVISIONING_STALLED', 60_000);
    const outcome = await engine.orders.result(orderOf('PROV-STUCK'));
    t.true(Date.now() - started >= PLAN.deadlineMs, 'not before the deadline');
    t.regex(outcome.reason, /still CONFIGURED/);

    const status = await engine.orders.status(orderOf('PROV-STUCK'));
    t.is(status.provisioning?.remindersSent, 2, 'reminded at 5 and 10 s; the deadline itself ends it');
    const notes = (await engine.repository.getOrder(submitted.workflowId))!.notes;
    t.is(notes.filter((note) => /^reminder \d: product .* is not LIVE yet \(CONFIGURED/.test(note.message)).length, 2);
    const told = tickets.received.filter((notification) => notification.ticketId === 'PROV-STUCK');
    t.is(told.filter((notification) => notification.event === 'provisioning-slow').length, 2);
  },
);

test.serial(
  'a product read that fails for a while is shown as the last error, then the follow-up recovers to LIVE',
  async (t) => {
    const { engine } = t.context;
    // Each read makes up to three tries: nine failed calls are three failed reads.
    engine.sim.injectFault({ kind: 'error', endpoint: 'product', status: 503, times: 9 });
    const submitted = await submit(engine, 'PROV-FLAKY');
    const failing = await waitFor(async () => {
      const status = await engine.orders.status(orderOf('PROV-FLAKY'));
      return status.provisioning && status.provisioning.failedReads > 0 ? status : undefined;
    }, 30_000);
    t.regex(failing.lastError?.message ?? '', /reads it again later/);

    const live = await waitForState(engine.orders, 'PROV-FLAKY', 'LIVE', 30_000);
    t.is(live.lastError, undefined, 'an answer clears the error');
    t.is(live.provisioning?.failedReads, 0);
    const records = await engine.repository.getOrder(submitted.workflowId);
    await waitFor(async () =>
      (await engine.repository.getOrder(submitted.workflowId))?.order.status === 'LIVE' ? true : undefined,
    );
    t.is(records?.order.lastError ?? null, null);
  },
);

test.serial('a worker lost mid-provisioning: another worker follows the product to LIVE; bought once', async (t) => {
  const { engine } = t.context;
  const boughtBefore = productsBought(engine);
  // LIVE long after the new worker is up (its first reads see CONFIGURED however loaded the machine is).
  engine.sim.setProvisioning({ configuredAfterMs: 500, liveAfterMs: 15_000 });
  try {
    await submit(engine, 'PROV-RESTART');
    await waitForState(engine.orders, 'PROV-RESTART', 'PROVISIONING', 30_000);
    const [first] = engine.workers.splice(0, 1);
    first.worker.shutdown();
    await first.running;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    engine.workers.push(await engine.startWorker());
    const live = await waitForState(engine.orders, 'PROV-RESTART', 'LIVE', 60_000);
    t.deepEqual(
      live.provisioning?.statuses.map((seen) => seen.status),
      ['DEPLOYABLE', 'CONFIGURED', 'LIVE'],
    );
    t.is(productsBought(engine), boughtBefore + 1);
  } finally {
    engine.sim.setProvisioning({ configuredAfterMs: 1_000, liveAfterMs: 5_000 });
  }
});

test.serial('a long follow-up continues as new, carrying what it has seen, and ends LIVE', async (t) => {
  const { engine } = t.context;
  engine.sim.setProvisioning({ configuredAfterMs: 300, liveAfterMs: 5_000 });
  try {
    const handle = await engine.startRegistered({
      request: checkedRequest('PROV-LONG'),
      options: { continueAsNewAfterEvents: 40 },
    });
    const live = await waitForState(engine.orders, 'PROV-LONG', 'LIVE', 40_000);
    t.deepEqual(
      live.provisioning?.statuses.map((seen) => seen.status),
      ['DEPLOYABLE', 'CONFIGURED', 'LIVE'],
    );
    const description = await engine.client.workflow.getHandle(handle.workflowId).describe();
    t.not(description.runId, handle.firstExecutionRunId, 'the order ended in a later run');
  } finally {
    engine.sim.setProvisioning({ configuredAfterMs: 1_000, liveAfterMs: 5_000 });
  }
});

for (const [mode, status] of [
  ['not-found', 404],
  ['not-allowed', 405],
] as const) {
  test.serial(
    `an API that answers the product read with ${status} does not offer it: the order ends at BOUGHT`,
    async (t) => {
      const { engine } = t.context;
      engine.sim.setProductRead(mode);
      try {
        const ticketId = `PROV-NOREAD-${status}`;
        await submit(engine, ticketId);
        const outcome = await engine.orders.result(orderOf(ticketId));
        t.is(outcome.state, 'BOUGHT');
        const view = await engine.orders.status(orderOf(ticketId));
        t.is(view.provisioning, undefined);
        t.is(view.product?.provisioningStatus, 'DEPLOYABLE');
        t.is(view.lastError, undefined);
      } finally {
        engine.sim.setProductRead('offered');
      }
    },
  );
}

test.serial(
  'a poll costs six history events, a timer and a read marker among them; a status change adds its journal',
  async (t) => {
    const { engine } = t.context;
    const historyOf = async (ticketId: string) => {
      const history = await engine.client.workflow.getHandle(workflowOf(ticketId)).fetchHistory();
      const events = history.events ?? [];
      const bytes = (of: typeof events) => History.encode(History.create({ events: of })).finish().length;
      return { events, types: events.map(eventShape), bytes };
    };
    const stuck = await historyOf('PROV-STUCK');
    const fired = stuck.types.flatMap((type, index) => (type === 'TIMER_FIRED' ? [index] : []));
    const polls = fired.slice(1).map((index, n) => ({ from: fired[n] + 1, to: index + 1 }));
    const quiet = polls.filter(
      ({ from, to }) => !stuck.types.slice(from, to).some((type) => type.startsWith('ACTIVITY_TASK')),
    );
    // On a loaded machine many polls share their span with a reminder or a notification; a few quiet ones show the shape.
    t.true(quiet.length >= 3, `${quiet.length} polls that found nothing new`);
    const task = ['WORKFLOW_TASK_SCHEDULED', 'WORKFLOW_TASK_STARTED', 'WORKFLOW_TASK_COMPLETED'];
    const quietPoll = [...task, 'MARKER_RECORDED core_local_activity', 'TIMER_STARTED', 'TIMER_FIRED'];
    // On a loaded machine the workflow may go on from a read's answer in one more workflow task, or a read that
    // outlasts its workflow task's timeout keeps the task alive with one more before its marker.
    const slowPoll = [...task, 'MARKER_RECORDED core_local_activity', ...task, 'TIMER_STARTED', 'TIMER_FIRED'];
    const longRead = [...task, ...task, 'MARKER_RECORDED core_local_activity', 'TIMER_STARTED', 'TIMER_FIRED'];
    const shapes = quiet.map(({ from, to }) => stuck.types.slice(from, to).join(', '));
    const known = [quietPoll, slowPoll, longRead].map((shape) => shape.join(', '));
    for (const shape of shapes) t.true(known.includes(shape), shape);
    t.true(shapes.includes(quietPoll.join(', ')), 'a poll in its own workflow task: six events');
    // What following a product to LIVE adds to an order that ends at BOUGHT (both auto-approved, no callback URL).
    await submit(engine, 'PROV-LEAN');
    await waitForState(engine.orders, 'PROV-LEAN', 'LIVE', 30_000);
    await engine.orders.result(orderOf('PROV-LEAN'));
    const live = await historyOf('PROV-LEAN');
    const bought = await historyOf('PROV-NOREAD-404');
    const poll = stuck.bytes(stuck.events.slice(quiet[0].from, quiet[0].to));
    t.log(
      `LIVE order: ${live.types.length} events, ${live.bytes(live.events)} bytes; ended at BOUGHT (one read): ${bought.types.length} events, ${bought.bytes(bought.events)} bytes; a quiet poll: 6 events, ${poll} bytes`,
    );
    t.true(live.types.length > bought.types.length);
  },
);

/** Fails unless the times run forward in sequence order, naming each line when they do not. */
function inOrder<T extends { at: string }>(lines: T[], label: (line: T) => string): string | undefined {
  const back = lines.findIndex((line, index) => index > 0 && Date.parse(line.at) < Date.parse(lines[index - 1].at));
  return back < 0
    ? undefined
    : `${label(lines[back])} at ${lines[back].at} is before ${label(lines[back - 1])} at ${lines[back - 1].at}`;
}

test.serial(
  'the timeline runs in the order things happened, and the provisioning section agrees with it on when it was bought',
  async (t) => {
    const { engine } = t.context;
    // A buy that takes its time: the workflow's clock stands still while its task waits for it.
    engine.sim.injectFault({ kind: 'latency', endpoint: 'buy', ms: 500, times: 1 });
    const submitted = await submit(engine, 'PROV-ORDER');
    const live = await waitForState(engine.orders, 'PROV-ORDER', 'LIVE', 30_000);
    t.is(
      inOrder(live.timeline, (line) => `${line.seq} ${line.state}`),
      undefined,
      live.timeline.map((line) => `${line.seq} ${line.at} ${line.state}`).join('\n'),
    );
    const bought = live.timeline.find((line) => line.state === 'BOUGHT')!;
    t.is(live.provisioning?.startedAt, bought.at, 'bought when the timeline says');
    t.is(live.provisioning?.statuses[0]?.at, bought.at, 'the status the buy answered was seen then');

    const records = await waitFor(async () => {
      const order = await engine.repository.getOrder(submitted.workflowId);
      return order?.events.some((event) => event.to === 'LIVE') ? order : undefined;
    });
    const recorded = [
      ...records.events.map((event) => ({ seq: event.sequence, at: event.at, what: event.to })),
      ...records.notes.map((note) => ({ seq: note.sequence, at: note.at, what: `note ${note.message}` })),
    ].sort((a, b) => a.seq - b.seq);
    t.is(
      inOrder(recorded, (line) => `${line.seq} ${line.what}`),
      undefined,
      'the records run forward too',
    );
  },
);

test.serial(
  'an uncertain buy ops settle as created: no unknown outcome is left, and LIVE is told from the settlement',
  async (t) => {
    const { engine } = t.context;
    engine.sim.injectFault({ kind: 'apply-then-drop', endpoint: 'buy', times: 2 });
    const before = engine.sim.state().products.length;
    const early = await submit(engine, 'PROV-SETTLED-EARLY');
    const late = await submit(engine, 'PROV-SETTLED-LATE');
    const uncertain = await waitForState(engine.orders, 'PROV-SETTLED-EARLY', 'BUY_UNCERTAIN', 30_000);
    await waitForState(engine.orders, 'PROV-SETTLED-LATE', 'BUY_UNCERTAIN', 30_000);
    t.regex(uncertain.lastError?.message ?? '', /outcome is unknown/);
    const productOf = (ticketId: string) =>
      engine.sim
        .state()
        .products.slice(before)
        .find((product) => product.serviceName.includes(`[${orderOf(ticketId)}]`))!;
    const settle = (ticketId: string) =>
      engine.orders.resolveBuy(orderOf(ticketId), {
        actor: 'olga-ops',
        outcome: 'created',
        technicalServiceUid: productOf(ticketId).technicalServiceUid,
        note: 'found in the portal',
      });

    // One settled while its product is still being set up, the other once the provider has it LIVE.
    await settle('PROV-SETTLED-EARLY');
    await waitFor(() => Promise.resolve(productOf('PROV-SETTLED-LATE').provisioningStatus === 'LIVE' || undefined));
    await settle('PROV-SETTLED-LATE');
    for (const [ticketId, submitted, reason] of [
      ['PROV-SETTLED-EARLY', early, /^product \S+ is LIVE, \d+ s after olga-ops settled the buy$/],
      ['PROV-SETTLED-LATE', late, /^product \S+ is LIVE, as it was when olga-ops settled the buy$/],
    ] as const) {
      const live = await waitForState(engine.orders, ticketId, 'LIVE', 30_000);
      t.is(live.lastError, undefined, `${ticketId}: the unknown outcome is settled`);
      t.regex(live.timeline.at(-1)!.reason, reason, ticketId);
      t.is(live.provisioning?.settledBy, 'olga-ops');
      t.false(
        live.provisioning?.statuses.some((seen) => seen.status === 'UNKNOWN'),
        `${ticketId}: no unknown step`,
      );
      t.is(
        inOrder(live.timeline, (line) => line.state),
        undefined,
        ticketId,
      );
      const records = await waitFor(async () => {
        const order = await engine.repository.getOrder(submitted.workflowId);
        return order?.order.status === 'LIVE' ? order : undefined;
      });
      t.is(records.order.lastError, null, `${ticketId}: the records hold no unknown outcome either`);
    }
    t.deepEqual(
      (await engine.orders.status(orderOf('PROV-SETTLED-LATE'))).provisioning?.statuses.map((seen) => seen.status),
      ['LIVE'],
    );
  },
);

test.serial('every history of this file replays cleanly', async (t) => {
  const { replayed, failures } = await replayEveryHistory(t.context.engine);
  t.deepEqual(failures, []);
  t.true(replayed >= 8);
});
