/**
 * PostgreSQL stopped for 30 s under two API servers and two workers, while orders flow and approvals arrive. The API
 * answers 503 SERVICE_UNAVAILABLE with Retry-After and /readyz says PostgreSQL is down; the clients retry as told;
 * the workers' record activities retry; when PostgreSQL is back every order reaches its end, each bought once, and
 * every vote counts: those sent before the outage, and those refused during it and sent again.
 */
import anyTest, { type TestFn } from 'ava';
import type { Cluster } from './cluster.js';
import { useCluster } from './use-cluster.js';
import {
  AUTO_APPROVED,
  ONE_VOTE,
  approve,
  assertNothingLost,
  assertReadiness,
  assertUnavailable,
  inState,
  needsVote,
  quoteToApprove,
  readUntil,
  retriedActivities,
  submit,
  type PlannedOrder,
} from './order-flow.js';

const test = anyTest as TestFn<{ cluster: Cluster }>;
const OUTAGE_MS = 30_000;

// The outage needs a PostgreSQL the cluster may stop: its own, even when DATABASE_URL names another.
useCluster(test, { postgres: 'embedded' });

test('PostgreSQL stopped for 30 s: clear 503s, and afterwards every order ends, bought once, every vote counted', async (t) => {
  t.timeout(170_000);
  const { cluster } = t.context;
  const order = (n: number, size: PlannedOrder['size']): PlannedOrder => ({ ticketId: `PG-${n}`, size });
  const settledBefore = [order(1, AUTO_APPROVED), order(2, ONE_VOTE), order(3, ONE_VOTE)];
  const inFlight = [order(4, AUTO_APPROVED), order(5, ONE_VOTE)];
  const submittedDuring = [order(6, AUTO_APPROVED), order(7, ONE_VOTE)];

  // Before: orders waiting for fiona, one vote given; then two more orders, still in the workers' hands at the stop.
  await Promise.all(settledBefore.map((planned) => submit(cluster, planned)));
  const [quote2, quote3] = await Promise.all([quoteToApprove(cluster, 'PG-2'), quoteToApprove(cluster, 'PG-3')]);
  await approve(cluster, 'PG-2', quote2);
  await Promise.all(inFlight.map((planned) => submit(cluster, planned)));

  const stoppedAt = Date.now();
  await cluster.stopPostgres();
  t.log(`PostgreSQL stopped; orders in flight: ${inFlight.map((planned) => planned.ticketId).join(', ')}`);
  // During: fiona's vote on PG-3 and two new tickets, each sent again after Retry-After until it is taken.
  const voteDuring = approve(cluster, 'PG-3', quote3);
  const submitsDuring = Promise.all(submittedDuring.map((planned) => submit(cluster, planned)));
  for (const server of [0, 1]) {
    assertUnavailable(t, await cluster.http.call('GET', '/api/v1/orders/PG-1', { as: 'olga', server }), 'PostgreSQL');
    assertUnavailable(
      t,
      await cluster.http.call('POST', '/api/v1/orders/PG-3/approve', { as: 'fiona', server, body: quote3 }),
      'PostgreSQL',
    );
    await assertReadiness(t, cluster, server, 'postgres');
  }
  await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS - (Date.now() - stoppedAt)));
  await cluster.startPostgres();
  const restartedAt = Date.now();
  t.log(`PostgreSQL started again after ${((restartedAt - stoppedAt) / 1000).toFixed(1)} s`);

  // After: the vote sent during the outage counted; the late tickets are orders; fiona approves the ones still waiting.
  await voteDuring;
  await submitsDuring;
  for (const planned of [...inFlight, ...submittedDuring].filter(needsVote))
    await approve(cluster, planned.ticketId, await quoteToApprove(cluster, planned.ticketId));
  for (const server of [0, 1]) t.is((await cluster.http.call('GET', '/readyz', { server })).status, 200);

  const everyOrder = [...settledBefore, ...inFlight, ...submittedDuring];
  await Promise.all(everyOrder.map((planned) => readUntil(cluster, planned.ticketId, inState('LIVE'), 'LIVE')));
  t.log(`every order LIVE ${((Date.now() - restartedAt) / 1000).toFixed(1)} s after PostgreSQL came back`);
  await assertNothingLost(t, cluster, everyOrder);
  // The workers kept trying to write the journal of the orders in their hands, and it is whole.
  const retried = (await Promise.all(everyOrder.map((planned) => retriedActivities(cluster, planned.ticketId)))).flat();
  t.true(
    retried.some((activity) => activity.startsWith('recordJournal')),
    `the journal was written again after failing: ${retried.join(', ')}`,
  );
  const { stats } = cluster.http;
  t.true(stats.unavailable > 0);
  t.log(
    `activities retried: ${retried.join(', ')}; 503s: ${stats.unavailable} (${JSON.stringify(stats.unavailableBy)}), requests ${stats.requests}, ` +
      `answers by server ${JSON.stringify(stats.answersByServer)}, longest patient call ` +
      `${(stats.longestPatientMs / 1000).toFixed(1)} s (${stats.longestPatientCall})`,
  );
});
