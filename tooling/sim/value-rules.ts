/**
 * The value rules of spec 2.3-2.5, one small function each. A rule answers null for a good value, or a
 * refusal: a stable rule name and a problem sentence that follows the field's name in a message. The
 * sentence never repeats the value: many of these fields are secrets.
 */
import { isAbsoluteUri, isAddressOf, isEmailAddress, type AddressKind } from './addresses.js';
import { bcryptProblem, sha256CryptProblem, sha512CryptProblem, sha512HashProblem } from './password-hashes.js';
import { readPublicKey } from './ssh-keys.js';

export interface Refusal {
  rule: string;
  problem: string;
}

export type ValueRule = (value: unknown) => Refusal | null;

/** Runs `check` on strings only; anything else is refused as the wrong type. */
function onText(check: (text: string) => Refusal | null): ValueRule {
  return (value) => (typeof value === 'string' ? check(value) : { rule: 'type', problem: 'must be a string' });
}

function refusedAs(rule: string, problem: string | null): Refusal | null {
  return problem === null ? null : { rule, problem };
}

/** Lengths count characters as people do (code points), so "é" is one whatever its encoding. */
function length(text: string): number {
  return [...text].length;
}

const FORBIDDEN_NAMES: Record<string, string> = {
  '"': 'a double quote',
  '\r': 'a carriage return',
  '\n': 'a line feed',
};

/** Free text of `min` to `max` characters, without the characters listed. */
export function text(limits: { min: number; max?: number; forbidden?: readonly string[] }): ValueRule {
  const { min, max, forbidden = [] } = limits;
  const range = max === undefined ? `at least ${min} character${min === 1 ? '' : 's'}` : `${min} to ${max} characters`;
  return onText((value) => {
    const count = length(value);
    if (count < min || (max !== undefined && count > max)) {
      return { rule: 'length', problem: `must be ${range} long, not ${count}` };
    }
    const found = forbidden.find((character) => value.includes(character));
    return found === undefined
      ? null
      : { rule: 'characters', problem: `must not contain ${FORBIDDEN_NAMES[found] ?? 'that character'}` };
  });
}

/** A value the spec describes only by what it is (an activation code, an account name): any non-empty text. */
export const someText: ValueRule = text({ min: 1 });

/** Text that matches `pattern`, described in words for the message. */
export function matching(pattern: RegExp, description: string): ValueRule {
  return onText((value) => (pattern.test(value) ? null : { rule: 'format', problem: `must be ${description}` }));
}

/** Exactly `count` hexadecimal digits; `lowercase` when the spec says so (K11 onboardSecret). */
export function hexDigits(count: number, options: { lowercase?: boolean } = {}): ValueRule {
  const digits = options.lowercase ? /^[0-9a-f]*$/ : /^[0-9a-fA-F]*$/;
  const what = `${count} ${options.lowercase ? 'lowercase ' : ''}hexadecimal digits`;
  return onText((value) => {
    if (!digits.test(value)) return { rule: 'hex', problem: `must be ${what}; it holds other characters` };
    return value.length === count ? null : { rule: 'hex', problem: `must be ${what}, not ${value.length}` };
  });
}

/** Base64 with the standard alphabet and padding; line breaks inside are allowed, as encoders wrap lines. */
export const base64Text: ValueRule = onText((value) => {
  const compact = value.replace(/\s+/g, '');
  const valid = compact.length > 0 && compact.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(compact);
  return valid ? null : { rule: 'base64', problem: 'must be base64-encoded (A-Z, a-z, 0-9, + and /, padded with =)' };
});

export function address(kinds: readonly AddressKind[]): ValueRule {
  const names = kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')} or ${kinds[kinds.length - 1]}` : kinds[0];
  return onText((value) => (isAddressOf(value, kinds) ? null : { rule: 'address', problem: `must be an ${names}` }));
}

export const absoluteUri: ValueRule = onText((value) =>
  isAbsoluteUri(value) ? null : { rule: 'uri', problem: 'must be an absolute URI, e.g. https://host/path' },
);

/** 8-4-4-4-12 hexadecimal digits, version digit 4, variant digit 8, 9, a or b. */
export const uuidVersion4: ValueRule = onText((value) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(value)
    ? null
    : { rule: 'uuid', problem: 'must be a version 4 UUID' },
);

export const trueOrFalse: ValueRule = (value) =>
  typeof value === 'boolean' ? null : { rule: 'type', problem: 'must be a boolean (true or false)' };

/** An identifier (letters, digits, ".", "_", "-") or an e-mail address, up to `max` characters (K17). */
export function identifierOrEmail(max: number): ValueRule {
  return onText((value) => {
    const count = length(value);
    if (count === 0 || count > max)
      return { rule: 'length', problem: `must be 1 to ${max} characters long, not ${count}` };
    if (/^[A-Za-z0-9._-]+$/.test(value) || isEmailAddress(value)) return null;
    return { rule: 'format', problem: 'must be an identifier (letters, digits, ".", "_", "-") or an e-mail address' };
  });
}

export const sha512Crypt: ValueRule = onText((value) => refusedAs('password-hash', sha512CryptProblem(value)));
export const sha256Crypt: ValueRule = onText((value) => refusedAs('password-hash', sha256CryptProblem(value)));
export const bcrypt: ValueRule = onText((value) => refusedAs('password-hash', bcryptProblem(value)));
export const sha512Hash: ValueRule = onText((value) => refusedAs('password-hash', sha512HashProblem(value)));

/** A public key of the listed kinds: RSA of exactly these sizes, and ED25519 when allowed. */
export function sshPublicKey(accepts: { rsaBits: readonly number[]; ed25519?: boolean }): ValueRule {
  const kinds = [...accepts.rsaBits.map((bits) => `RSA ${bits}-bit`), ...(accepts.ed25519 ? ['ED25519'] : [])];
  const wanted = kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')} or ${kinds[kinds.length - 1]}` : kinds[0];
  return onText((value) => {
    const reading = readPublicKey(value);
    if (!reading.ok)
      return {
        rule: 'ssh-key',
        problem: `must be an ${wanted} public key in OpenSSH or RFC 4716 form (${reading.why})`,
      };
    const { key } = reading;
    if (key.algorithm === 'rsa' && accepts.rsaBits.includes(key.bits)) return null;
    if (key.algorithm === 'ed25519' && accepts.ed25519) return null;
    const given = key.algorithm === 'rsa' ? `RSA ${key.bits}-bit` : key.algorithm === 'ed25519' ? 'ED25519' : key.name;
    return { rule: 'ssh-key', problem: `must be an ${wanted} public key, not ${given}` };
  });
}

/** An integer (spec 2.3 `locationId`, 2.4 `imageId`); 12.0 is 12 in JSON, 12.5 is not. */
export const wholeNumber: ValueRule = (value) =>
  typeof value === 'number' && Number.isInteger(value) ? null : { rule: 'type', problem: 'must be an integer' };

/** One of a few allowed values (`productType` "MVE", `term` in months). */
export function oneOf(allowed: ReadonlyArray<string | number>, unit = ''): ValueRule {
  const list = allowed.map((entry) => (typeof entry === 'string' ? `"${entry}"` : String(entry))).join(', ');
  return (value) =>
    allowed.includes(value as string | number)
      ? null
      : { rule: 'allowed-values', problem: `must be one of ${list}${unit}` };
}

/** `null` stands for "none" (spec 2.3 promoCode); anything else must pass `rule`. */
export function orNull(rule: ValueRule): ValueRule {
  return (value) => (value === null ? null : rule(value));
}

export const jsonObject: ValueRule = (value) =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? null
    : { rule: 'type', problem: 'must be an object' };

export const anyString: ValueRule = onText(() => null);
