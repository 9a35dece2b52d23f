/**
 * SSH public keys in the two text forms the spec names: OpenSSH one-line (`ssh-rsa AAAA… comment`) and
 * RFC 4716 (`---- BEGIN SSH2 PUBLIC KEY ----` … `---- END SSH2 PUBLIC KEY ----`). The key blob is decoded
 * (RFC 4253 wire format) so the type is the one inside the key, not just the label, and an RSA key's size
 * is the bit length of its modulus.
 */

export type SshKeyAlgorithm = 'rsa' | 'ed25519' | 'ecdsa' | 'dsa' | 'other';

export interface SshPublicKey {
  format: 'openssh' | 'rfc4716';
  /** The algorithm name written inside the blob, e.g. `ssh-rsa`. */
  typeName: string;
  algorithm: SshKeyAlgorithm;
  /** RSA: modulus bit length; ED25519: 256; others: undefined. */
  bits?: number;
}

export type SshParseResult = { ok: true; key: SshPublicKey } | { ok: false; problem: string };

type BlobResult = { ok: true; key: Omit<SshPublicKey, 'format'> } | { ok: false; problem: string };

const BASE64_BODY = /^[A-Za-z0-9+/]+={0,2}$/;
const RFC4716_BEGIN = '---- BEGIN SSH2 PUBLIC KEY ----';
const RFC4716_END = '---- END SSH2 PUBLIC KEY ----';

export function parseSshPublicKey(text: string): SshParseResult {
  const trimmed = text.trim();
  if (trimmed.startsWith('----')) return parseRfc4716(trimmed);
  return parseOpenSsh(trimmed);
}

function parseOpenSsh(text: string): SshParseResult {
  if (/[\r\n]/.test(text)) return fail('is not a single-line OpenSSH public key nor an RFC 4716 block');
  const [label, body] = text.split(/[ \t]+/);
  if (!label || !body) return fail('is not an OpenSSH public key ("<type> <base64> [comment]") nor an RFC 4716 block');
  const decoded = decodeBlob(body);
  if (!decoded.ok) return decoded;
  if (decoded.key.typeName !== label) {
    return fail(`declares type ${safeLabel(label)} but the key inside is ${decoded.key.typeName}`);
  }
  return { ok: true, key: { ...decoded.key, format: 'openssh' } };
}

function parseRfc4716(text: string): SshParseResult {
  const lines = text.split(/\r?\n/).map((line) => line.trimEnd());
  if (lines[0] !== RFC4716_BEGIN) return fail(`RFC 4716 key must start with "${RFC4716_BEGIN}"`);
  if (lines[lines.length - 1] !== RFC4716_END) return fail(`RFC 4716 key must end with "${RFC4716_END}"`);
  const inner = lines.slice(1, -1);
  let index = 0;
  // Header lines are `Tag: value`; a trailing backslash continues the value on the next line.
  while (index < inner.length && /^[\x21-\x39\x3b-\x7e]{1,64}:/.test(inner[index])) {
    while (inner[index].endsWith('\\') && index < inner.length - 1) index += 1;
    index += 1;
  }
  const body = inner.slice(index).join('');
  if (body === '') return fail('RFC 4716 key has no key data between its BEGIN and END lines');
  const decoded = decodeBlob(body);
  if (!decoded.ok) return decoded;
  return { ok: true, key: { ...decoded.key, format: 'rfc4716' } };
}

function decodeBlob(body: string): BlobResult {
  if (!BASE64_BODY.test(body) || body.length % 4 !== 0) return fail('key data is not valid base64');
  const blob = Buffer.from(body, 'base64');
  const reader = new BlobReader(blob);
  const typeBytes = reader.string();
  if (!typeBytes) return fail('key data is truncated (no key type)');
  const typeName = typeBytes.toString('latin1');
  if (!/^[\x21-\x7e]{1,64}$/.test(typeName)) return fail('key data does not start with a key type name');
  if (typeName === 'ssh-rsa') {
    const exponent = reader.string();
    const modulus = reader.string();
    if (!exponent || !modulus || !reader.atEnd()) return fail('RSA key data is malformed');
    const bits = bitLength(modulus);
    if (bits === 0 || bitLength(exponent) === 0) return fail('RSA key data is malformed');
    return okKey(typeName, 'rsa', bits);
  }
  if (typeName === 'ssh-ed25519') {
    const point = reader.string();
    if (!point || point.length !== 32 || !reader.atEnd()) return fail('ED25519 key data is malformed');
    return okKey(typeName, 'ed25519', 256);
  }
  if (typeName.startsWith('ecdsa-sha2-')) return okKey(typeName, 'ecdsa');
  if (typeName === 'ssh-dss') return okKey(typeName, 'dsa');
  return okKey(typeName, 'other');
}

function okKey(typeName: string, algorithm: SshKeyAlgorithm, bits?: number): BlobResult {
  return { ok: true, key: { typeName, algorithm, ...(bits === undefined ? {} : { bits }) } };
}

/** Bit length of an unsigned big-endian integer (SSH mpints may carry a leading zero byte). */
function bitLength(bytes: Buffer): number {
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start += 1;
  if (start === bytes.length) return 0;
  return (bytes.length - start - 1) * 8 + (32 - Math.clz32(bytes[start]));
}

class BlobReader {
  private offset = 0;
  constructor(private readonly blob: Buffer) {}
  /** Reads one length-prefixed field, or undefined when the blob is too short. */
  string(): Buffer | undefined {
    if (this.offset + 4 > this.blob.length) return undefined;
    const length = this.blob.readUInt32BE(this.offset);
    const start = this.offset + 4;
    if (start + length > this.blob.length) return undefined;
    this.offset = start + length;
    return this.blob.subarray(start, start + length);
  }
  atEnd(): boolean {
    return this.offset === this.blob.length;
  }
}

/** A key-type label is shown in messages only when it looks like one, so arbitrary input is never echoed. */
function safeLabel(label: string): string {
  return /^[a-z0-9@.-]{1,40}$/.test(label) ? `"${label}"` : 'an unknown label';
}

function fail(problem: string): { ok: false; problem: string } {
  return { ok: false, problem };
}
