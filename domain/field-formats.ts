/**
 * Checks one vendorConfig value against its FieldFormat. The result names a stable rule and a problem
 * phrased without the value, so it is safe for secret fields.
 */
import {
  base64Problem,
  bcryptProblem,
  characterCount,
  forbiddenCharacterProblem,
  hasControlCharacters,
  hexProblem,
  hostProblem,
  isEmail,
  lengthProblem,
  parseSshPublicKey,
  sha256CryptProblem,
  sha512CryptProblem,
  uriProblem,
  uuidV4Problem,
} from '../schemas/index.js';
import type { FieldFormat } from './kinds.js';

export interface FormatProblem {
  rule: string;
  problem: string;
}

export function checkFieldFormat(format: FieldFormat, value: unknown): FormatProblem | null {
  if (format.type === 'boolean') {
    return typeof value === 'boolean' ? null : { rule: 'type', problem: 'must be a boolean (true or false)' };
  }
  if (typeof value !== 'string') return { rule: 'type', problem: 'must be a string' };
  return checkString(format, value);
}

function checkString(format: Exclude<FieldFormat, { type: 'boolean' }>, value: string): FormatProblem | null {
  switch (format.type) {
    case 'sshKey':
      return sshKeyProblem(value, format.rsaBits, format.ed25519);
    case 'sha512crypt':
      return as('sha512crypt', sha512CryptProblem(value));
    case 'sha256crypt':
      return as('sha256crypt', sha256CryptProblem(value));
    case 'bcrypt':
      return as('bcrypt', bcryptProblem(value));
    case 'sha512':
      return sha512Problem(value);
    case 'hex':
      return as('hex', hexProblem(value, format.lengths, format.letterCase));
    case 'uuidv4':
      return as('uuid-v4', uuidV4Problem(value));
    case 'base64':
      return as('base64', base64Problem(value));
    case 'host':
      return as('host', hostProblem(value, format.allow));
    case 'uri':
      return as('uri', uriProblem(value));
    case 'text':
      return textProblem(value, format.min, format.max, format.forbid);
    case 'pattern':
      return format.pattern.test(value) ? null : { rule: 'format', problem: `must be ${format.description}` };
    case 'identifierOrEmail':
      return identifierOrEmailProblem(value, format.max);
  }
}

function as(rule: string, problem: string | null): FormatProblem | null {
  return problem === null ? null : { rule, problem };
}

function describeAllowedKeys(rsaBits: readonly number[], ed25519: boolean): string {
  const kinds = rsaBits.map((bits) => `RSA ${bits}-bit`);
  if (ed25519) kinds.push('ED25519');
  return kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')} or ${kinds[kinds.length - 1]}` : kinds[0];
}

function sshKeyProblem(value: string, rsaBits: readonly number[], ed25519: boolean): FormatProblem | null {
  const parsed = parseSshPublicKey(value);
  const allowed = describeAllowedKeys(rsaBits, ed25519);
  if (!parsed.ok)
    return {
      rule: 'ssh-key-format',
      problem: `is not a readable SSH public key (${parsed.problem}); expected ${allowed} in OpenSSH or RFC 4716 format`,
    };
  const { key } = parsed;
  if (key.algorithm === 'rsa') {
    if (rsaBits.length === 0) return { rule: 'ssh-key-type', problem: `must be ${allowed}, not an RSA key` };
    if (!rsaBits.includes(key.bits!))
      return { rule: 'ssh-key-rsa-bits', problem: `must be ${allowed}, not RSA ${key.bits}-bit` };
    return null;
  }
  if (key.algorithm === 'ed25519' && ed25519) return null;
  return { rule: 'ssh-key-type', problem: `must be ${allowed}, not a ${key.typeName} key` };
}

const SHA512_HEX = /^[0-9a-fA-F]{128}$/;

/** The spec's "SHA-512 hash" (K11 onboardPasswordHash, K12 adminPasswordHash): sha512crypt or a hex digest. */
function sha512Problem(value: string): FormatProblem | null {
  if (value.startsWith('$6$')) return as('sha512-hash', sha512CryptProblem(value));
  if (SHA512_HEX.test(value)) return null;
  return {
    rule: 'sha512-hash',
    problem: 'must be a SHA-512 hash: a sha512crypt hash ("$6$…") or 128 hexadecimal characters',
  };
}

function textProblem(
  value: string,
  min: number,
  max: number | undefined,
  forbid: readonly string[] | undefined,
): FormatProblem | null {
  const length = lengthProblem(value, min, max);
  if (length) return { rule: 'length', problem: length };
  if (forbid) {
    const forbidden = forbiddenCharacterProblem(value, forbid);
    if (forbidden) return { rule: 'forbidden-character', problem: forbidden };
    return null;
  }
  // Free-text fields without a stated character set still must be one visible line.
  if (value.trim() === '') return { rule: 'blank', problem: 'must not be blank' };
  if (hasControlCharacters(value))
    return { rule: 'forbidden-character', problem: 'must not contain control characters (line breaks, tabs)' };
  return null;
}

const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function identifierOrEmailProblem(value: string, max: number): FormatProblem | null {
  if (characterCount(value) > max || value.length === 0)
    return { rule: 'length', problem: `must be 1 to ${max} characters long, not ${characterCount(value)}` };
  if (IDENTIFIER.test(value) || isEmail(value)) return null;
  return {
    rule: 'identifier-or-email',
    problem: 'must be an identifier (letters, digits, ".", "_", "-") or an e-mail address',
  };
}
