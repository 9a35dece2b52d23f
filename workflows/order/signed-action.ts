import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';

/**
 * Human actions (votes, cancels, buy resolutions) reach an order only signed by the HTTP API, with a key the
 * workers also hold (MVE_ACTION_KEY): HMAC-SHA-256 over the workflow id, the order's first run id, the action, its
 * fields, the time it was issued and a nonce. The workflow checks the signature in its update validators, so someone
 * who can reach Temporal but holds no key cannot vote, forge a name, or replay a vote on another order, another run
 * of the same workflow id, another quote, or minutes later.
 *
 * Pure JavaScript (no node:crypto) and synchronous: it runs inside the workflow sandbox, where update
 * validators must be synchronous and deterministic.
 */

export const SIGNED_ACTIONS = ['approve', 'reject', 'cancel', 'resolve-buy'] as const;
export type SignedActionName = (typeof SIGNED_ACTIONS)[number];

export interface ActionSignature {
  keyId: string;
  /** When the API signed it (epoch ms). */
  issuedAt: number;
  /** Random, unique per action: the workflow refuses a nonce it has seen (a replayed message). */
  nonce: string;
  /** base64url of the HMAC-SHA-256. */
  mac: string;
}

/** An action's fields with the API's signature over them. */
export interface Signed<F> {
  fields: F;
  signature: ActionSignature;
}

/** A key as carried into the workflow bundle: id and base64 bytes. */
export interface ActionKeyEntry {
  id: string;
  key: string;
}

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/** A signature issued further in the future than this (clock skew between API and workflow) is refused. */
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;
/** A signature older than this is refused: the API signs an action just before it sends it. */
export const MAX_SIGNATURE_AGE_MS = 10 * 60_000;

/** Which order an action is for: its workflow and that workflow's first run (the run that claimed the ticket). */
export interface ActionTarget {
  workflowId: string;
  firstRunId: string;
}

/** Signs an action for one order. `key` is the current key; nonce and time come from the caller. */
export function signAction<F extends object>(
  key: ActionKeyEntry,
  target: ActionTarget,
  action: SignedActionName,
  fields: F,
  issuedAt: number,
  nonce: string,
): Signed<F> {
  const mac = macOf(key, canonicalMessage(target, action, fields, key.id, issuedAt, nonce));
  return { fields, signature: { keyId: key.id, issuedAt, nonce, mac } };
}

/**
 * Is this action signed, by a key we hold, for this order and this action, with exactly these fields?
 * `now` is the workflow's clock; `seenNonces` the nonces the order has already accepted.
 */
export function verifyAction(
  keys: readonly ActionKeyEntry[],
  target: ActionTarget,
  action: SignedActionName,
  signed: unknown,
  now: number,
  seenNonces: ReadonlySet<string>,
): SignatureCheck {
  const signedBy = verifySignature(keys, target, action, signed);
  if (!signedBy.ok) return signedBy;
  const { signature } = signed as Signed<Record<string, unknown>>;
  if (signature.issuedAt > now + MAX_FUTURE_SKEW_MS) return refuse('the action is signed with a time in the future');
  if (seenNonces.has(signature.nonce)) return refuse('the action was already received once (a replayed message)');
  if (signature.issuedAt < now - MAX_SIGNATURE_AGE_MS) {
    return refuse(
      `the action was signed more than ${MAX_SIGNATURE_AGE_MS / 60_000} minutes ago; send it again through the HTTP API`,
    );
  }
  return { ok: true };
}

/**
 * Did the order API sign exactly this action for this order, with a key we hold? Only the signature: how old it is
 * and whether it was seen are the receiver's to judge (`verifyAction`); the records check votes again with this.
 */
export function verifySignature(
  keys: readonly ActionKeyEntry[],
  target: ActionTarget,
  action: SignedActionName,
  signed: unknown,
): SignatureCheck {
  if (!isSigned(signed)) return refuse('the action is not signed by the order API; send it through the HTTP API');
  const { fields, signature } = signed;
  const key = keys.find((candidate) => candidate.id === signature.keyId);
  if (!key) return refuse(`the action is signed with key "${signature.keyId}", which the workers do not hold`);
  const expected = macOf(
    key,
    canonicalMessage(target, action, fields, signature.keyId, signature.issuedAt, signature.nonce),
  );
  if (!constantTimeEqual(expected, signature.mac)) {
    return refuse(
      "the action's signature does not match (forged, altered, or signed for another order, run of the order, or action)",
    );
  }
  return { ok: true };
}

function isSigned(value: unknown): value is Signed<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null) return false;
  const { fields, signature } = value as Record<string, unknown>;
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return false;
  if (typeof signature !== 'object' || signature === null) return false;
  const { keyId, issuedAt, nonce, mac } = signature as Record<string, unknown>;
  return (
    typeof keyId === 'string' &&
    typeof issuedAt === 'number' &&
    Number.isSafeInteger(issuedAt) &&
    typeof nonce === 'string' &&
    nonce.length >= 16 &&
    nonce.length <= 64 &&
    typeof mac === 'string'
  );
}

/** One unambiguous text per action: a JSON array, fields with their keys sorted at every depth. */
function canonicalMessage(
  target: ActionTarget,
  action: string,
  fields: object,
  keyId: string,
  issuedAt: number,
  nonce: string,
): string {
  const { workflowId, firstRunId } = target;
  return JSON.stringify([
    'mve-orders/action/v2',
    workflowId,
    firstRunId,
    action,
    sortKeys(fields),
    keyId,
    issuedAt,
    nonce,
  ]);
}

export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

export function macOf(key: ActionKeyEntry, message: string): string {
  return toBase64Url(hmac(sha256, fromBase64(key.key), new TextEncoder().encode(message)));
}

/** Compares every character whatever the first difference, so the time taken says nothing about the MAC. */
export function constantTimeEqual(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i % Math.max(1, b.length));
  return difference === 0;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

// The sandbox has no Buffer and no atob guarantee: base64 by hand, for 32-byte keys and MACs.
function fromBase64(text: string): Uint8Array {
  const clean = text.replace(/=+$/, '');
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of clean) {
    buffer = (buffer << 6) | ALPHABET.indexOf(char);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  return Uint8Array.from(bytes);
}

function toBase64Url(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const chunk = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const count = Math.min(3, bytes.length - i);
    for (let j = 0; j <= count; j++) text += ALPHABET[(chunk >> (18 - 6 * j)) & 63];
  }
  return text.replace(/\+/g, '-').replace(/\//g, '_');
}

function refuse(reason: string): SignatureCheck {
  return { ok: false, reason };
}
