/**
 * Faults on Temporal's own server: a buy whose answer was lost waits in BUY_UNCERTAIN until ops settle it; a worker
 * killed in the middle of an order (right after the buy intent is in Postgres, before the request leaves) is replaced
 * and the order bought once; the approvers' webhook failing every try is given up after its five.
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
  eventsLike,
  orderHistory,
  settledIn,
  submit,
  useApiEngine,
} from './fixtures/scenario-engine.js';

const test = anyTest as TestFn<unknown>;
const pg = usePostgres(test);

/** The approvers' chat webhook, down: it answers 500 to every message. */
let webhookCalls = 0;
const webhook = createServer((request, response) => {
  webhookCalls++;
  request.resume();
  response.writeHead(500).end();
});
test.after.always(() => new Promise<void>((resolve) => webhook.close(() => resolve())));
const engine = useApiEngine(test, pg, async () => {
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  return {
    approverWebhookUrl: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/services/T000/B000/secret`,
  };
});

test.serial('a buy whose answer was lost waits for ops, who settle it with the product it made', async (t) => {
  const { api } = engine;
  api.sim.injectFault({ kind: 'apply-then-drop', endpoint: 'buy' });
  await submit(t, api, 'RS-UNCERTAIN', { size: 'MVE 4/16' });
  const uncertain = await settledIn(api, 'RS-UNCERTAIN', 'BUY_UNCERTAIN');
  t.is(uncertain.buyAttempts, 1);
  const [made] = productsFor(api, 'RS-UNCERTAIN');
  t.truthy(made, 'the provider carried the buy out');

  const cancel = await api.call('POST', '/api/v1/orders/RS-UNCERTAIN/cancel', {
    as: 'alice',
    body: { reason: 'taking too long' },
  });
  t.is(cancel.status, 409, 'the buy may have happened, nobody cancels now');
  const resolved = await api.call('POST', '/api/v1/orders/RS-UNCERTAIN/resolve-buy', {
    as: 'olga',
    body: { outcome: 'created', attempt: 1, technicalServiceUid: made.technicalServiceUid, note: 'in the portal' },
  });
  t.is(resolved.status, 200, JSON.stringify(resolved.body));
  const bought = await settledIn(api, 'RS-UNCERTAIN', 'BOUGHT');
  t.is(bought.product?.technicalServiceUid, made.technicalServiceUid);
  t.is(productsFor(api, 'RS-UNCERTAIN').length, 1, 'nothing bought again');
  t.like((await api.records('RS-UNCERTAIN'))?.buyAttempts, [{ attempt: 1, outcome: 'created', resolvedBy: 'olga' }]);
});

test.serial('a worker killed right after the buy intent, before the request left: bought once', async (t) => {
  t.timeout(180_000);
  const { api } = engine;
  // Only the worker that will die polls.
  for (const { worker } of api.workers) worker.shutdown();
  await Promise.all(api.workers.splice(0).map(({ running }) => running));
  const doomed = await startWorkerProcess(api, 'buy-intent');
  await submit(t, api, 'RS-KILLED', { size: 'MVE 4/16' });
  const [, signal] = (await once(doomed, 'exit')) as [number | null, string | null];
  t.is(signal, 'SIGKILL', 'the worker died at the buy intent');
  t.deepEqual(
    (await api.records('RS-KILLED'))?.buyAttempts.map((attempt) => attempt.outcome ?? 'pending'),
    ['pending'],
    'the intent is recorded, no outcome',
  );
  t.is(productsFor(api, 'RS-KILLED').length, 0, 'the dead worker bought nothing');

  api.workers.push(await api.startWorker());
  // The lost workflow task times out (10 s) and the new worker runs it again.
  await settledIn(api, 'RS-KILLED', 'BOUGHT', 90_000);
  t.is(productsFor(api, 'RS-KILLED').length, 1, 'bought once');
  t.deepEqual(
    (await api.records('RS-KILLED'))?.buyAttempts.map((attempt) => [attempt.attempt, attempt.outcome]),
    [[1, 'created']],
    'the same attempt, claimed and bought by the new worker',
  );
  const history = await orderHistory(api, 'RS-KILLED');
  t.is(eventsLike(history, /^WORKFLOW_TASK_TIMED_OUT START_TO_CLOSE$/), 1, "the dead worker's task timed out");
});

test.serial("an approvers' webhook that fails every try is given up after five, and the order goes on", async (t) => {
  t.timeout(240_000);
  const { api } = engine;
  const before = webhookCalls;
  await submit(t, api, 'RS-WEBHOOK', { size: 'MVE 8/32' });
  // The tries back off 5, 10, 20 and 40 s: the order waits for its approver all along.
  const noted = await waitFor(
    async () =>
      (await api.records('RS-WEBHOOK'))?.notes.find((note) =>
        /approvers' webhook did not take the approval request/.test(note.message),
      ),
    200_000,
    'the webhook given up',
  );
  t.regex(noted.message, /answered 500 to the approval request for RS-WEBHOOK/);
  const waiting = await settledIn(api, 'RS-WEBHOOK', 'AWAITING_APPROVAL');
  const approved = await api.call('POST', '/api/v1/orders/RS-WEBHOOK/approve', {
    as: 'fiona',
    body: { monthlyRate: waiting.quote?.monthlyRate, currency: waiting.quote?.currency },
  });
  t.is(approved.status, 200, JSON.stringify(approved.body));
  await settledIn(api, 'RS-WEBHOOK', 'BOUGHT');
  t.is(productsFor(api, 'RS-WEBHOOK').length, 1, 'bought once');
  t.is(webhookCalls - before, 5, 'five tries');
  const history = await orderHistory(api, 'RS-WEBHOOK');
  t.is(eventsLike(history, /^ACTIVITY_TASK_SCHEDULED notifyApprovers$/), 1, 'the five tries are one activity');
  t.is(
    eventsLike(history, /^ACTIVITY_TASK_FAILED CallbackRefused MAXIMUM_ATTEMPTS_REACHED$/),
    1,
    'which failed once its retries were spent',
  );
});

test.serial('every history of this file replays on the current workflow code', async (t) => {
  await assertEveryHistoryReplays(t, engine.api, 3);
});
