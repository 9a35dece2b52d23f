import { createHmac } from 'node:crypto';
import type { Keyring } from '../../codec/index.js';
import { canonicalJson } from '../../domain/index.js';

/**
 * The fingerprint a ticket is registered with: an HMAC of the whole request (secrets included) under a key derived
 * from the action key `keyId` for this one purpose, so the stored value reveals nothing of the request. The intake
 * compares a re-sent ticket by it; the order's first step compares its run's request by it. `undefined` when the
 * keyring no longer holds `keyId`.
 */
export function ticketFingerprint(keys: Keyring, keyId: string, request: object): string | undefined {
  const base = keys.keyFor(keyId);
  if (!base) return undefined;
  const key = createHmac('sha256', base).update('mve-orders/ticket-fingerprint/v1').digest();
  return createHmac('sha256', key).update(canonicalJson(request)).digest('hex');
}
