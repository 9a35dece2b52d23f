import { randomBytes } from 'node:crypto';
import anyTest, { type TestFn } from 'ava';
import protoRoot from '@temporalio/proto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { usePostgres } from '../helpers/postgres.js';
import { orderOf, startOrderEngine, sydneyRequest, type OrderEngine, workflowOf } from '../helpers/orders.js';
import { waitForState } from '../helpers/wait.js';

const test = anyTest as TestFn<{ engine: OrderEngine }>;
const pg = usePostgres(test);

// Every SDK log line of this process (worker, activities, workflows), at the most talkative level.
const sdkLogs: string[] = [];
Runtime.install({
  logger: new DefaultLogger('DEBUG', (entry) => sdkLogs.push(`${entry.message} ${JSON.stringify(entry.meta ?? {})}`)),
});

const CANARY = `CANARY-${randomBytes(12).toString('hex')}`;
const LICENSE = Buffer.from(`-----BEGIN LICENSE-----\n${CANARY}\n-----END LICENSE-----\n`).toString('base64');

test.before(async (t) => {
  // A validation refused until its retries run out takes minutes of backoff: on the time-skipping server, none.
  t.context.engine = await startOrderEngine(pg, { temporal: 'time-skipping' });
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
});

function leaks(text: string): string[] {
  return [CANARY, LICENSE].filter((secret) => text.includes(secret));
}

test.serial('a vendorConfig secret is nowhere in plaintext: not in history bytes, Postgres, or logs', async (t) => {
  const { engine } = t.context;
  // One order bought after an approval, one the API refuses (its error crosses activity, workflow and records).
  await engine.submit(
    sydneyRequest('CANARY-1', {
      size: 'MVE 8/32',
      vendorConfig: { ...(sydneyRequest('x')['vendorConfig'] as object), licenseData: LICENSE },
    }),
  );
  const waiting = await waitForState(engine.orders, 'CANARY-1', 'AWAITING_APPROVAL');
  await engine.orders.approve(orderOf('CANARY-1'), {
    approverId: 'fiona',
    monthlyRate: waiting.quote!.monthlyRate,
    currency: 'AUD',
  });
  t.is((await engine.orders.result(orderOf('CANARY-1'))).state, 'BOUGHT');
  engine.sim.injectFault({ kind: 'error', endpoint: 'validate', status: 500, times: 'always' });
  try {
    await engine.submit(
      sydneyRequest('CANARY-2', {
        size: 'MVE 4/16',
        vendorConfig: { ...(sydneyRequest('x')['vendorConfig'] as object), licenseData: LICENSE },
      }),
    );
    t.is((await engine.orders.result(orderOf('CANARY-2'))).state, 'FAILED');
  } finally {
    engine.sim.clearFaults();
  }

  const { History } = protoRoot.temporal.api.history.v1;
  for (const ticket of ['CANARY-1', 'CANARY-2']) {
    const { history } = await engine.client.workflowService.getWorkflowExecutionHistory({
      namespace: engine.temporal.namespace,
      execution: { workflowId: workflowOf(ticket) },
    });
    const bytes = Buffer.from(History.encode(History.create(history ?? {})).finish());
    t.true(bytes.length > 1000, 'the history holds the order');
    t.deepEqual(leaks(bytes.toString('latin1')), [], `history of ${ticket}`);
  }

  const tables = await engine.db.sql<{ table_name: string }[]>`
    SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`;
  let everything = '';
  for (const { table_name } of tables) {
    const rows = await engine.db.sql.unsafe<Array<{ row: string }>>(
      `SELECT row_to_json(t)::text AS row FROM "${table_name}" t`,
    );
    everything += rows.map((row) => row.row).join('\n');
  }
  t.true(everything.includes('CANARY-1'), 'the orders are in Postgres');
  t.true(everything.includes('[redacted]'), 'their secrets are redacted');
  t.deepEqual(leaks(everything), [], 'Postgres');

  t.true(sdkLogs.length > 0 && engine.apiLog.length > 0, 'logs were written');
  t.deepEqual(leaks(sdkLogs.join('\n')), [], 'SDK logs');
  t.deepEqual(leaks(engine.apiLog.join('\n')), [], 'API client logs');
});

test.serial('the canary is really in the order: a client holding the key reads it back', async (t) => {
  const history = await t.context.engine.client.workflow.getHandle(workflowOf('CANARY-1')).fetchHistory();
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const payload = started?.input?.payloads?.[0];
  t.truthy(payload);
  const decoded = await t.context.engine.client.options.loadedDataConverter.payloadCodecs[0].decode([payload!]);
  t.true(Buffer.from(decoded[0].data!).toString('utf8').includes(LICENSE));
});
