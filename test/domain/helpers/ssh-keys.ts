/**
 * Real SSH public keys for tests, generated with node:crypto and written in the two text forms the spec
 * names: OpenSSH one-line and RFC 4716. Keys are cached per size so each is generated once per process.
 */
import { generateKeyPairSync } from 'node:crypto';

export type TestKeyType = 'rsa2048' | 'rsa3072' | 'rsa4096' | 'ed25519' | 'ecdsa';

const cache = new Map<TestKeyType, Buffer>();

/** The RFC 4253 wire blob of a freshly generated public key. */
export function keyBlob(type: TestKeyType): Buffer {
  const cached = cache.get(type);
  if (cached) return cached;
  const blob = generateBlob(type);
  cache.set(type, blob);
  return blob;
}

function generateBlob(type: TestKeyType): Buffer {
  if (type === 'ed25519') {
    const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
    return Buffer.concat([sshString(Buffer.from('ssh-ed25519')), sshString(Buffer.from(jwk.x!, 'base64url'))]);
  }
  if (type === 'ecdsa') {
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
    return Buffer.concat([
      sshString(Buffer.from('ecdsa-sha2-nistp256')),
      sshString(Buffer.from('nistp256')),
      sshString(point),
    ]);
  }
  const modulusLength = Number(type.slice(3));
  const jwk = generateKeyPairSync('rsa', { modulusLength }).publicKey.export({ format: 'jwk' });
  return Buffer.concat([
    sshString(Buffer.from('ssh-rsa')),
    sshString(mpint(Buffer.from(jwk.e!, 'base64url'))),
    sshString(mpint(Buffer.from(jwk.n!, 'base64url'))),
  ]);
}

function sshString(bytes: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** SSH mpints are two's complement: a leading zero byte keeps a high-bit-set number positive. */
function mpint(bytes: Buffer): Buffer {
  return (bytes[0] & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes;
}

function typeName(blob: Buffer): string {
  return blob.subarray(4, 4 + blob.readUInt32BE(0)).toString('latin1');
}

export function openSshKey(type: TestKeyType, comment = 'ops@example.com'): string {
  const blob = keyBlob(type);
  return `${typeName(blob)} ${blob.toString('base64')} ${comment}`;
}

export function rfc4716Key(type: TestKeyType, comment = 'ops@example.com'): string {
  const body = keyBlob(type)
    .toString('base64')
    .match(/.{1,70}/g)!;
  return ['---- BEGIN SSH2 PUBLIC KEY ----', `Comment: "${comment}"`, ...body, '---- END SSH2 PUBLIC KEY ----'].join(
    '\n',
  );
}
