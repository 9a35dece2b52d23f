import {
  defaultPayloadConverter,
  type Payload,
  type PayloadCodec,
  type SerializationContext,
} from '@temporalio/common';
import proto from '@temporalio/proto';
import type { Keyring } from './keyring.js';
import type { RefusedPayload } from './refused-payload.js';
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
 * What decoding does with a payload that is not data: one this codec did not encrypt, or one whose tag does not
 * verify under a key id the keyring holds.
 *
 * - `'refuse'` (clients): it is thrown (PayloadDecryptionError), never read as a value.
 * - `'pass'` (the codec server and ops' history view, which show whatever a history holds): a payload that is not
 *   encrypted is returned unchanged; an altered one is thrown.
 * - `'placeholder'` (workers): a workflow's payload (its input, a signal, an update, a query) becomes a placeholder
 *   holding only the reason (refused-payload.ts), which the workflow refuses as that message: one message from a
 *   sender without the key cannot fail every workflow task of the order. An activity's payload is thrown.
 *
 * A payload under a key id the keyring does not hold is thrown whatever the mode: that is a key missing from
 * MVE_CODEC_KEYS, and the task retried once the key is added reads it.
 */
export type UnreadablePayloads = 'refuse' | 'pass' | 'placeholder';

/**
 * AES-256-GCM over the whole original payload (its protobuf bytes, so metadata such as the encoding is
 * hidden too), sealed as codec/sealing.ts says: `iv | ciphertext | tag` with a fresh random IV per payload, the
 * key id in the metadata and authenticated, so it cannot be swapped without the tag failing.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  constructor(
    private readonly keyring: Keyring,
    private readonly options: { plaintext: UnreadablePayloads } = { plaintext: 'refuse' },
  ) {}

  // eslint-disable-next-line @typescript-eslint/require-await -- the codec interface is async: a failure must reject
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encrypt(payload));
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- as encode
  async decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (isEncrypted(payload)) return this.decrypt(payload, context);
      if (this.options.plaintext === 'pass') return payload;
      return this.notData(
        'a payload was not encrypted with the payload codec (MVE_CODEC_KEYS): unencrypted payloads are refused',
        context,
      );
    });
  }

  /** A payload that is not data: a workflow's placeholder on a worker, else thrown. */
  private notData(reason: string, context: SerializationContext | undefined): Payload {
    if (this.options.plaintext !== 'placeholder' || context?.type !== 'workflow')
      throw new PayloadDecryptionError(reason);
    const placeholder: RefusedPayload = { refusedPayload: reason };
    return defaultPayloadConverter.toPayload(placeholder);
  }

  private encrypt(payload: Payload): Payload {
    const { keyId, data } = seal(this.keyring, ProtoPayload.encode(payload).finish());
    return {
      metadata: { encoding: text.encode(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: text.encode(keyId) },
      data,
    };
  }

  private decrypt(payload: Payload, context: SerializationContext | undefined): Payload {
    const idBytes = payload.metadata?.[KEY_ID_METADATA];
    if (!idBytes) return this.notData(`encrypted payload has no "${KEY_ID_METADATA}" metadata`, context);
    const keyId = untext.decode(idBytes);
    const opened = unseal(this.keyring, { keyId, data: payload.data ?? new Uint8Array() });
    if ('failure' in opened) {
      const reason = this.failureMessage(opened.failure, keyId);
      if (opened.failure === 'unknown-key') throw new PayloadDecryptionError(reason);
      return this.notData(reason, context);
    }
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
