import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Keyring } from '../../codec/index.js';

/** A price a worker was quoted by the ordering API for an order, and when. */
export interface SealedQuote {
  workflowId: string;
  monthlyRate: number;
  currency: string;
  quotedAt: Date;
}

/**
 * The seal on a quote the workers obtained themselves (`worker_quotes`): `keyId:mac`, HMAC-SHA-256 with the action key
 * over the order, the price in millionths, the currency and the time. A writer of the records without the key cannot
 * add a price the buy would pay.
 */
export function sealQuote(keys: Keyring, quote: SealedQuote): string {
  return `${keys.currentKeyId}:${macOf(keys.currentKey(), quote)}`;
}

export function quoteSealHolds(keys: Keyring, quote: SealedQuote, seal: string): boolean {
  const at = seal.lastIndexOf(':');
  const key = at > 0 ? keys.keyFor(seal.slice(0, at)) : undefined;
  if (!key) return false;
  const expected = Buffer.from(macOf(key, quote));
  const given = Buffer.from(seal.slice(at + 1));
  return expected.length === given.length && timingSafeEqual(expected, given);
}

function macOf(key: Buffer, { workflowId, monthlyRate, currency, quotedAt }: SealedQuote): string {
  const message = JSON.stringify([
    'mve-orders/worker-quote/v1',
    workflowId,
    Math.round(monthlyRate * 1e6),
    currency.trim().toUpperCase(),
    quotedAt.getTime(),
  ]);
  return createHmac('sha256', key).update(message).digest('base64url');
}
