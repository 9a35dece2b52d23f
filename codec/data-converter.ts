import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { AesGcmPayloadCodec } from './aes-gcm-codec.js';
import type { Keyring } from './keyring.js';

/** Absolute path of the failure converter module (the SDK loads failure converters by path). */
export const FAILURE_CONVERTER_PATH = fileURLToPath(new URL('./failure-converter.cjs', import.meta.url));

/**
 * The data converter every process must share, worker and clients alike: payloads encrypted with the
 * keyring's current key, and failure messages and stack traces moved into payloads so they are encrypted too.
 * Pass it as `dataConverter` to `Worker.create`, `new Client` / `new WorkflowClient`.
 */
export function encryptingDataConverter(keyring: Keyring): DataConverter {
  return {
    payloadCodecs: [new AesGcmPayloadCodec(keyring)],
    failureConverterPath: FAILURE_CONVERTER_PATH,
  };
}
