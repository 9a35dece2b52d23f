import { defaultPayloadConverter } from '@temporalio/common';
import { AesGcmPayloadCodec, type Keyring } from '../../codec/index.js';

/** A payload in proto3 JSON, as the codec server takes and answers it: every bytes field in base64. */
export interface JsonPayload {
  metadata: Record<string, string>;
  data: string;
}

/**
 * `value` as a worker or client holding `keyring` writes it to history, in proto3 JSON: what the Web UI sends the
 * codec server to decode (the codec server encrypts nothing).
 */
export async function encryptedJson(keyring: Keyring, value: unknown): Promise<JsonPayload> {
  const [payload] = await new AesGcmPayloadCodec(keyring).encode([defaultPayloadConverter.toPayload(value)]);
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, bytes]) => [key, Buffer.from(bytes).toString('base64')]),
    ),
    data: Buffer.from(payload.data ?? []).toString('base64'),
  };
}
