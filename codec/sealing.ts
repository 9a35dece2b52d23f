import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Keyring } from './keyring.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const text = new TextEncoder();

/** Bytes sealed with one key of a keyring: `iv (12 bytes) | ciphertext | tag (16 bytes)`, and the id of that key. */
export interface Sealed {
  keyId: string;
  data: Buffer;
}

/** Why sealed bytes could not be opened; the caller words it for what they were. */
export type UnsealFailure = 'unknown-key' | 'too-short' | 'altered';

/**
 * AES-256-GCM with the keyring's current key and a fresh random IV. The key id is authenticated, so it cannot be
 * swapped without the tag failing; `context`, when given, is authenticated too, binding the sealed bytes to where
 * they belong (a row's key), so they cannot be moved elsewhere and still open. Key ids never hold a NUL byte,
 * which separates the two.
 */
export function seal(keyring: Keyring, plain: Uint8Array, context?: Uint8Array): Sealed {
  const keyId = keyring.currentKeyId;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyring.currentKey(), iv);
  cipher.setAAD(associatedData(text.encode(keyId), context));
  return { keyId, data: Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]) };
}

/**
 * Opens what `seal` sealed, with whichever key of the keyring it names (so what a rotated-out current key sealed
 * still opens while that key stays in the ring), given the same `context`.
 */
export function unseal(
  keyring: Keyring,
  sealed: { keyId: string; data: Uint8Array },
  context?: Uint8Array,
): { plain: Buffer } | { failure: UnsealFailure } {
  const key = keyring.keyFor(sealed.keyId);
  if (!key) return { failure: 'unknown-key' };
  const { data } = sealed;
  if (data.length < IV_BYTES + TAG_BYTES) return { failure: 'too-short' };
  const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
  decipher.setAAD(associatedData(text.encode(sealed.keyId), context));
  decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
  try {
    return {
      plain: Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]),
    };
  } catch {
    return { failure: 'altered' };
  }
}

function associatedData(keyId: Uint8Array, context: Uint8Array | undefined): Uint8Array {
  return context === undefined ? keyId : Buffer.concat([keyId, Buffer.of(0), context]);
}
