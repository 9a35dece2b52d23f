import { inspect, isDeepStrictEqual } from 'node:util';
import test from 'ava';
import fc from 'fast-check';
import { defaultPayloadConverter, type Payload, type SerializationContext } from '@temporalio/common';
import proto from '@temporalio/proto';
import {
  AesGcmPayloadCodec,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  Keyring,
  PayloadDecryptionError,
  refusedPayloadReason,
} from '../../codec/index.js';
import { keyringOf } from './keys.js';

const CANARY = 'CANARY-s3cr3t-7f1d2c';
const bytesOf = (payload: Payload) => Buffer.from(proto.temporal.api.common.v1.Payload.encode(payload).finish());
const utf8 = (text: string) => new TextEncoder().encode(text);

const { keyring } = keyringOf('k1');
const codec = new AesGcmPayloadCodec(keyring);

const values: unknown[] = [
  'plain text',
  '',
  0,
  -12.5,
  true,
  null,
  undefined,
  [1, 'two', { three: 3 }],
  { ticket: 'CHG-1042', vendorConfig: { adminPassword: CANARY, sshPublicKey: 'ssh-ed25519 AAAA' }, emoji: 'café ☕' },
  new Uint8Array([0, 1, 2, 255]),
  'x'.repeat(1_000_000),
];

test('every payload shape the converter produces comes back unchanged', async (t) => {
  const payloads = values.map((value) => defaultPayloadConverter.toPayload(value));
  const encoded = await codec.encode(payloads);
  t.is(encoded.length, payloads.length);
  const decoded = await codec.decode(encoded);
  t.deepEqual(
    decoded.map((payload) => defaultPayloadConverter.fromPayload(payload)),
    values,
  );
});

/** Buffers and Uint8Arrays compared as bytes. */
const plainPayload = (payload: Payload) => ({
  metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, [...v]])),
  data: [...(payload.data ?? [])],
});

test('property: any metadata and data round-trip', async (t) => {
  const anyPayload = fc.record({
    metadata: fc.dictionary(fc.string({ minLength: 1, maxLength: 20 }), fc.uint8Array({ maxLength: 40 }), {
      maxKeys: 4,
    }),
    data: fc.uint8Array({ maxLength: 200 }),
  });
  await fc.assert(
    fc.asyncProperty(fc.array(anyPayload, { maxLength: 5 }), async (payloads) => {
      const decoded = await codec.decode(await codec.encode(payloads));
      return isDeepStrictEqual(decoded.map(plainPayload), payloads.map(plainPayload));
    }),
    { numRuns: 50 },
  );
  t.pass();
});

test('the encrypted payload names the key and hides the secret, the encoding and the key', async (t) => {
  const plain = defaultPayloadConverter.toPayload({ password: CANARY });
  t.not(bytesOf(plain).indexOf(CANARY), -1, 'the search finds the canary in the plain payload');
  const [encoded] = await codec.encode([plain]);
  t.is(new TextDecoder().decode(encoded.metadata!.encoding), ENCRYPTED_ENCODING);
  t.is(new TextDecoder().decode(encoded.metadata![KEY_ID_METADATA]), 'k1');
  const wire = bytesOf(encoded);
  t.is(wire.indexOf(CANARY), -1, 'the canary is not in the bytes');
  t.is(wire.indexOf(Buffer.from(CANARY).toString('base64')), -1);
  t.is(wire.indexOf('json/plain'), -1, 'the original metadata is encrypted as well');
  t.is(wire.indexOf(keyring.currentKey()), -1);
});

test('the same payload encrypts differently each time (a fresh IV per payload)', async (t) => {
  const payload = defaultPayloadConverter.toPayload('same');
  const [a, b] = await codec.encode([payload, payload]);
  t.notDeepEqual(Buffer.from(a.data!), Buffer.from(b.data!));
  t.notDeepEqual(Buffer.from(a.data!).subarray(0, 12), Buffer.from(b.data!).subarray(0, 12));
});

test('a payload we did not encrypt is refused by clients, and shown as it is by the codec server', async (t) => {
  const plain = defaultPayloadConverter.toPayload({ smuggled: 'carried state' });
  const bare: Payload = { data: utf8('no metadata at all') };
  for (const payload of [plain, bare]) {
    const error = await t.throwsAsync(codec.decode([payload]), { instanceOf: PayloadDecryptionError });
    t.regex(error.message, /not encrypted with the payload codec \(MVE_CODEC_KEYS\): unencrypted payloads are refused/);
    t.notRegex(error.message, /smuggled|no metadata/, 'the error quotes nothing of the payload');
  }
  const viewer = new AesGcmPayloadCodec(keyring, { plaintext: 'pass' });
  const decoded = await viewer.decode([plain, bare]);
  t.is(decoded[0], plain);
  t.is(decoded[1], bare);
});

const flip = (payload: Payload, index: (length: number) => number): Payload => {
  const data = Buffer.from(payload.data!);
  data[index(data.length)] ^= 0x01;
  return { ...payload, data };
};

test('any altered byte fails with a clear error, never garbage', async (t) => {
  const [encoded] = await codec.encode([defaultPayloadConverter.toPayload({ amount: 1200 })]);
  const tampered = [
    flip(encoded, () => 0), // IV
    flip(encoded, () => 14), // ciphertext
    flip(encoded, (length) => length - 1), // tag
  ];
  for (const payload of tampered) {
    const error = await t.throwsAsync(codec.decode([payload]), { instanceOf: PayloadDecryptionError });
    t.regex(error.message, /failed authentication with key id "k1"/);
  }
  const truncated = { ...encoded, data: encoded.data!.subarray(0, 20) };
  await t.throwsAsync(codec.decode([truncated]), { instanceOf: PayloadDecryptionError, message: /too short/ });
});

test('relabelling a payload with another known key id fails authentication', async (t) => {
  const two = keyringOf('a', 'b').keyring;
  const [encoded] = await new AesGcmPayloadCodec(two).encode([defaultPayloadConverter.toPayload('x')]);
  const relabelled = { ...encoded, metadata: { ...encoded.metadata, [KEY_ID_METADATA]: utf8('b') } };
  await t.throwsAsync(new AesGcmPayloadCodec(two).decode([relabelled]), {
    message: /failed authentication with key id "b"/,
  });
});

test('an encrypted payload without a key id is refused', async (t) => {
  const [encoded] = await codec.encode([defaultPayloadConverter.toPayload('x')]);
  const noId = { ...encoded, metadata: { encoding: encoded.metadata!.encoding } };
  await t.throwsAsync(codec.decode([noId]), { instanceOf: PayloadDecryptionError, message: /no "encryption-key-id"/ });
});

test('rotation: the new key encrypts, the old key still decrypts, and an unknown id is named', async (t) => {
  const oldKey = `old:${Buffer.alloc(32, 1).toString('base64')}`;
  const newKey = `new:${Buffer.alloc(32, 2).toString('base64')}`;
  const before = new AesGcmPayloadCodec(Keyring.fromText(oldKey));
  const after = new AesGcmPayloadCodec(Keyring.fromText(`${newKey},${oldKey}`));

  const [fromBefore] = await before.encode([defaultPayloadConverter.toPayload('written before rotation')]);
  const [fromAfter] = await after.encode([defaultPayloadConverter.toPayload('written after rotation')]);
  t.is(new TextDecoder().decode(fromAfter.metadata![KEY_ID_METADATA]), 'new');

  const decoded = await after.decode([fromBefore, fromAfter]);
  t.deepEqual(
    decoded.map((p) => defaultPayloadConverter.fromPayload(p)),
    ['written before rotation', 'written after rotation'],
  );

  const error = await t.throwsAsync(before.decode([fromAfter]), { instanceOf: PayloadDecryptionError });
  t.regex(error.message, /key id "new", which is not in the keyring \(known: old\)/);
});

const worker = new AesGcmPayloadCodec(keyring, { plaintext: 'placeholder' });
const ofWorkflow: SerializationContext = { type: 'workflow', namespace: 'default', workflowId: 'mve-order-x' };
const ofActivity: SerializationContext = {
  type: 'activity',
  namespace: 'default',
  workflowId: 'mve-order-x',
  isLocal: false,
};

/** Payloads that are not data: not encrypted, or altered under a key id we hold; and what each is refused for. */
async function notData(): Promise<Array<{ payload: Payload; reason: RegExp }>> {
  const [encoded] = await codec.encode([defaultPayloadConverter.toPayload({ amount: 1200 })]);
  return [
    {
      payload: defaultPayloadConverter.toPayload({ smuggled: CANARY }),
      reason: /not encrypted with the payload codec/,
    },
    { payload: { data: utf8(CANARY) }, reason: /not encrypted with the payload codec/ },
    { payload: flip(encoded, (length) => length - 1), reason: /failed authentication with key id "k1"/ },
    { payload: { ...encoded, data: encoded.data!.subarray(0, 20) }, reason: /too short/ },
    {
      payload: { ...encoded, metadata: { encoding: encoded.metadata!.encoding } },
      reason: /no "encryption-key-id"/,
    },
  ];
}

test('on a worker, what a workflow cannot read becomes a placeholder holding only the reason', async (t) => {
  for (const { payload, reason } of await notData()) {
    const [placeholder] = await worker.decode([payload], ofWorkflow);
    t.false(Buffer.from(placeholder.data!).includes(CANARY), 'nothing that was sent');
    const value = defaultPayloadConverter.fromPayload(placeholder);
    t.deepEqual(Object.keys(value as object), ['refusedPayload']);
    t.regex(refusedPayloadReason(value)!, reason);
  }
  const [genuine] = await worker.decode(
    await codec.encode([defaultPayloadConverter.toPayload({ amount: 1 })]),
    ofWorkflow,
  );
  t.deepEqual(defaultPayloadConverter.fromPayload(genuine), { amount: 1 }, 'what we encrypted reads as it was');
  t.is(refusedPayloadReason({ amount: 1 }), undefined);
});

test("on a worker, an activity's payload that is not data is thrown (as without a context); a client's too", async (t) => {
  for (const { payload, reason } of await notData()) {
    await t.throwsAsync(worker.decode([payload], ofActivity), { instanceOf: PayloadDecryptionError, message: reason });
    await t.throwsAsync(worker.decode([payload]), { instanceOf: PayloadDecryptionError, message: reason });
    await t.throwsAsync(codec.decode([payload], ofWorkflow), { instanceOf: PayloadDecryptionError, message: reason });
  }
});

test('a key id the keyring does not hold is thrown on a worker too: a key missing from MVE_CODEC_KEYS', async (t) => {
  const [encoded] = await new AesGcmPayloadCodec(keyringOf('elsewhere').keyring).encode([
    defaultPayloadConverter.toPayload('x'),
  ]);
  await t.throwsAsync(worker.decode([encoded], ofWorkflow), {
    instanceOf: PayloadDecryptionError,
    message: /key id "elsewhere", which is not in the keyring \(known: k1\); add that key to MVE_CODEC_KEYS/,
  });
});

test('the keyring prints no key material when logged', (t) => {
  const shown = `${inspect(keyring, { showHidden: true, depth: 5 })} ${JSON.stringify(keyring)}`;
  t.false(shown.includes(keyring.currentKey().toString('base64')));
  t.false(shown.includes(keyring.currentKey().toString('hex')));
});
