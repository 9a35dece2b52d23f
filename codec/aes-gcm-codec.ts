import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { Keyring } from './keyring.js';
import { seal, unseal, type UnsealFailure } from './sealing.js';

/** Metadata of a payload this codec encrypted. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';

// @temporalio/proto is CommonJS: its namespaces hang off the default export under ESM.
const ProtoPayload = proto.temporal.api.common.v1.Payload;
const text = new TextEncoder();
const untext = new TextDecoder();

/** A payload that is ours but cannot be decrypted. Never carries plaintext or key material. */
export class PayloadDecryptionError extends Error {
  override name = 'PayloadDecryptionError';
}

/**
 * AES-256-GCM over the whole original payload (its protobuf bytes, so metadata such as the encoding is
 * hidden too), sealed as codec/sealing.ts says: `iv | ciphertext | tag` with a fresh random IV per payload, the
 * key id in the metadata and authenticated, so it cannot be swapped without the tag failing.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  /**
   * `plaintext: 'refuse'` (workers and clients): a payload this codec did not encrypt is an error, not data, so a
   * starter without the key cannot speak to a workflow at all. `'pass'` (the codec server and ops' history view,
   * which show whatever a history holds): it is returned unchanged.
   */
  constructor(
    private readonly keyring: Keyring,
    private readonly options: { plaintext: 'refuse' | 'pass' } = { plaintext: 'refuse' },
  ) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encrypt(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (isEncrypted(payload)) return this.decrypt(payload);
      if (this.options.plaintext === 'pass') return payload;
      throw new PayloadDecryptionError(
        'a payload was not encrypted with the payload codec (MVE_CODEC_KEYS): unencrypted payloads are refused',
      );
    });
  }

  private encrypt(payload: Payload): Payload {
    const { keyId, data } = seal(this.keyring, ProtoPayload.encode(payload).finish());
    return {
      metadata: { encoding: text.encode(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: text.encode(keyId) },
      data,
    };
  }

  private decrypt(payload: Payload): Payload {
    const idBytes = payload.metadata?.[KEY_ID_METADATA];
    if (!idBytes) throw new PayloadDecryptionError(`encrypted payload has no "${KEY_ID_METADATA}" metadata`);
    const keyId = untext.decode(idBytes);
    const opened = unseal(this.keyring, { keyId, data: payload.data ?? new Uint8Array() });
    if ('failure' in opened) throw new PayloadDecryptionError(this.failureMessage(opened.failure, keyId));
    const original = ProtoPayload.decode(opened.plain);
    return { metadata: original.metadata, data: original.data };
  }

  private failureMessage(failure: UnsealFailure, keyId: string): string {
    switch (failure) {
      case 'unknown-key':
        return `payload was encrypted with key id "${keyId}", which is not in the keyring (known: ${this.keyring.ids.join(', ')}); add that key to MVE_CODEC_KEYS`;
      case 'too-short':
        return `encrypted payload (key id "${keyId}") is too short to be ours`;
      case 'altered':
        return `encrypted payload failed authentication with key id "${keyId}": it was altered, or the key under that id is not the one that encrypted it`;
    }
  }
}

function isEncrypted(payload: Payload): boolean {
  const encoding = payload.metadata?.encoding;
  return encoding !== undefined && encoding !== null && untext.decode(encoding) === ENCRYPTED_ENCODING;
}
