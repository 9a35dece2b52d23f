import { randomBytes } from 'node:crypto';
import test from 'ava';
import {
  MAX_FUTURE_SKEW_MS,
  signAction,
  verifyAction,
  type ActionKeyEntry,
} from '../../workflows/order/signed-action.js';

// The pure signing module shared by the HTTP API (signs) and the workflow's validators (verify).

const key = (id: string): ActionKeyEntry => ({ id, key: randomBytes(32).toString('base64') });
const current = key('2026-12');
const previous = key('2026-11');
const nonce = () => randomBytes(16).toString('base64url');
const vote = { approverId: 'fiona', monthlyRate: 3236.4, currency: 'AUD', comment: 'budgeted' };
const NOW = Date.UTC(2026, 10, 23, 12);

test('a signed action verifies with the key that signed it, whatever the field order', (t) => {
  const signed = signAction(current, 'mve-order-A', 'approve', vote, NOW, nonce());
  t.deepEqual(verifyAction([current], 'mve-order-A', 'approve', signed, NOW, new Set()), { ok: true });
  const reordered = {
    ...signed,
    fields: { comment: 'budgeted', currency: 'AUD', monthlyRate: 3236.4, approverId: 'fiona' },
  };
  t.deepEqual(verifyAction([current], 'mve-order-A', 'approve', reordered, NOW, new Set()), { ok: true });
});

test('rotation: an action signed with the previous key verifies while the workers still hold it, not after', (t) => {
  const signed = signAction(
    previous,
    'mve-order-A',
    'cancel',
    { actor: 'alice', reason: 'no longer needed' },
    NOW,
    nonce(),
  );
  t.true(verifyAction([current, previous], 'mve-order-A', 'cancel', signed, NOW, new Set()).ok);
  const dropped = verifyAction([current], 'mve-order-A', 'cancel', signed, NOW, new Set());
  t.false(dropped.ok);
  t.regex((dropped as { reason: string }).reason, /key "2026-11", which the workers do not hold/);
});

test('every part of the message is covered: order, action, each field, time, nonce', (t) => {
  const signed = signAction(current, 'mve-order-A', 'approve', vote, NOW, nonce());
  const refusedBecause = (workflowId: string, action: 'approve' | 'reject', value: typeof signed) =>
    (verifyAction([current], workflowId, action, value, NOW, new Set()) as { ok: false; reason: string }).reason;
  t.regex(refusedBecause('mve-order-B', 'approve', signed), /does not match/);
  t.regex(refusedBecause('mve-order-A', 'reject', signed), /does not match/);
  t.regex(
    refusedBecause('mve-order-A', 'approve', { ...signed, fields: { ...vote, approverId: 'FIONA' } }),
    /does not match/,
  );
  t.regex(
    refusedBecause('mve-order-A', 'approve', { ...signed, fields: { ...vote, monthlyRate: 3236.5 } }),
    /does not match/,
  );
  const { comment: _dropped, ...withoutComment } = vote;
  t.regex(
    refusedBecause('mve-order-A', 'approve', { ...signed, fields: withoutComment as typeof vote }),
    /does not match/,
  );
  t.regex(
    refusedBecause('mve-order-A', 'approve', { ...signed, signature: { ...signed.signature, issuedAt: NOW - 1 } }),
    /does not match/,
  );
  t.regex(
    refusedBecause('mve-order-A', 'approve', { ...signed, signature: { ...signed.signature, nonce: nonce() } }),
    /does not match/,
  );
  t.regex(
    refusedBecause('mve-order-A', 'approve', {
      ...signed,
      signature: { ...signed.signature, mac: signed.signature.mac.slice(1) },
    }),
    /does not match/,
  );
});

test('a replayed nonce and a time far in the future are refused; unsigned shapes are named as such', (t) => {
  const used = nonce();
  const signed = signAction(current, 'mve-order-A', 'approve', vote, NOW, used);
  t.regex(
    (verifyAction([current], 'mve-order-A', 'approve', signed, NOW, new Set([used])) as { reason: string }).reason,
    /already received once/,
  );
  const future = signAction(current, 'mve-order-A', 'approve', vote, NOW + MAX_FUTURE_SKEW_MS + 1, nonce());
  t.regex(
    (verifyAction([current], 'mve-order-A', 'approve', future, NOW, new Set()) as { reason: string }).reason,
    /in the future/,
  );
  t.true(
    verifyAction(
      [current],
      'mve-order-A',
      'approve',
      signAction(current, 'mve-order-A', 'approve', vote, NOW + 60_000, nonce()),
      NOW,
      new Set(),
    ).ok,
    'small clock skew is fine',
  );
  for (const junk of [
    undefined,
    null,
    vote,
    { fields: vote },
    { fields: vote, signature: { keyId: current.id } },
    { fields: [], signature: signed.signature },
    { ...signed, signature: { ...signed.signature, nonce: 'short' } },
  ]) {
    t.regex(
      (verifyAction([current], 'mve-order-A', 'approve', junk, NOW, new Set()) as { reason: string }).reason,
      /not signed by the order API/,
    );
  }
});

test('no keys at all (a worker bundled without MVE_ACTION_KEY) refuses everything', (t) => {
  const signed = signAction(current, 'mve-order-A', 'approve', vote, NOW, nonce());
  t.false(verifyAction([], 'mve-order-A', 'approve', signed, NOW, new Set()).ok);
});
