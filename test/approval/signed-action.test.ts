import { randomBytes } from 'node:crypto';
import test from 'ava';
import {
  MAX_FUTURE_SKEW_MS,
  MAX_SIGNATURE_AGE_MS,
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
const ORDER = { workflowId: 'mve-order-A', firstRunId: '7c1f0e55-0d0f-4a9e-9f3e-1d2c3b4a5e6f' };

test('a signed action verifies with the key that signed it, whatever the field order', (t) => {
  const signed = signAction(current, ORDER, 'approve', vote, NOW, nonce());
  t.deepEqual(verifyAction([current], ORDER, 'approve', signed, NOW, new Set()), { ok: true });
  const reordered = {
    ...signed,
    fields: { comment: 'budgeted', currency: 'AUD', monthlyRate: 3236.4, approverId: 'fiona' },
  };
  t.deepEqual(verifyAction([current], ORDER, 'approve', reordered, NOW, new Set()), { ok: true });
});

test('rotation: an action signed with the previous key verifies while the workers still hold it, not after', (t) => {
  const signed = signAction(previous, ORDER, 'cancel', { actor: 'alice', reason: 'no longer needed' }, NOW, nonce());
  t.true(verifyAction([current, previous], ORDER, 'cancel', signed, NOW, new Set()).ok);
  const dropped = verifyAction([current], ORDER, 'cancel', signed, NOW, new Set());
  t.false(dropped.ok);
  t.regex((dropped as { reason: string }).reason, /key "2026-11", which the workers do not hold/);
});

test('every part of the message is covered: order, its first run, action, each field, time, nonce', (t) => {
  const signed = signAction(current, ORDER, 'approve', vote, NOW, nonce());
  const refusedBecause = (target: typeof ORDER, action: 'approve' | 'reject', value: typeof signed) =>
    (verifyAction([current], target, action, value, NOW, new Set()) as { ok: false; reason: string }).reason;
  t.regex(refusedBecause({ ...ORDER, workflowId: 'mve-order-B' }, 'approve', signed), /does not match/);
  t.regex(refusedBecause({ ...ORDER, firstRunId: 'another-run' }, 'approve', signed), /another order, run/);
  t.regex(refusedBecause(ORDER, 'reject', signed), /does not match/);
  t.regex(refusedBecause(ORDER, 'approve', { ...signed, fields: { ...vote, approverId: 'FIONA' } }), /does not match/);
  t.regex(refusedBecause(ORDER, 'approve', { ...signed, fields: { ...vote, monthlyRate: 3236.5 } }), /does not match/);
  const withoutComment: Partial<typeof vote> = { ...vote };
  delete withoutComment.comment;
  t.regex(refusedBecause(ORDER, 'approve', { ...signed, fields: withoutComment as typeof vote }), /does not match/);
  t.regex(
    refusedBecause(ORDER, 'approve', { ...signed, signature: { ...signed.signature, issuedAt: NOW - 1 } }),
    /does not match/,
  );
  t.regex(
    refusedBecause(ORDER, 'approve', { ...signed, signature: { ...signed.signature, nonce: nonce() } }),
    /does not match/,
  );
  t.regex(
    refusedBecause(ORDER, 'approve', {
      ...signed,
      signature: { ...signed.signature, mac: signed.signature.mac.slice(1) },
    }),
    /does not match/,
  );
});

test('a replayed nonce, a time far in the future and an old signature are refused; unsigned shapes are named as such', (t) => {
  const used = nonce();
  const signed = signAction(current, ORDER, 'approve', vote, NOW, used);
  t.regex(
    (verifyAction([current], ORDER, 'approve', signed, NOW, new Set([used])) as { reason: string }).reason,
    /already received once/,
  );
  const future = signAction(current, ORDER, 'approve', vote, NOW + MAX_FUTURE_SKEW_MS + 1, nonce());
  t.regex(
    (verifyAction([current], ORDER, 'approve', future, NOW, new Set()) as { reason: string }).reason,
    /in the future/,
  );
  t.true(
    verifyAction(
      [current],
      ORDER,
      'approve',
      signAction(current, ORDER, 'approve', vote, NOW + 60_000, nonce()),
      NOW,
      new Set(),
    ).ok,
    'small clock skew is fine',
  );
  const old = signAction(current, ORDER, 'approve', vote, NOW - MAX_SIGNATURE_AGE_MS - 1, nonce());
  t.regex(
    (verifyAction([current], ORDER, 'approve', old, NOW, new Set()) as { reason: string }).reason,
    /signed more than 10 minutes ago/,
  );
  t.true(
    verifyAction(
      [current],
      ORDER,
      'approve',
      signAction(current, ORDER, 'approve', vote, NOW - 60_000, nonce()),
      NOW,
      new Set(),
    ).ok,
    'a minute old is fine',
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
      (verifyAction([current], ORDER, 'approve', junk, NOW, new Set()) as { reason: string }).reason,
      /not signed by the order API/,
    );
  }
});

test('no keys at all (a worker bundled without MVE_ACTION_KEY) refuses everything', (t) => {
  const signed = signAction(current, ORDER, 'approve', vote, NOW, nonce());
  t.false(verifyAction([], ORDER, 'approve', signed, NOW, new Set()).ok);
});
