/**
 * The codec server (POST /codec/…/decode) as the Temporal Web UI and the `temporal` CLI use it: the real encrypted
 * payloads of an order's history, read raw from Temporal (no codec), sent as proto3 JSON and decoded by the API for
 * ops; no …/encode (it would encrypt payloads of the caller's choosing); who may call it; bad bodies; CORS.
 */
import anyTest, { type TestFn } from 'ava';
import { ENCRYPTED_ENCODING } from '../../codec/index.js';
import type { ApiOrder } from '../../client/http-client/index.js';
import { usePostgres } from '../helpers/postgres.js';
import { startApiEngine, type ApiEngine } from '../helpers/api.js';
import { encryptedJson, type JsonPayload } from '../helpers/codec-json.js';
import { sydneyRequest } from '../helpers/orders.js';
import { waitFor } from '../helpers/wait.js';
import { answerOf, type ApiAnswer } from '../helpers/api-call.js';
import { json, type ErrorBody } from '../helpers/json.js';

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);
test.before(async (t) => {
  t.context.api = await startApiEngine(pg);
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

const b64 = (value: Uint8Array | string) => Buffer.from(value).toString('base64');
const unb64 = (value: string | undefined) => Buffer.from(value ?? '', 'base64').toString('utf8');

/** Every payload-shaped object (metadata + data) anywhere in a raw protobuf history. */
function payloadsIn(value: unknown, found: Array<{ metadata: Record<string, Uint8Array>; data: Uint8Array }> = []) {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return found;
  if (Array.isArray(value)) {
    for (const item of value) payloadsIn(item, found);
    return found;
  }
  const record = value as Record<string, unknown>;
  if (record['metadata'] && typeof record['metadata'] === 'object' && record['data'] instanceof Uint8Array) {
    found.push(record as { metadata: Record<string, Uint8Array>; data: Uint8Array });
  }
  for (const key of Object.keys(record)) payloadsIn(record[key], found);
  return found;
}

function toProto3Json(payload: { metadata: Record<string, Uint8Array>; data: Uint8Array }): JsonPayload {
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata).map(([key, bytes]) => [key, b64(bytes)])),
    data: b64(payload.data),
  };
}

/** The encrypted payloads of the order's history, as Temporal stores them (fetched without any codec). */
async function encryptedHistoryPayloads(api: ApiEngine, ticketId: string): Promise<JsonPayload[]> {
  const { history } = await api.client.workflowService.getWorkflowExecutionHistory({
    namespace: api.temporal.namespace,
    execution: { workflowId: (await api.ticket(ticketId))!.workflowId },
  });
  return payloadsIn(history?.events ?? [])
    .filter(
      (payload) =>
        payload.metadata['encoding'] &&
        Buffer.from(payload.metadata['encoding']).toString('utf8') === ENCRYPTED_ENCODING,
    )
    .map(toProto3Json);
}

/** A request with headers of our choosing (the helper's `call` sends only authorization and content type). */
async function raw(
  api: ApiEngine,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<ApiAnswer> {
  return answerOf(await fetch(`${api.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) }));
}

/** What the codec server answers to decode. */
interface CodecAnswer {
  payloads: JsonPayload[];
}

async function submitted(api: ApiEngine, ticketId: string): Promise<JsonPayload[]> {
  const submit = await api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: sydneyRequest(ticketId, { size: 'MVE 8/32' }),
  });
  if (submit.status !== 201) throw new Error(`submit: ${submit.status} ${JSON.stringify(submit.body)}`);
  // Wait until the workflow has run a little (the quote is in history), so there are several payloads.
  await waitFor(async () =>
    json<ApiOrder>(await api.call('GET', `/api/v1/orders/${ticketId}`, { as: 'alice' })).state === 'AWAITING_APPROVAL'
      ? true
      : undefined,
  );
  return encryptedHistoryPayloads(api, ticketId);
}

const textPayload = (value: unknown): JsonPayload => ({
  metadata: { encoding: b64('json/plain') },
  data: b64(JSON.stringify(value)),
});

test('decode: the real encrypted payloads of an order, read raw from Temporal, decode for ops and show the ticket', async (t) => {
  const { api } = t.context;
  const payloads = await submitted(api, 'CODEC-1');
  t.true(payloads.length >= 2, `encrypted payloads in history: ${payloads.length}`);
  for (const payload of payloads) {
    t.false(
      Buffer.from(payload.data, 'base64').toString('latin1').includes('CODEC-1'),
      'the stored payload hides the ticket',
    );
    t.truthy(payload.metadata['encryption-key-id']);
  }

  const response = await api.call('POST', '/codec/default/decode', { as: 'olga', body: { payloads } });
  t.is(response.status, 200, JSON.stringify(response.body));
  const decoded = json<CodecAnswer>(response).payloads;
  t.is(decoded.length, payloads.length, 'one decoded payload per payload sent, in order');
  for (const payload of decoded) t.not(unb64(payload.metadata['encoding']), ENCRYPTED_ENCODING);
  const texts = decoded.map((payload) => unb64(payload.data));
  const input = texts.find((text) => text.includes('"ticketId":"CODEC-1"'));
  t.truthy(input, 'the workflow input decodes to the order request with its ticket');
  t.is(unb64(decoded[texts.indexOf(input!)].metadata['encoding']), 'json/plain');
  // The workflow's input carries the request; a payload of the request alone is it.
  const inputValue = JSON.parse(input!) as { request?: { ticketId?: string }; ticketId?: string };
  t.is(inputValue.request?.ticketId ?? inputValue.ticketId, 'CODEC-1');
});

test('decode answers at any depth: /codec/decode, /codec/{namespace}/decode, deeper; the operation is the last segment', async (t) => {
  const { api } = t.context;
  const payloads = await submitted(api, 'CODEC-2');
  for (const path of [
    '/codec/decode',
    '/codec/default/decode',
    '/codec/tenants/acme/default/decode',
    '/codec/default/decode?preserveStorageRefs=true',
  ]) {
    const response = await api.call('POST', path, { as: 'olga', body: { payloads } });
    t.is(response.status, 200, `${path}: ${JSON.stringify(response.body)}`);
    t.true(
      json<CodecAnswer>(response).payloads.some((payload) => unb64(payload.data).includes('CODEC-2')),
      path,
    );
  }
  const other = await api.call('POST', '/codec/default/download', { as: 'olga', body: { payloads } });
  t.is(other.status, 404);
  t.is(json<ErrorBody>(other).error.code, 'NOT_FOUND');
});

test('what the engine encrypted decodes; plain payloads pass decode unchanged', async (t) => {
  const { api } = t.context;
  const value = { hello: 'world', secret: 'hunter2' };
  const encrypted = await encryptedJson(api.keyring, value);
  t.is(unb64(encrypted.metadata['encoding']), ENCRYPTED_ENCODING);
  const plain = [textPayload(value), { metadata: { encoding: b64('binary/null') }, data: '' }];
  const decoded = await api.call('POST', '/codec/default/decode', {
    as: 'olga',
    body: { payloads: [encrypted, ...plain] },
  });
  t.is(decoded.status, 200, JSON.stringify(decoded.body));
  // A payload with nothing in it comes back without its empty fields.
  const back: Array<Partial<JsonPayload>> = json<CodecAnswer>(decoded).payloads;
  t.is(unb64(back[0].data), JSON.stringify(value));
  t.is(unb64(back[0].metadata!['encoding']), 'json/plain');
  t.is(unb64(back[1].data), JSON.stringify(value), 'shown as it is');
  t.is(unb64(back[2].metadata!['encoding']), 'binary/null');
  t.falsy(back[2].data, 'empty data stays empty');
});

test('encode is not offered: ops get a 404 saying the codec server only decodes, and nothing encrypted', async (t) => {
  const { api } = t.context;
  const body = { payloads: [textPayload({ amount: 1_000_000, approvedBy: 'fiona' })] };
  for (const path of ['/codec/default/encode', '/codec/encode', '/codec/tenants/acme/default/encode']) {
    const refused = await api.call('POST', path, { as: 'olga', body });
    t.is(refused.status, 404, path);
    t.is(json<ErrorBody>(refused).error.code, 'NOT_FOUND');
    t.regex(json<ErrorBody>(refused).error.message, /only decodes: …\/encode is not offered/);
    t.is(json<Partial<CodecAnswer>>(refused).payloads, undefined, 'nothing encrypted comes back');
  }
  t.is((await api.call('POST', '/codec/default/encode', { body })).status, 401, 'credentials are checked first');
  t.is((await api.call('POST', '/codec/default/encode', { as: 'fiona', body })).status, 403);
});

test('without credentials 401; a requester or an approver 403; ops may', async (t) => {
  const { api } = t.context;
  const body = { payloads: [textPayload('x')] };
  const anonymous = await api.call('POST', '/codec/default/decode', { body });
  t.is(anonymous.status, 401);
  t.is(json<ErrorBody>(anonymous).error.code, 'UNAUTHENTICATED');
  t.is(anonymous.headers.get('www-authenticate'), 'Bearer realm="mve-orders"');
  const badToken = await api.call('POST', '/codec/default/decode', {
    token: 'mvo_abcdefgh12_' + 'A'.repeat(43),
    body,
  });
  t.is(badToken.status, 401);
  for (const user of ['alice', 'fiona', 'aliceApprover', 'ticket-bot'] as const) {
    const refused = await api.call('POST', '/codec/default/decode', { as: user, body });
    t.is(refused.status, 403, user);
    t.is(json<ErrorBody>(refused).error.code, 'FORBIDDEN');
    t.regex(json<ErrorBody>(refused).error.message, /ops or admin/);
    t.is(json<Partial<CodecAnswer>>(refused).payloads, undefined);
  }
  t.is((await api.call('POST', '/codec/default/decode', { as: 'olga', body })).status, 200);
});

test('400 for a body that is not payloads, for unparseable JSON, and for a tampered or unknown-key payload', async (t) => {
  const { api } = t.context;
  for (const body of [
    {},
    { payloads: 'x' },
    { payloads: {} },
    [],
    'payloads',
    { payloads: [{ metadata: { encoding: 42 }, data: 7 }] },
  ]) {
    const response = await api.call('POST', '/codec/default/decode', { as: 'olga', body });
    t.is(response.status, 400, `${JSON.stringify(body)} → ${JSON.stringify(response.body)}`);
    t.is(json<ErrorBody>(response).error.code, 'INVALID_INPUT', JSON.stringify(body));
  }
  const garbled = await raw(
    api,
    'POST',
    '/codec/default/decode',
    { authorization: `Bearer ${api.tokens.olga}`, 'content-type': 'application/json' },
    '{"payloads": [',
  );
  t.is(garbled.status, 400);
  t.is(json<ErrorBody>(garbled).error.code, 'INVALID_INPUT');

  const payload = await encryptedJson(api.keyring, { amount: 100 });
  const bytes = Buffer.from(payload.data, 'base64');
  bytes[bytes.length - 20] ^= 0x01;
  const tampered = await api.call('POST', '/codec/default/decode', {
    as: 'olga',
    body: { payloads: [{ ...payload, data: bytes.toString('base64') }] },
  });
  t.is(tampered.status, 400, JSON.stringify(tampered.body));
  t.is(json<ErrorBody>(tampered).error.code, 'CODEC_FAILED');
  t.regex(json<ErrorBody>(tampered).error.message, /failed authentication/);

  const unknownKey = await api.call('POST', '/codec/default/decode', {
    as: 'olga',
    body: { payloads: [{ ...payload, metadata: { ...payload.metadata, 'encryption-key-id': b64('no-such-key') } }] },
  });
  t.is(unknownKey.status, 400);
  t.is(json<ErrorBody>(unknownKey).error.code, 'CODEC_FAILED');
  t.regex(json<ErrorBody>(unknownKey).error.message, /not in the keyring/);
  t.false(JSON.stringify(unknownKey.body).includes(api.codecKeys.split(':')[1]), 'no key material in the answer');
});

test('CORS: a configured origin gets a preflight answer with credentials and the headers the Web UI sends', async (t) => {
  const { api } = t.context;
  const preflight = await raw(api, 'OPTIONS', '/codec/default/decode', {
    origin: 'http://ui.test',
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'authorization,authorization-extras,content-type,x-namespace',
  });
  t.is(preflight.status, 200);
  t.is(preflight.headers.get('access-control-allow-origin'), 'http://ui.test');
  t.is(preflight.headers.get('access-control-allow-credentials'), 'true');
  const allowed = (preflight.headers.get('access-control-allow-headers') ?? '')
    .split(',')
    .map((header) => header.trim().toLowerCase());
  for (const header of ['authorization', 'authorization-extras', 'content-type', 'x-namespace'])
    t.true(allowed.includes(header), header);
  t.regex(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
  t.regex(preflight.headers.get('vary') ?? '', /Origin/i);
  t.is(preflight.body, '', 'an empty answer');

  // The actual request from the UI: its origin, the namespace header, the user's token.
  const encrypted = await encryptedJson(api.keyring, { via: 'ui' });
  const decoded = await raw(
    api,
    'POST',
    '/codec/default/decode',
    {
      origin: 'http://ui.test',
      authorization: `Bearer ${api.tokens.olga}`,
      'authorization-extras': 'an-id-token',
      'content-type': 'application/json',
      'x-namespace': 'default',
    },
    JSON.stringify({ payloads: [encrypted] }),
  );
  t.is(decoded.status, 200);
  t.is(decoded.headers.get('access-control-allow-origin'), 'http://ui.test');
  t.is(decoded.headers.get('access-control-allow-credentials'), 'true');
  t.is(unb64(json<CodecAnswer>(decoded).payloads[0].data), JSON.stringify({ via: 'ui' }));
});

test('CORS: an unknown origin gets no allow-origin header, on the preflight or the request', async (t) => {
  const { api } = t.context;
  for (const origin of ['http://evil.test', 'http://ui.test.evil.test', 'https://ui.test', 'null']) {
    const preflight = await raw(api, 'OPTIONS', '/codec/default/decode', {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization',
    });
    t.is(preflight.headers.get('access-control-allow-origin'), null, origin);
    t.is(preflight.headers.get('access-control-allow-credentials'), null, origin);
    const request = await raw(
      api,
      'POST',
      '/codec/default/decode',
      { origin, authorization: `Bearer ${api.tokens.olga}`, 'content-type': 'application/json' },
      JSON.stringify({ payloads: [] }),
    );
    t.is(request.headers.get('access-control-allow-origin'), null, origin);
  }
  const wildcard = await raw(api, 'OPTIONS', '/codec/default/decode', { origin: 'http://ui.test' });
  t.not(wildcard.headers.get('access-control-allow-origin'), '*');
});
