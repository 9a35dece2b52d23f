/**
 * Temporal stopped for 30 s under two API servers and two workers. Reads answer from the records (`source:
 * "records"`); votes and cancels are 503 with Retry-After; /readyz says Temporal is down. When it is back, the same
 * workers and servers (none restarted) carry on by themselves: the refused vote and cancel, sent again, are taken, a
 * ticket sent during the outage becomes its order, and every order ends, bought once.
 */
import anyTest, { type TestFn } from 'ava';
import type { ApiOrder } from '../../client/http-client/index.js';
import { json } from '../helpers/json.js';
import type { Cluster } from './cluster.js';
import { useCluster } from './use-cluster.js';
import {
  AUTO_APPROVED,
  ONE_VOTE,
  approve,
  assertNothingLost,
  assertReadiness,
  assertUnavailable,
  ended,
  inState,
  quoteToApprove,
  readUntil,
  submit,
  type PlannedOrder,
} from './order-flow.js';

const test = anyTest as TestFn<{ cluster: Cluster }>;
const OUTAGE_MS = 30_000;

useCluster(test);

test('Temporal stopped for 30 s: reads from the records, actions 503; afterwards the same processes finish every order', async (t) => {
  t.timeout(170_000);
  const { cluster } = t.context;
  const order = (n: number, size: PlannedOrder['size']): PlannedOrder => ({ ticketId: `TMP-${n}`, size });
  const before = [order(1, AUTO_APPROVED), order(2, ONE_VOTE), order(3, ONE_VOTE), order(4, ONE_VOTE)];
  const submittedDuring = order(5, AUTO_APPROVED);
  const pids = () => [...cluster.servers, ...cluster.workers].map((slot) => slot.pid);
  const pidsBefore = pids();

  // Before: three orders wait for fiona; she approves one. TMP-4 will be cancelled.
  await Promise.all(before.map((planned) => submit(cluster, planned)));
  const [quote2, quote3] = await Promise.all(['TMP-2', 'TMP-3', 'TMP-4'].map((id) => quoteToApprove(cluster, id)));
  await approve(cluster, 'TMP-2', quote2);
  await readUntil(cluster, 'TMP-1', ended, 'final');

  const stoppedAt = Date.now();
  await cluster.stopTemporal();
  t.log('Temporal stopped');
  // During, on each server: a read answers from the records (once the Temporal client gives up, ~20 s) and so does
  // fiona's inbox; a vote and a cancel are refused, saying to come back; /readyz says which is down. A new ticket is
  // sent until it is taken. Temporal stays down until these are answered, 30 s at least.
  const submitDuring = submit(cluster, submittedDuring);
  await Promise.all(
    [0, 1].map(async (server) => {
      const [read, inbox, vote, cancel] = await Promise.all([
        cluster.http.call('GET', '/api/v1/orders/TMP-3', { as: 'olga', server }),
        cluster.http.call('GET', '/api/v1/approvals', { as: 'fiona', server }),
        cluster.http.call('POST', '/api/v1/orders/TMP-3/approve', { as: 'fiona', server, body: quote3 }),
        cluster.http.call('POST', '/api/v1/orders/TMP-4/cancel', {
          as: 'ticket-bot',
          server,
          body: { reason: 'no longer needed' },
        }),
        assertReadiness(t, cluster, server, 'temporal'),
      ]);
      t.is(read.status, 200, JSON.stringify(read.body));
      t.is(json<ApiOrder>(read).source, 'records', `server ${server} read from the records`);
      t.is(json<ApiOrder>(read).state, 'AWAITING_APPROVAL');
      t.is(inbox.status, 200, JSON.stringify(inbox.body));
      t.true(JSON.stringify(inbox.body).includes('TMP-3'), `server ${server}: TMP-3 in fiona's inbox`);
      assertUnavailable(t, vote, 'Temporal');
      assertUnavailable(t, cancel, 'Temporal');
    }),
  );
  // Sent again as a client would: after Retry-After, until Temporal takes them.
  const voteAgain = approve(cluster, 'TMP-3', quote3);
  const cancelAgain = cluster.http.patient('POST', '/api/v1/orders/TMP-4/cancel', {
    as: 'ticket-bot',
    body: { reason: 'no longer needed' },
  });
  await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS - (Date.now() - stoppedAt)));
  await cluster.startTemporal();
  const restartedAt = Date.now();
  t.log(`Temporal started again after ${((restartedAt - stoppedAt) / 1000).toFixed(1)} s`);

  await voteAgain;
  t.is((await cancelAgain).status, 200, 'the cancel was taken');
  await submitDuring;
  for (const server of [0, 1]) t.is((await cluster.http.call('GET', '/readyz', { server })).status, 200);
  const everyOrder = [...before, submittedDuring];
  await Promise.all(
    everyOrder
      .filter((planned) => planned.ticketId !== 'TMP-4')
      .map((planned) => readUntil(cluster, planned.ticketId, inState('LIVE'), 'LIVE')),
  );
  t.log(`every order ended ${((Date.now() - restartedAt) / 1000).toFixed(1)} s after Temporal came back`);
  await assertNothingLost(t, cluster, everyOrder, new Set(['TMP-4']));
  t.deepEqual(pids(), pidsBefore, 'no worker or server was restarted');
  t.true([...cluster.servers, ...cluster.workers].every((slot) => slot.alive()));
  const { stats } = cluster.http;
  t.log(
    `503s: ${stats.unavailable} (${JSON.stringify(stats.unavailableBy)}), requests ${stats.requests}, ` +
      `answers by server ${JSON.stringify(stats.answersByServer)}, longest patient call ` +
      `${(stats.longestPatientMs / 1000).toFixed(1)} s (${stats.longestPatientCall})`,
  );
});
