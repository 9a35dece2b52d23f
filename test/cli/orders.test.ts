import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import anyTest, { type TestFn } from 'ava';
import { runCli } from '../helpers/cli.js';
import { startOrderEngine, sydneyRequest, TASK_QUEUE, TEST_POLICIES, type OrderEngine } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitForState } from '../helpers/wait.js';
import { spawnCli } from '../dev/child.js';
import { OrderClient } from '../../client/orders/index.js';

// The order commands through the real binary, against a real engine (devserver, simulator, PostgreSQL,
// worker) that the CLI finds through environment variables, as in a real deployment.

const test = anyTest as TestFn<{ engine: OrderEngine; env: NodeJS.ProcessEnv; dir: string }>;
const pg = usePostgres(test);

test.before(async (t) => {
  const engine = await startOrderEngine(pg);
  const dir = await mkdtemp(join(tmpdir(), 'mve-cli-orders-'));
  t.context.engine = engine;
  t.context.dir = dir;
  t.context.env = {
    TEMPORAL_ADDRESS: engine.temporal.address,
    TEMPORAL_NAMESPACE: engine.temporal.namespace,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    MVE_CODEC_KEYS: `${engine.keyring.currentKeyId}:${engine.keyring.currentKey().toString('base64')}`,
    MVE_APPROVAL_POLICY: JSON.stringify({ staging: TEST_POLICIES.staging }),
    // An empty data folder: nothing may come from a dev running on this machine.
    MVE_DATA_DIR: dir,
  };
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
  if (t.context.dir) await rm(t.context.dir, { recursive: true, force: true });
});

const cli = (t: { context: { env: NodeJS.ProcessEnv } }, args: string[], stdin?: string) =>
  runCli(args, { env: t.context.env, ...(stdin !== undefined ? { stdin } : {}) });

async function requestFile(dir: string, ticketId: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const path = join(dir, `${ticketId}.json`);
  await writeFile(path, JSON.stringify(sydneyRequest(ticketId, overrides)));
  return path;
}

test.serial('submit starts an order; status shows it bought, with its product and timeline', async (t) => {
  const file = await requestFile(t.context.dir, 'CLI-AUTO', { size: 'MVE 4/16' });
  const submitted = await cli(t, ['submit', file]);
  t.is(submitted.code, 0, submitted.stderr);
  t.regex(submitted.stdout, /submitted ticket CLI-AUTO/);
  const outcome = await t.context.engine.orders.result('CLI-AUTO');
  t.is(outcome.state, 'BOUGHT');

  const human = await cli(t, ['status', 'CLI-AUTO']);
  t.is(human.code, 0, human.stderr);
  t.regex(human.stdout, /CLI-AUTO\s+BOUGHT/);
  t.regex(human.stdout, /809\.10 AUD a month/);
  t.true(human.stdout.includes(outcome.product!.technicalServiceUid));
  for (const state of ['RECEIVED', 'VALIDATING', 'APPROVED', 'BUYING']) t.regex(human.stdout, new RegExp(`\\b${state}\\b`));

  const json = await cli(t, ['status', 'CLI-AUTO', '--json']);
  const view = JSON.parse(json.stdout);
  t.is(view.state, 'BOUGHT');
  t.deepEqual(view.timeline.at(-1).state, 'BOUGHT');
});

test.serial('submit refuses an invalid request (exit 1, naming the field), unreadable input (exit 2) and a second order for a ticket', async (t) => {
  const invalid = await cli(t, ['submit', '-', '--json'], JSON.stringify({ ...sydneyRequest('CLI-BAD'), term: 7 }));
  t.is(invalid.code, 1);
  t.is(JSON.parse(invalid.stdout).error.code, 'INVALID_REQUEST');
  t.regex(invalid.stderr, /term/);
  t.is((await cli(t, ['status', 'CLI-BAD'])).code, 1, 'nothing was started');

  const notJson = await cli(t, ['submit', '-'], '{"ticketId": ');
  t.is(notJson.code, 2);
  t.regex(notJson.stderr, /not valid JSON/);
  const missing = await cli(t, ['submit', join(t.context.dir, 'no-such-file.json')]);
  t.is(missing.code, 2);
  t.regex(missing.stderr, /ENOENT/);

  const again = await cli(t, ['submit', await requestFile(t.context.dir, 'CLI-AUTO')]);
  t.is(again.code, 1);
  t.regex(again.stderr, /already has an order/);
});

test.serial('approve without the quote shows it and changes nothing; refused votes exit 1; two approvers buy it', async (t) => {
  const { engine } = t.context;
  const submitted = await cli(t, ['submit', '-'], JSON.stringify(sydneyRequest('CLI-TWO', { size: 'MVE 16/64' })));
  t.is(submitted.code, 0, submitted.stderr);
  await waitForState(engine.orders, 'CLI-TWO', 'AWAITING_APPROVAL', 60_000);

  const unnamed = await cli(t, ['approve', 'CLI-TWO', '--as', 'fiona']);
  t.is(unnamed.code, 1);
  t.regex(unnamed.stderr, /3236\.40 AUD/);
  t.regex(unnamed.stderr, /--rate 3236\.4 --currency AUD/);

  const lacksRole = await cli(t, ['approve', 'CLI-TWO', '--as', 'erin', '--rate', '3236.4', '--currency', 'AUD']);
  t.is(lacksRole.code, 1);
  t.regex(lacksRole.stderr, /APPROVER_LACKS_ROLE/);
  const staleQuote = await cli(t, ['approve', 'CLI-TWO', '--as', 'fiona', '--rate', '3000', '--currency', 'AUD', '--json']);
  t.is(staleQuote.code, 1);
  t.is(JSON.parse(staleQuote.stdout).error.code, 'QUOTE_NOT_CURRENT');
  t.deepEqual((await engine.orders.status('CLI-TWO')).approval?.votes, []);

  const first = await cli(t, ['approve', 'CLI-TWO', '--as', 'fiona', '--rate', '3236.4', '--currency', 'aud']);
  t.is(first.code, 0, first.stderr);
  t.regex(first.stdout, /1 more approval\(s\) needed/);
  const second = await cli(t, ['approve', 'CLI-TWO', '--as', 'dave', '--rate', '3236.4', '--currency', 'AUD', '--comment', 'budgeted', '--json']);
  t.is(second.code, 0, second.stderr);
  t.is(JSON.parse(second.stdout).stillNeeded, 0);
  t.is((await engine.orders.result('CLI-TWO')).state, 'BOUGHT');

  const late = await cli(t, ['approve', 'CLI-TWO', '--as', 'fiona', '--rate', '3236.4', '--currency', 'AUD']);
  t.is(late.code, 1);
  t.regex(late.stderr, /has ended \(BOUGHT\)/);
});

test.serial('reject needs a comment and ends the order; cancel ends another, then refuses', async (t) => {
  const { engine } = t.context;
  for (const ticket of ['CLI-REJ', 'CLI-CANCEL']) {
    t.is((await cli(t, ['submit', await requestFile(t.context.dir, ticket, { size: 'MVE 8/32' })])).code, 0);
  }
  await waitForState(engine.orders, 'CLI-REJ', 'AWAITING_APPROVAL', 60_000);
  const noComment = await cli(t, ['reject', 'CLI-REJ', '--as', 'fiona', '--rate', '1618.2', '--currency', 'AUD']);
  t.is(noComment.code, 2);
  t.regex(noComment.stderr, /--comment/);
  const rejected = await cli(t, ['reject', 'CLI-REJ', '--as', 'fiona', '--rate', '1618.2', '--currency', 'AUD', '--comment', 'not this quarter']);
  t.is(rejected.code, 0, rejected.stderr);
  const outcome = await engine.orders.result('CLI-REJ');
  t.deepEqual([outcome.state, outcome.reason], ['REJECTED', 'not this quarter']);

  await waitForState(engine.orders, 'CLI-CANCEL', 'AWAITING_APPROVAL', 60_000);
  const cancelled = await cli(t, ['cancel', 'CLI-CANCEL', '--as', 'alice', '--reason', 'wrong site', '--json']);
  t.is(cancelled.code, 0, cancelled.stderr);
  t.is((await engine.orders.result('CLI-CANCEL')).state, 'CANCELLED');
  const again = await cli(t, ['cancel', 'CLI-CANCEL', '--as', 'alice', '--reason', 'twice']);
  t.is(again.code, 1);
  const unknown = await cli(t, ['cancel', 'CLI-NOPE', '--as', 'alice', '--reason', 'x']);
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /no order for ticket CLI-NOPE/);
});

test.serial('resolve-buy settles an uncertain buy with the product ops found', async (t) => {
  const { engine } = t.context;
  engine.sim.injectFault({ kind: 'apply-then-drop', endpoint: 'buy', times: 1 });
  t.is((await cli(t, ['submit', await requestFile(t.context.dir, 'CLI-UNSURE', { size: 'MVE 4/16' })])).code, 0);
  await waitForState(engine.orders, 'CLI-UNSURE', 'BUY_UNCERTAIN', 60_000);
  const shown = await cli(t, ['status', 'CLI-UNSURE']);
  t.regex(shown.stdout, /resolve-buy CLI-UNSURE/);

  const both = await cli(t, ['resolve-buy', 'CLI-UNSURE', '--as', 'olga', '--created', 'x', '--not-created']);
  t.is(both.code, 2);
  const product = engine.sim.state().products.at(-1)!;
  const resolved = await cli(t, ['resolve-buy', 'CLI-UNSURE', '--as', 'olga', '--created', product.technicalServiceUid, '--json']);
  t.is(resolved.code, 0, resolved.stderr);
  const outcome = await engine.orders.result('CLI-UNSURE');
  t.is(outcome.state, 'BOUGHT');
  t.is(outcome.product?.technicalServiceUid, product.technicalServiceUid);
});

test.serial('orders lists through the search attributes, filtered; a malformed filter exits 2', async (t) => {
  const bought = await cli(t, ['orders', '--status', 'bought', '--json']);
  t.is(bought.code, 0, bought.stderr);
  const listed = JSON.parse(bought.stdout) as Array<{ ticketId: string; status: string; monthlyRate: number }>;
  t.true(listed.some((order) => order.ticketId === 'CLI-AUTO' && order.monthlyRate === 809.1));
  t.true(listed.every((order) => order.status === 'BOUGHT'));
  t.false(listed.some((order) => order.ticketId === 'CLI-REJ'));

  const table = await cli(t, ['orders', '--query', "TicketId = 'CLI-REJ'"]);
  t.is(table.code, 0, table.stderr);
  t.regex(table.stdout, /CLI-REJ\s+REJECTED\s+staging/);
  t.notRegex(table.stdout, /CLI-AUTO/);

  t.is((await cli(t, ['orders', '--status', 'SHIPPED'])).code, 2);
  const malformed = await cli(t, ['orders', '--query', 'MonthlyRate >']);
  t.is(malformed.code, 2);
  t.regex(malformed.stderr, /query/);
});

test.serial('without an engine, a command says what to start or set (exit 2)', async (t) => {
  const noDev = await runCli(['status', 'X'], { env: { TEMPORAL_ADDRESS: '', MVE_DATA_DIR: t.context.dir } });
  t.is(noDev.code, 2);
  t.regex(noDev.stderr, /npm start/);
  t.regex(noDev.stderr, /TEMPORAL_ADDRESS/);

  const closed = await runCli(['status', 'X'], { env: { ...t.context.env, TEMPORAL_ADDRESS: '127.0.0.1:1' } });
  t.is(closed.code, 2);
  t.regex(closed.stderr, /cannot reach Temporal at 127\.0\.0\.1:1/);
});

test.serial('worker runs orders from the environment and stops cleanly on SIGTERM', async (t) => {
  const { engine } = t.context;
  const taskQueue = 'cli-worker-test';
  const missing = await runCli(['worker'], { env: { ...t.context.env, DATABASE_URL: '' } });
  t.is(missing.code, 2);
  t.regex(missing.stderr, /DATABASE_URL/);

  const worker = spawnCli(['worker'], {
    ...t.context.env,
    TEMPORAL_TASK_QUEUE: taskQueue,
    DATABASE_URL: engine.db.url,
    MVE_API_BASE_URL: engine.sim.baseUrl,
    MVE_AUTH_URL: engine.sim.authUrl,
    MVE_ENVIRONMENT: 'staging',
    MVE_CLIENT_ID: engine.sim.clientId,
    MVE_CLIENT_SECRET: engine.sim.clientSecret,
  });
  try {
    await worker.waitForOutput(/worker polling cli-worker-test\.staging/, 90_000);
    const orders = new OrderClient({ client: engine.client, taskQueue });
    await orders.submit(sydneyRequest('CLI-WORKER', { size: 'MVE 4/16' }));
    t.is((await orders.result('CLI-WORKER')).state, 'BOUGHT');
  } finally {
    t.is(await worker.stop('SIGTERM', 30_000), 0, worker.stderr());
  }
  t.regex(worker.stdout(), /worker stopped/);
});
