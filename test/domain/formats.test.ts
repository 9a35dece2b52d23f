/** The format checkers of schemas/formats: SSH keys, crypt hashes, hex, UUID v4, base64, hosts, text. */
import test from 'ava';
import {
  base64Problem,
  bcryptProblem,
  hexProblem,
  hostProblem,
  isEmail,
  lengthProblem,
  parseSshPublicKey,
  sha256CryptProblem,
  sha512CryptProblem,
  uriProblem,
  uuidV4Problem,
} from '../../schemas/index.js';
import { BCRYPT, SHA256_CRYPT, SHA512_CRYPT } from './helpers/fixtures.js';
import { keyBlob, openSshKey, rfc4716Key, type TestKeyType } from './helpers/ssh-keys.js';

const SIZES: Array<[TestKeyType, string, number]> = [
  ['rsa2048', 'rsa', 2048],
  ['rsa3072', 'rsa', 3072],
  ['rsa4096', 'rsa', 4096],
  ['ed25519', 'ed25519', 256],
];

for (const [type, algorithm, bits] of SIZES) {
  test(`a generated ${type} key reads in OpenSSH and RFC 4716 form with its type and size`, (t) => {
    const openssh = parseSshPublicKey(openSshKey(type));
    const rfc = parseSshPublicKey(rfc4716Key(type));
    t.like(openssh, { ok: true, key: { format: 'openssh', algorithm, bits } });
    t.like(rfc, { ok: true, key: { format: 'rfc4716', algorithm, bits } });
  });
}

test('ECDSA keys read but carry no size the rules accept', (t) => {
  t.like(parseSshPublicKey(openSshKey('ecdsa')), {
    ok: true,
    key: { algorithm: 'ecdsa', typeName: 'ecdsa-sha2-nistp256' },
  });
});

test('an OpenSSH key without a comment, and with a comment of several words, reads', (t) => {
  const [type, body] = openSshKey('rsa2048').split(' ');
  t.true(parseSshPublicKey(`${type} ${body}`).ok);
  t.true(parseSshPublicKey(`${type} ${body} two words here`).ok);
});

test('RFC 4716 with CRLF line ends, several headers and a continued header reads', (t) => {
  const body = keyBlob('rsa2048')
    .toString('base64')
    .match(/.{1,64}/g)!;
  const text = [
    '---- BEGIN SSH2 PUBLIC KEY ----',
    'Subject: ops',
    'Comment: "a long comment \\',
    'continued here"',
    ...body,
    '---- END SSH2 PUBLIC KEY ----',
  ].join('\r\n');
  t.like(parseSshPublicKey(text), { ok: true, key: { format: 'rfc4716', bits: 2048 } });
});

test('malformed keys are refused with a reason and without echoing the key', (t) => {
  const rsa = openSshKey('rsa2048');
  const [, body] = rsa.split(' ');
  const blob = keyBlob('rsa2048');
  const broken: Record<string, string> = {
    'declared type differs from the blob': `ssh-ed25519 ${body}`,
    'not base64': 'ssh-rsa AAAA$$$$',
    'truncated blob': `ssh-rsa ${blob.subarray(0, blob.length - 10).toString('base64')}`,
    'trailing bytes': `ssh-rsa ${Buffer.concat([blob, Buffer.from([0, 0, 0, 1, 7])]).toString('base64')}`,
    'one word': 'ssh-rsa',
    'two lines': `${rsa}\n${rsa}`,
    'RFC 4716 without END': rfc4716Key('rsa2048').split('\n').slice(0, -1).join('\n'),
    'RFC 4716 without body': '---- BEGIN SSH2 PUBLIC KEY ----\nComment: x\n---- END SSH2 PUBLIC KEY ----',
    'a private key': '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
  };
  for (const [what, text] of Object.entries(broken)) {
    const result = parseSshPublicKey(text);
    t.false(result.ok, what);
    if (!result.ok) t.false(result.problem.includes(body.slice(0, 20)), `${what} echoes the key`);
  }
});

test('sha512crypt and sha256crypt by prefix, salt, length and rounds', (t) => {
  t.is(sha512CryptProblem(SHA512_CRYPT), null);
  t.is(sha512CryptProblem(`$6$rounds=656000$${SHA512_CRYPT.slice(3)}`), null);
  t.regex(sha512CryptProblem(SHA256_CRYPT)!, /must start with "\$6\$"/);
  t.regex(sha512CryptProblem(`${SHA512_CRYPT}x`)!, /well-formed/);
  t.regex(sha512CryptProblem('$6$' + 's'.repeat(17) + '$' + 'h'.repeat(86))!, /well-formed/);
  t.regex(sha512CryptProblem('$6$rounds=999$salt$' + 'h'.repeat(86))!, /rounds/);
  t.is(sha256CryptProblem(SHA256_CRYPT), null);
  t.regex(sha256CryptProblem(SHA512_CRYPT)!, /must start with "\$5\$"/);
  t.regex(sha256CryptProblem('$5$salt$' + 'h'.repeat(42))!, /well-formed/);
});

test('bcrypt: $2y$, two-digit cost 04-31, 60 characters', (t) => {
  t.is(bcryptProblem(BCRYPT), null);
  t.is(bcryptProblem(BCRYPT.replace('$12$', '$04$')), null);
  t.is(bcryptProblem(BCRYPT.replace('$12$', '$31$')), null);
  t.regex(bcryptProblem(BCRYPT.replace('$12$', '$32$'))!, /cost/);
  t.regex(bcryptProblem(BCRYPT.replace('$2y$', '$2b$'))!, /\$2y\$/);
  t.regex(bcryptProblem(`${BCRYPT}A`)!, /60 characters/);
  t.regex(bcryptProblem(`${BCRYPT.slice(0, -1)}!`)!, /well-formed/);
});

test('hex digests by length and case', (t) => {
  t.is(hexProblem('ab12', [4]), null);
  t.is(hexProblem('AB12', [4]), null);
  t.regex(hexProblem('AB12', [4], 'lower')!, /lowercase/);
  t.regex(hexProblem('ab1', [4])!, /must be 4 hexadecimal characters, not 3/);
  t.regex(hexProblem('zz12', [4])!, /only hexadecimal/);
});

test('UUID v4 by version and variant digits', (t) => {
  t.is(uuidV4Problem('3f1c2a9e-7b4d-4e8f-9a6b-2c5d8e1f0a3b'), null);
  t.is(uuidV4Problem('3F1C2A9E-7B4D-4E8F-BA6B-2C5D8E1F0A3B'), null);
  t.regex(uuidV4Problem('3f1c2a9e-7b4d-1e8f-9a6b-2c5d8e1f0a3b')!, /not version 4/);
  t.regex(uuidV4Problem('3f1c2a9e-7b4d-4e8f-7a6b-2c5d8e1f0a3b')!, /variant/);
  t.regex(uuidV4Problem('3f1c2a9e7b4d4e8f9a6b2c5d8e1f0a3b')!, /not a UUID/);
});

test('base64 must decode: alphabet, padding, canonical end bits; line breaks are fine', (t) => {
  t.is(base64Problem(Buffer.from('hello world').toString('base64')), null);
  t.is(base64Problem('aGVs\nbG8g\r\nd29y\nbGQ='), null);
  t.regex(base64Problem('aGVsbG8')!, /not valid base64/);
  t.regex(base64Problem('aGVsbG8_')!, /not valid base64/);
  t.regex(base64Problem('aGVsbG9=')!, /canonical/);
  t.regex(base64Problem('  ')!, /empty/);
});

test('hosts: IPv4, IPv6, FQDN as each field allows', (t) => {
  const all = ['ipv4', 'ipv6', 'fqdn'] as const;
  for (const good of ['192.0.2.1', '2001:db8::1', '::1', 'a.example.net', 'example.net.', 'xn--bcher-kva.example'])
    t.is(hostProblem(good, all), null, good);
  for (const bad of [
    '256.0.0.1',
    '01.2.3.4',
    'localhost',
    '-a.example.net',
    'a_b.example.net',
    '1.2.3.999',
    'fe80::1%eth0',
    `${'a'.repeat(64)}.net`,
    '',
  ])
    t.not(hostProblem(bad, all), null, bad);
  t.regex(hostProblem('2001:db8::1', ['ipv4', 'fqdn'])!, /not an IPv4 address or an FQDN/);
});

test('e-mail addresses and URIs', (t) => {
  t.true(isEmail('branch-01@example.net'));
  t.false(isEmail('branch-01@localhost'));
  t.false(isEmail('@example.net'));
  t.is(uriProblem('https://activate.example.net/a?b=c'), null);
  t.is(uriProblem('urn:example:activation'), null);
  t.not(uriProblem('/relative/path'), null);
  t.not(uriProblem('https://a example'), null);
});

test('lengths count characters (code points), not UTF-16 units', (t) => {
  t.is(lengthProblem('😀'.repeat(9), 9, 100), null);
  t.regex(lengthProblem('😀'.repeat(8), 9, 100)!, /9 to 100 characters long, not 8/);
});
