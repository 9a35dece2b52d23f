/**
 * Reads an SSH public key in the two text forms spec 2.5 names (OpenSSH one-line, RFC 4716 block) far
 * enough to tell its algorithm and, for RSA, its size. The size is measured on the modulus inside the key,
 * because the spec's rules are "RSA 2048-bit" and a label or comment proves nothing.
 */

export type PublicKeyFacts =
  { algorithm: 'rsa'; bits: number } | { algorithm: 'ed25519' } | { algorithm: 'other'; name: string };

export type KeyReading = { ok: true; key: PublicKeyFacts } | { ok: false; why: string };

const RFC4716_BEGIN = '---- BEGIN SSH2 PUBLIC KEY ----';
const RFC4716_END = '---- END SSH2 PUBLIC KEY ----';

export function readPublicKey(text: string): KeyReading {
  const trimmed = text.trim();
  return trimmed.startsWith('----') ? readRfc4716(trimmed) : readOpenSsh(trimmed);
}

/** `<algorithm> <base64 key> [comment]` on one line; the algorithm written must be the one inside. */
function readOpenSsh(text: string): KeyReading {
  if (/[\r\n]/.test(text)) return refuse('an OpenSSH key is a single line');
  const [written, encoded] = text.split(/[ \t]+/);
  if (!written || !encoded) return refuse('an OpenSSH key is "<algorithm> <base64 key> [comment]"');
  const reading = readKeyData(encoded);
  if (!reading.ok) return reading;
  if (nameOf(reading.key) !== written) return refuse('the algorithm written before the key is not the one inside it');
  return reading;
}

/**
 * RFC 4716: BEGIN line, optional `Tag: value` headers (a value ending in a backslash goes on to the next
 * line), the base64 key over one or more lines, END line.
 */
function readRfc4716(text: string): KeyReading {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  if (lines[0] !== RFC4716_BEGIN || lines[lines.length - 1] !== RFC4716_END) {
    return refuse(`an RFC 4716 key sits between "${RFC4716_BEGIN}" and "${RFC4716_END}"`);
  }
  const inside = lines.slice(1, -1);
  let first = 0;
  while (first < inside.length && /^[^\s:]{1,64}:/.test(inside[first])) {
    while (inside[first].endsWith('\\') && first < inside.length - 1) first += 1;
    first += 1;
  }
  const encoded = inside.slice(first).join('');
  if (encoded === '') return refuse('the RFC 4716 block holds no key');
  return readKeyData(encoded);
}

/** The key data (RFC 4253): length-prefixed fields, the algorithm name first. */
function readKeyData(encoded: string): KeyReading {
  if (encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return refuse('the key is not base64');
  const fields = lengthPrefixedFields(Buffer.from(encoded, 'base64'));
  if (!fields || fields.length === 0) return refuse('the key data is cut short');
  const name = fields[0].toString('latin1');
  if (name === 'ssh-rsa') {
    // Exactly an exponent and a modulus follow the name.
    if (fields.length !== 3) return refuse('the RSA key data is malformed');
    const bits = significantBits(fields[2]);
    return bits > 0 ? { ok: true, key: { algorithm: 'rsa', bits } } : refuse('the RSA key has no modulus');
  }
  if (name === 'ssh-ed25519') {
    if (fields.length !== 2 || fields[1].length !== 32) return refuse('the ED25519 key data is malformed');
    return { ok: true, key: { algorithm: 'ed25519' } };
  }
  if (!/^[\x21-\x7e]{1,64}$/.test(name)) return refuse('the key data does not start with an algorithm name');
  return { ok: true, key: { algorithm: 'other', name } };
}

function lengthPrefixedFields(data: Buffer): Buffer[] | undefined {
  const fields: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    if (at + 4 > data.length) return undefined;
    const end = at + 4 + data.readUInt32BE(at);
    if (end > data.length) return undefined;
    fields.push(data.subarray(at + 4, end));
    at = end;
  }
  return fields;
}

/** Bits of a big-endian unsigned number, not counting leading zeros (an mpint may start with a zero byte). */
function significantBits(bytes: Buffer): number {
  const first = bytes.findIndex((byte) => byte !== 0);
  if (first < 0) return 0;
  return (bytes.length - first) * 8 - (Math.clz32(bytes[first]) - 24);
}

function nameOf(key: PublicKeyFacts): string {
  if (key.algorithm === 'rsa') return 'ssh-rsa';
  if (key.algorithm === 'ed25519') return 'ssh-ed25519';
  return key.name;
}

function refuse(why: string): KeyReading {
  return { ok: false, why };
}
