/**
 * Faults on the real Temporal server, beside the devserver: a buy whose answer was lost waits in BUY_UNCERTAIN until
 * ops settle it; a worker killed in the middle of an order (right after the buy intent is in Postgres, before the
 * request leaves) is replaced and the order bought once; the approvers' webhook failing every try is given up after
 * its five. The histories of both servers must match, the lost workflow task's timeout and the activity's failure
 * with its retry state included.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest, { type TestFn } from 'ava';
import { productsFor } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import { startWorkerProcess } from '../helpers/worker-process.js';
import {
  assertEveryHistoryReplays,
  assertSameHistories,
  onBoth,
  settledIn,
  submit,
  useBothServers,
} from './fixtures/both-servers.js';

const test = anyTest as TestFn<unknown>;
const pg = usePostgres(test);

/** The approvers' chat webhook, down: it answers 500 to every message, from either server's workers. */
let webhookCalls = 0;
const webhook = createServer((request, response) => {
  webhookCalls++;
  request.resume();
  response.writeHead(500).end();
});
test.after.always(() => new Promise<void>((resolve) => webhook.close(() => resolve())));
const servers = useBothServers(test, pg, async () => {
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  return {
    approverWebhookUrl: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/services/T000/B000/secret`,
  };
});

test.serial('a buy whose answer was lost waits for ops, who settle it with the product it made', async (t) => {
  await onBoth(servers.engines, async (api, server) => {
    api.sim.injectFault({ kind: 'apply-then-drop', endpoint: 'buy' });
    await submit(t, api, 'RS-UNCERTAIN', { size: 'MVE 4/16' });
    const uncertain = await settledIn(api, 'RS-UNCERTAIN', 'BUY_UNCERTAIN');
    t.is(uncertain.buyAttempts, 1, server);
    const [made] = productsFor(api, 'RS-UNCERTAIN');
    t.truthy(made, `${server}: the provider carried the buy out`);

    const cancel = await api.call('POST', '/api/v1/orders/RS-UNCERTAIN/cancel', {
      as: 'alice',
      body: { reason: 'taking too long' },
    });
    t.is(cancel.status, 409, `${server}: the buy may have happened, nobody cancels now`);
    const resolved = await api.call('POST', '/api/v1/orders/RS-UNCERTAIN/resolve-buy', {
      as: 'olga',
      body: { outcome: 'created', technicalServiceUid: made!.technicalServiceUid, note: 'in the portal' },
    });
    t.is(resolved.status, 200, `${server}: ${JSON.stringify(resolved.body)}`);
    const bought = await settledIn(api, 'RS-UNCERTAIN', 'BOUGHT');
    t.is(bought.product?.technicalServiceUid, made!.technicalServiceUid, server);
    t.is(productsFor(api, 'RS-UNCERTAIN').length, 1, `${server}: nothing bought again`);
    t.like(
      (await api.records('RS-UNCERTAIN'))?.buyAttempts,
      [{ attempt: 1, outcome: 'created', resolvedBy: 'olga' }],
      server,
    );
  });
  await assertSameHistories(t, servers.engines, ['RS-UNCERTAIN']);
});

test.serial('a worker killed right after the buy intent, before the request left: bought once', async (t) => {
  await onBoth(servers.engines, async (api, server) => {
    // Only the worker that will die polls.
    for (const { worker } of api.workers) worker.shutdown();
    await Promise.all(api.workers.splice(0).map(({ running }) => running));
    const doomed = await startWorkerProcess(api, 'buy-intent');
    await submit(t, api, 'RS-KILLED', { size: 'MVE 4/16' });
    const [, signal] = (await once(doomed, 'exit')) as [number | null, string | null];
    t.is(signal, 'SIGKILL', `${server}: the worker died at the buy intent`);
    t.deepEqual(
      (await api.records('RS-KILLED'))?.buyAttempts.map((attempt) => attempt.outcome ?? 'pending'),
      ['pending'],
      `${server}: the intent is recorded, no outcome`,
    );
    t.is(productsFor(api, 'RS-KILLED').length, 0, `${server}: the dead worker bought nothing`);

    api.workers.push(await api.startWorker());
    // The lost workflow task times out (10 s) and the new worker runs it again.
    await settledIn(api, 'RS-KILLED', 'BOUGHT', 60_000);
    t.is(productsFor(api, 'RS-KILLED').length, 1, `${server}: bought once`);
    t.deepEqual(
      (await api.records('RS-KILLED'))?.buyAttempts.map((attempt) => [attempt.attempt, attempt.outcome]),
      [[1, 'created']],
      `${server}: the same attempt, claimed and bought by the new worker`,
    );
  });
  await assertSameHistories(t, servers.engines, ['RS-KILLED']);
});

test.serial("an approvers' webhook that fails every try is given up after five, and the order goes on", async (t) => {
  t.timeout(180_000);
  const before = webhookCalls;
  await onBoth(servers.engines, async (api, server) => {
    await submit(t, api, 'RS-WEBHOOK', { size: 'MVE 8/32' });
    // The tries back off 5, 10, 20 and 40 s: the order waits for its approver all along.
    const noted = await waitFor(
      async () =>
        (await api.records('RS-WEBHOOK'))?.notes.find((note) =>
          /approvers' webhook did not take the approval request/.test(note.message),
        ),
      150_000,
      `${server}: the webhook given up`,
    );
    t.regex(noted.message, /answered 500 to the approval request for RS-WEBHOOK/, server);
    const waiting = await settledIn(api, 'RS-WEBHOOK', 'AWAITING_APPROVAL');
    const approved = await api.call('POST', '/api/v1/orders/RS-WEBHOOK/approve', {
      as: 'fiona',
      body: { monthlyRate: waiting.quote.monthlyRate, currency: waiting.quote.currency },
    });
    t.is(approved.status, 200, `${server}: ${JSON.stringify(approved.body)}`);
    await settledIn(api, 'RS-WEBHOOK', 'BOUGHT');
    t.is(productsFor(api, 'RS-WEBHOOK').length, 1, `${server}: bought once`);
  });
  t.is(webhookCalls - before, 10, 'five tries from each server');
  await assertSameHistories(t, servers.engines, ['RS-WEBHOOK']);
});

test.serial('every history of this file replays on the current workflow code', async (t) => {
  await assertEveryHistoryReplays(t, servers.engines, 3);
});
