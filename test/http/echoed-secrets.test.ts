/**
 * End to end: an order whose validation the provider refuses with a message quoting the licence it was sent. The
 * order fails with a lastError that says why, and the licence is in none of what people and systems read: the order
 * and its history over HTTP (timeline and decoded workflow events), the list, the records, the workflow's history
 * bytes, and the worker's and the API client's logs.
 */
import { randomBytes } from 'node:crypto';
import anyTest, { type TestFn } from 'ava';
import protoRoot from '@temporalio/proto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { namedRequest, startApiEngine, waitForApiState, type ApiEngine } from '../helpers/api.js';
import { sydneyRequest, workflowOf } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);

// Every SDK log line of this process (worker, activities, workflows), at the most talkative level.
const sdkLogs: string[] = [];
Runtime.install({
  logger: new DefaultLogger('DEBUG', (entry) => sdkLogs.push(`${entry.message} ${JSON.stringify(entry.meta ?? {})}`)),
});

const CANARY = `CANARY-${randomBytes(12).toString('hex')}`;
const LICENSE = Buffer.from(`-----BEGIN LICENSE-----\n${CANARY}\n-----END LICENSE-----\n`).toString('base64');
const TICKET = 'ECHO-1';

test.before(async (t) => {
  t.context.api = await startApiEngine(pg);
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

const leaks = (text: string) => [CANARY, LICENSE].filter((secret) => text.includes(secret));

test.serial('a validation refused quoting the licence: lastError says why, and no answer carries it', async (t) => {
  const { api } = t.context;
  const vendorConfig = { ...(sydneyRequest('x')['vendorConfig'] as object), licenseData: LICENSE };
  api.sim.injectFault({ kind: 'echo', endpoint: 'validate', field: 'licenseData' });
  const submitted = await api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: namedRequest(TICKET, { vendorConfig }),
  });
  t.is(submitted.status, 201, JSON.stringify(submitted.body));

  const failed = await waitForApiState(api, TICKET, 'FAILED');
  t.regex(failed.lastError!.message, /vendorConfig\.licenseData: the value "\[redacted\]" is not accepted/);
  const answers = [
    failed,
    (await api.call('GET', `/api/v1/orders/${TICKET}`, { as: 'alice' })).body,
    (await api.call('GET', `/api/v1/orders/${TICKET}/history`, { as: 'olga' })).body,
    (await api.call('GET', `/api/v1/orders/${TICKET}/history`, { as: 'alice' })).body,
    (await api.call('GET', '/api/v1/orders?status=FAILED', { as: 'olga' })).body,
  ];
  t.true(JSON.stringify(answers[2]).includes('licenseData'), 'the history holds the refusal');
  t.deepEqual(leaks(JSON.stringify(answers)), [], 'HTTP answers');

  const records = await api.records(TICKET);
  t.regex(records?.order.lastError?.message ?? '', /licenseData: the value "\[redacted\]"/);
  t.true(records!.events.some((event) => event.to === 'FAILED' && /\[redacted\]/.test(event.reason ?? '')));
  t.deepEqual(leaks(JSON.stringify(records)), [], 'the records: the order, its last error and its events');
});

test.serial('nor do the history bytes or the logs', async (t) => {
  const { api } = t.context;
  const { History } = protoRoot.temporal.api.history.v1;
  const { history } = await api.client.workflowService.getWorkflowExecutionHistory({
    namespace: api.temporal.namespace,
    execution: { workflowId: workflowOf(TICKET) },
  });
  const bytes = Buffer.from(History.encode(History.create(history ?? {})).finish());
  t.deepEqual(leaks(bytes.toString('latin1')), [], 'history');
  t.true(sdkLogs.length > 0 && api.apiLog.length > 0, 'logs were written');
  t.deepEqual(leaks(sdkLogs.join('\n')), [], 'SDK logs');
  t.deepEqual(leaks(api.apiLog.join('\n')), [], 'API client logs');
});
