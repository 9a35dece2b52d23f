/**
 * One of two API servers and one of two workers SIGKILLed mid-flight, the worker while a buy it sent is held at the
 * provider. Clients meet the dead server and go on with the other; the other worker takes every order over. The
 * killed buy is not sent again: the order waits as BUY_UNCERTAIN until ops settle it with the product the provider
 * shows. Every order ends LIVE, each bought once, every vote counted.
 */
import anyTest, { type TestFn } from 'ava';
import { Client, Connection } from '@temporalio/client';
import type { SubmitResult } from '../../client/http-client/index.js';
import { json } from '../helpers/json.js';
import { waitFor } from '../helpers/wait.js';
import type { Cluster } from './cluster.js';
import { useCluster } from './use-cluster.js';
import {
  AUTO_APPROVED,
  ONE_VOTE,
  approve,
  assertNothingLost,
  inState,
  needsVote,
  quoteToApprove,
  readUntil,
  submit,
  type PlannedOrder,
} from './order-flow.js';

const test = anyTest as TestFn<{ cluster: Cluster }>;
/** How long the provider holds the buy: the worker is killed meanwhile. */
const BUY_HELD_MS = 6_000;

useCluster(test);

/**
 * The worker whose process runs the order's workflow task now: the identity (`pid@host`) its last task started with,
 * read from Temporal as `temporal workflow show` would (the API's reads wait for that task to finish).
 */
async function workerRunning(cluster: Cluster, workflowId: string): Promise<number> {
  const connection = await Connection.connect({ address: cluster.temporal.address });
  try {
    const history = await new Client({ connection }).workflow.getHandle(workflowId).fetchHistory();
    const started = history.events?.filter((event) => event.workflowTaskStartedEventAttributes).at(-1);
    const pid = Number(/^(\d+)@/.exec(started?.workflowTaskStartedEventAttributes?.identity ?? '')?.[1]);
    const worker = cluster.workers.find((slot) => slot.pid === pid);
    if (!worker) throw new Error(`no worker of the cluster runs ${workflowId}'s workflow task (last started: ${pid})`);
    return worker.index;
  } finally {
    await connection.close();
  }
}

test('a server and the worker holding a buy SIGKILLed: clients go on elsewhere, every order ends, bought once', async (t) => {
  t.timeout(170_000);
  const { cluster } = t.context;
  const { sim } = cluster;
  const order = (n: number, size: PlannedOrder['size']): PlannedOrder => ({ ticketId: `KILL-${n}`, size });
  const held = order(1, AUTO_APPROVED);
  const others = [order(2, ONE_VOTE), order(3, AUTO_APPROVED), order(4, ONE_VOTE)];

  // fiona's orders wait for her vote; then the buy of KILL-1 reaches the provider, which holds it.
  await Promise.all(others.map((planned) => submit(cluster, planned)));
  const quotes = await Promise.all(
    others.filter(needsVote).map((planned) => quoteToApprove(cluster, planned.ticketId)),
  );
  const buysBefore = sim.state().calls.buy;
  sim.injectFault({ kind: 'latency', endpoint: 'buy', ms: BUY_HELD_MS });
  const { workflowId } = json<SubmitResult>(await submit(cluster, held)).order;
  await waitFor(
    () => Promise.resolve(sim.state().calls.buy > buysBefore || undefined),
    30_000,
    'the buy at the provider',
  );
  const worker = await workerRunning(cluster, workflowId);

  // Kill both while requests are in flight: fiona's votes and reads of every order, sent round the servers.
  const answersBefore = [...cluster.http.stats.answersByServer];
  const traffic = Promise.all([
    ...others.filter(needsVote).map((planned, i) => approve(cluster, planned.ticketId, quotes[i])),
    ...[held, ...others].map((planned) =>
      cluster.http.patient('GET', `/api/v1/orders/${planned.ticketId}`, { as: 'ticket-bot' }),
    ),
  ]);
  await Promise.all([cluster.killServer(0), cluster.killWorker(worker)]);
  t.log(`killed server 0 and worker ${worker}, which held ${held.ticketId}'s buy`);
  await traffic;

  // The killed buy is never sent again: the provider's product settles it, by ops' hand.
  const uncertain = await readUntil(cluster, held.ticketId, inState('BUY_UNCERTAIN'), 'BUY_UNCERTAIN', 60_000);
  t.is(uncertain.buyAttempts, 1);
  const [product] = cluster.productsFor(held.ticketId);
  t.truthy(product, 'the provider carried out the buy the killed worker sent');
  const resolved = await cluster.http.patient('POST', `/api/v1/orders/${held.ticketId}/resolve-buy`, {
    as: 'olga',
    body: {
      outcome: 'created',
      attempt: uncertain.buyAttempts,
      technicalServiceUid: product.technicalServiceUid,
      note: 'seen on the portal',
    },
  });
  t.is(resolved.status, 200, JSON.stringify(resolved.body));

  const everyOrder = [held, ...others];
  await Promise.all(everyOrder.map((planned) => readUntil(cluster, planned.ticketId, inState('LIVE'), 'LIVE')));
  await assertNothingLost(t, cluster, everyOrder);
  const { stats } = cluster.http;
  t.true(stats.unanswered > 0, 'the clients met the dead server');
  t.is(stats.answersByServer[0], answersBefore[0], 'nothing was answered by the dead server');
  t.true(cluster.workers.filter((slot) => slot.alive()).length === 1 && !cluster.servers[0].alive());
  t.log(
    `unanswered: ${stats.unanswered} (${JSON.stringify(stats.unansweredWhy)}), requests ${stats.requests}, ` +
      `answers by server ${JSON.stringify(stats.answersByServer)}, longest patient call ` +
      `${(stats.longestPatientMs / 1000).toFixed(1)} s (${stats.longestPatientCall})`,
  );
});
