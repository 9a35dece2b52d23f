import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { AesGcmPayloadCodec } from './aes-gcm-codec.js';
import type { Keyring } from './keyring.js';

/** Absolute path of the failure converter module (the SDK loads failure converters by path). */
export const FAILURE_CONVERTER_PATH = fileURLToPath(new URL('./failure-converter.cjs', import.meta.url));

/**
 * The data converter of every client (the API, the CLI, activities reading a run's input): payloads encrypted with
 * the keyring's current key, failure messages and stack traces moved into payloads so they are encrypted too, and a
 * payload the codec did not encrypt refused. Pass it as `dataConverter` to `new Client` / `new WorkflowClient`.
 */
export function encryptingDataConverter(keyring: Keyring): DataConverter {
  return converterWith(new AesGcmPayloadCodec(keyring));
}

/**
 * The workers' (`Worker.create`, and replays of their histories): as the clients', except that a payload a workflow
 * cannot read reaches it as a placeholder it refuses as that message, rather than failing its workflow task
 * (aes-gcm-codec.ts, `'placeholder'`).
 */
export function workerDataConverter(keyring: Keyring): DataConverter {
  return converterWith(new AesGcmPayloadCodec(keyring, { plaintext: 'placeholder' }));
}

function converterWith(codec: AesGcmPayloadCodec): DataConverter {
  return { payloadCodecs: [codec], failureConverterPath: FAILURE_CONVERTER_PATH };
}
