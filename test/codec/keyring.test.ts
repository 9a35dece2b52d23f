import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { CodecKeyError, Keyring, keyringFromEnvironment, resolveKeyring } from '../../codec/index.js';
import { newKeyText } from './keys.js';

test('MVE_CODEC_KEYS lists id:base64key pairs, the first is current, all decrypt', (t) => {
  const keyring = Keyring.fromText(` 2026-11:${newKeyText()} , 2026-05:${newKeyText()} `);
  t.is(keyring.currentKeyId, '2026-11');
  t.deepEqual(keyring.ids, ['2026-11', '2026-05']);
  t.is(keyring.keyFor('2026-05')?.length, 32);
  t.is(keyring.keyFor('2025-01'), undefined);
});

const invalid: Array<[string, string, RegExp]> = [
  [
    'a 16-byte key',
    `k1:${Buffer.alloc(16, 7).toString('base64')}`,
    /entry 1 key: must decode to 32 bytes \(256 bits\), not 16/,
  ],
  ['bad base64', 'k1:not*base64!', /entry 1 key: must be standard base64/],
  [
    'unpadded base64',
    `k1:${Buffer.alloc(32, 7).toString('base64').replace(/=+$/, '')}`,
    /entry 1 key: must be standard base64/,
  ],
  ['a duplicate id', `k1:${newKeyText()},k1:${newKeyText()}`, /entry 2 id: is a duplicate: key id "k1" appears twice/],
  ['no colon', 'justakey', /entry 1 must be written id:base64key/],
  ['an empty id', `:${newKeyText()}`, /entry 1 must be written id:base64key/],
  ['an id with spaces', `my key:${newKeyText()}`, /entry 1 id: must be 1 to 64 characters/],
  ['nothing but commas', ' , ', /must hold at least one key/],
];

for (const [name, text, message] of invalid) {
  test(`refused: ${name}, with the entry and rule named`, (t) => {
    const error = t.throws(() => Keyring.fromText(text), { instanceOf: CodecKeyError });
    t.regex(error.message, /^invalid codec keys \(MVE_CODEC_KEYS\)/);
    t.regex(error.message, message);
  });
}

test('errors never repeat key material', (t) => {
  const shortKey = Buffer.alloc(16, 9).toString('base64');
  const error = t.throws(() => Keyring.fromText(`good:${newKeyText()},short:${shortKey}`), {
    instanceOf: CodecKeyError,
  });
  t.false(error.message.includes(shortKey));
});

test('the environment gives a keyring only when MVE_CODEC_KEYS is set', (t) => {
  t.is(keyringFromEnvironment({}), undefined);
  t.is(keyringFromEnvironment({ MVE_CODEC_KEYS: '  ' }), undefined);
  t.is(keyringFromEnvironment({ MVE_CODEC_KEYS: `env:${newKeyText()}` })?.currentKeyId, 'env');
});

test('resolveKeyring prefers MVE_CODEC_KEYS, falls back to the dev key, and refuses to run with neither', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'codec-resolve-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const fromEnv = await resolveKeyring({ env: { MVE_CODEC_KEYS: `env:${newKeyText()}` }, devDataDir: dataDir });
  t.is(fromEnv.currentKeyId, 'env');
  const dev = await resolveKeyring({ env: {}, devDataDir: dataDir });
  t.regex(dev.currentKeyId, /^dev-[0-9a-f]{8}$/);
  await t.throwsAsync(resolveKeyring({ env: {} }), { instanceOf: CodecKeyError, message: /MVE_CODEC_KEYS is not set/ });
});
