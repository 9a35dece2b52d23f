/**
 * The console for an order no worker has started (no worker runs for its environment): its page says so, from the
 * records, instead of "the workflow has ended", and ops and its requester can cancel it there; it is in the lists.
 * Plain HTTP against the real API, with no worker running.
 */
import anyTest, { type TestFn } from 'ava';
import { sydneyRequest } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { Client, startConsole, waitForApiState, type ConsoleHarness } from './harness.js';

const test = anyTest as TestFn<{ harness: ConsoleHarness }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.harness = await startConsole(pg, { browser: false, worker: false });
});
test.after.always(async (t) => {
  await t.context.harness?.stop();
});

test('an order no worker has started: the page says it waits for one, and ops cancel it there', async (t) => {
  const { harness } = t.context;
  const submitted = await harness.api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: sydneyRequest('WAIT-1', { size: 'MVE 8/32', productName: 'WAIT-1 firewall' }),
  });
  t.is(submitted.status, 201, JSON.stringify(submitted.body));

  const alice = new Client(harness.url);
  await alice.signIn('alice');
  const mine = await alice.request('GET', '/orders/WAIT-1');
  t.is(mine.status, 200);
  t.regex(mine.text, /data-testid="waiting-for-worker">[^<]*no worker has started it yet \(waiting /);
  t.false(mine.text.includes('the workflow has ended'), 'not said to be over');
  t.true(mine.text.includes('data-testid="cancel-form"'), 'its requester may cancel it');
  t.false(mine.text.includes('data-testid="decision-form"'));
  t.regex((await alice.request('GET', '/')).text, /data-testid="order-row" data-ticket="WAIT-1"/, 'listed');

  const olga = new Client(harness.url);
  await olga.signIn('olga');
  const ops = await olga.request('GET', '/ops?status=RECEIVED');
  t.regex(ops.text, /data-testid="ops-row" data-ticket="WAIT-1"/, 'in the ops list');
  const page = await olga.request('GET', '/orders/WAIT-1');
  const cancelled = await olga.request('POST', '/orders/WAIT-1/cancel', {
    _csrf: olga.csrf(page.text),
    reason: 'no staging worker this week',
  });
  t.is(cancelled.status, 303, cancelled.text);
  const order = await waitForApiState(harness.api, 'WAIT-1', 'CANCELLED');
  t.like(order.timeline?.at(-1), { state: 'CANCELLED', actor: 'olga', reason: 'no staging worker this week' });
  const after = await olga.request('GET', '/orders/WAIT-1');
  t.regex(after.text, /data-testid="order-state">CANCELLED</);
  t.regex(after.text, /data-testid="flash">The order was cancelled \(CANCELLED\)\./);
  t.false(after.text.includes('data-testid="cancel-form"'));
  t.false(after.text.includes('waiting-for-worker'), 'no longer waiting');
});
