/**
 * Sealing bytes with the codec keys (what payloads and the console's stored credentials are encrypted with): opened
 * with any key of the ring, bound to its context, and refused, saying why, when altered or its key is gone.
 */
import test from 'ava';
import { Keyring, seal, unseal } from '../../codec/index.js';
import { keyringOf } from './keys.js';

const plain = Buffer.from('mvo_abcdefgh_secret');
const context = Buffer.from('console-session:row-1');

test('sealed bytes open with the same context, under any key of the ring, and hide what they hold', (t) => {
  const old = keyringOf('old');
  const sealed = seal(old.keyring, plain, context);
  t.is(sealed.keyId, 'old');
  t.false(sealed.data.includes(plain));
  t.notDeepEqual(seal(old.keyring, plain, context).data, sealed.data, 'a fresh IV each time');
  const rotated = Keyring.fromText(`${keyringOf('new').text},${old.text}`);
  t.deepEqual(unseal(rotated, sealed, context), { plain });
  t.is(seal(rotated, plain).keyId, 'new', 'the current key seals');
});

test('another context, an altered byte, a short datum or a missing key: not opened, and why', (t) => {
  const { keyring } = keyringOf('k1');
  const sealed = seal(keyring, plain, context);
  t.deepEqual(unseal(keyring, sealed, Buffer.from('console-session:row-2')), { failure: 'altered' });
  t.deepEqual(unseal(keyring, sealed), { failure: 'altered' }, 'no context is another context');
  const flipped = Buffer.from(sealed.data);
  flipped[20] = flipped[20] ^ 1;
  t.deepEqual(unseal(keyring, { ...sealed, data: flipped }, context), { failure: 'altered' });
  t.deepEqual(unseal(keyring, { ...sealed, data: sealed.data.subarray(0, 27) }, context), { failure: 'too-short' });
  t.deepEqual(unseal(keyringOf('k2').keyring, sealed, context), { failure: 'unknown-key' });
});
