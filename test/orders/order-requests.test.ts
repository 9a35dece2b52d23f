/**
 * The order request reader: the run's first history event only, decoded with the worker's data converter (it
 * decrypts), and errors that never carry the payload (the request holds secrets).
 */
import { randomBytes } from 'node:crypto';
import test from 'ava';
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { encodeToPayloads, loadDataConverter } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { OrderRequestUnavailable, temporalOrderRequests } from '../../activities/order/index.js';
import { RecentOrderRequests } from '../../activities/order/order-requests.js';
import { AesGcmPayloadCodec, encryptingDataConverter, Keyring } from '../../codec/index.js';
import { orderRequest } from './modules/fixtures/order-input.js';

const keyring = Keyring.fromText(`unit:${randomBytes(32).toString('base64')}`);
const converter = loadDataConverter(encryptingDataConverter(keyring));
const CANARY = `CANARY-${randomBytes(12).toString('hex')}`;

/** A client whose history service answers `answer`, recording each request it was asked. */
function clientAnswering(answer: () => Promise<unknown>) {
  const asked: Array<Record<string, unknown>> = [];
  const client = {
    options: { namespace: 'orders-ns', loadedDataConverter: converter },
    withDeadline: <R>(_deadline: number, fn: () => Promise<R>) => fn(),
    workflowService: {
      getWorkflowExecutionHistory: (request: Record<string, unknown>) => {
        asked.push(request);
        return answer();
      },
    },
  } as unknown as Client;
  return { client, asked };
}

const startedWith = (payloads: Payload[]) => () =>
  Promise.resolve({
    history: { events: [{ eventId: 1, workflowExecutionStartedEventAttributes: { input: { payloads } } }] },
  });

test("reads the run's first event only and decrypts its request", async (t) => {
  const request = orderRequest('READ-1', {
    vendorConfig: { ...orderRequest('x').vendorConfig, licenseData: Buffer.from(CANARY).toString('base64') },
  });
  const payloads = (await encodeToPayloads(converter, { request, options: { maxBuyAttempts: 2 } }))!;
  t.false(
    Buffer.concat(payloads.map((payload) => Buffer.from(payload.data!)))
      .toString('latin1')
      .includes('READ-1'),
    'encrypted in history',
  );
  const { client, asked } = clientAnswering(startedWith(payloads));
  t.deepEqual(
    await temporalOrderRequests(client).requestOf({ workflowId: 'mve-order-READ-1', runId: 'run-7' }),
    request,
  );
  t.deepEqual(asked, [
    { namespace: 'orders-ns', execution: { workflowId: 'mve-order-READ-1', runId: 'run-7' }, maximumPageSize: 1 },
  ]);
});

test('a start input that does not decode is refused without a word of it', async (t) => {
  // Readable JSON's error messages quote the text they choke on: here it would be the secret.
  const [broken] = await new AesGcmPayloadCodec(keyring).encode([
    { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(`{"request": {"licenseData": ${CANARY}`) },
  ]);
  const { client } = clientAnswering(startedWith([broken]));
  const error = await t.throwsAsync(
    temporalOrderRequests(client).requestOf({ workflowId: 'mve-order-READ-2', runId: 'run-1' }),
    { instanceOf: OrderRequestUnavailable },
  );
  t.regex(error.message, /^the start input of run run-1 of mve-order-READ-2 could not be decoded \(\w+\)$/);
  t.false(error.message.includes(CANARY));
  t.is(error.cause, undefined, "no cause to carry the decoder's words");

  const other = clientAnswering(startedWith((await encodeToPayloads(converter, { notAnOrder: CANARY }))!));
  const refused = await t.throwsAsync(temporalOrderRequests(other.client).requestOf({ workflowId: 'w', runId: 'r' }), {
    instanceOf: OrderRequestUnavailable,
  });
  t.is(refused.message, 'the start input of run r of w holds no order request');
});

test("Temporal's refusal is passed on in its own words", async (t) => {
  const { client } = clientAnswering(() => Promise.reject(new Error('5 NOT_FOUND: workflow execution not found')));
  const error = await t.throwsAsync(temporalOrderRequests(client).requestOf({ workflowId: 'w', runId: 'r' }), {
    instanceOf: OrderRequestUnavailable,
  });
  t.is(
    error.message,
    'could not read the request of run r of w from Temporal: 5 NOT_FOUND: workflow execution not found',
  );
});

test('a request the reads kept is answered without asking Temporal; others, and the oldest beyond the capacity, are read', async (t) => {
  const read: string[] = [];
  const recent = new RecentOrderRequests(
    {
      requestOf: (run) => {
        read.push(run.runId);
        return Promise.resolve(orderRequest(`READ-${run.runId}`));
      },
    },
    2,
  );
  const run = (runId: string) => ({ workflowId: 'mve-order-K', runId });
  recent.keep(run('a'), orderRequest('KEPT-A'));
  recent.keep(run('b'), orderRequest('KEPT-B'));
  t.is((await recent.requestOf(run('a'))).ticketId, 'KEPT-A');
  t.is(
    (await recent.requestOf({ workflowId: 'mve-order-OTHER', runId: 'a' })).ticketId,
    'READ-a',
    'another workflow with the same run id is not mixed up',
  );
  recent.keep(run('c'), orderRequest('KEPT-C')); // over capacity: a, the oldest kept, goes
  t.is((await recent.requestOf(run('a'))).ticketId, 'READ-a');
  t.is((await recent.requestOf(run('b'))).ticketId, 'KEPT-B');
  t.is((await recent.requestOf(run('c'))).ticketId, 'KEPT-C');
  t.deepEqual(read, ['a', 'a']);
});
