import test from 'ava';
import { ApplicationFailure } from '@temporalio/common';
import {
  decodeFromPayloadsAtIndex,
  decodeOptionalFailureToOptionalError,
  encodeErrorToFailure,
  encodeToPayloads,
  loadDataConverter,
} from '@temporalio/common/lib/internal-non-workflow/index.js';
import proto from '@temporalio/proto';
import {
  FAILURE_CONVERTER_PATH,
  PayloadDecryptionError,
  encryptingDataConverter,
  workerDataConverter,
} from '../../codec/index.js';
import { keyringOf } from './keys.js';

const CANARY = 'CANARY-licence-9b3e';
const { keyring } = keyringOf('k1');
const converter = loadDataConverter(encryptingDataConverter(keyring));
const workers = loadDataConverter(workerDataConverter(keyring));

test('the converter loads the failure converter that encodes messages and stack traces', (t) => {
  t.true(FAILURE_CONVERTER_PATH.endsWith('failure-converter.cjs'));
  t.deepEqual((converter.failureConverter as unknown as { options: unknown }).options, {
    encodeCommonAttributes: true,
  });
});

test('values sent through the converter are encrypted and come back', async (t) => {
  const payloads = (await encodeToPayloads(converter, { vendorConfig: { licenseData: CANARY } }))!;
  const bytes = Buffer.from(proto.temporal.api.common.v1.Payloads.encode({ payloads }).finish());
  t.is(bytes.indexOf(CANARY), -1);
  t.deepEqual(await decodeFromPayloadsAtIndex(converter, 0, payloads), { vendorConfig: { licenseData: CANARY } });
});

test('a failure message, its stack and its details are encrypted, and read back whole', async (t) => {
  const cause = new Error(`cause mentions ${CANARY}`);
  const error = ApplicationFailure.create({ message: `buy failed for ${CANARY}`, details: [CANARY], cause });
  const failure = await encodeErrorToFailure(converter, error);
  const bytes = Buffer.from(proto.temporal.api.failure.v1.Failure.encode(failure).finish());
  t.is(bytes.indexOf(CANARY), -1, 'nothing of the secret in the failure as stored');
  t.is(failure.message, 'Encoded failure', 'the plaintext message is replaced');

  const back = (await decodeOptionalFailureToOptionalError(converter, failure)) as ApplicationFailure;
  t.is(back.message, `buy failed for ${CANARY}`);
  t.deepEqual(back.details, [CANARY]);
  t.is(back.cause?.message, `cause mentions ${CANARY}`);
});

test("the workers' converter gives a workflow a placeholder for a plaintext payload; the clients' refuses it", async (t) => {
  const plaintext = [{ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(`"${CANARY}"`) }];
  const ofWorkflow = { type: 'workflow', namespace: 'default', workflowId: 'mve-order-x' } as const;
  t.deepEqual(await decodeFromPayloadsAtIndex(workers, 0, plaintext, ofWorkflow), {
    refusedPayload:
      'a payload was not encrypted with the payload codec (MVE_CODEC_KEYS): unencrypted payloads are refused',
  });
  await t.throwsAsync(decodeFromPayloadsAtIndex(converter, 0, plaintext, ofWorkflow), {
    instanceOf: PayloadDecryptionError,
  });
  t.deepEqual((workers.failureConverter as unknown as { options: unknown }).options, { encodeCommonAttributes: true });
  const payloads = (await encodeToPayloads(workers, { licenseData: CANARY }))!;
  t.deepEqual(
    await decodeFromPayloadsAtIndex(converter, 0, payloads),
    { licenseData: CANARY },
    'one keyring, both ways',
  );
});
