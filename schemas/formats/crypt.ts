/**
 * Crypt-style password hashes, checked by prefix and shape (we never see the password, so nothing more can
 * be checked). Each checker returns a problem sentence, or null when the value has the right shape.
 */

const CRYPT_CHARS = '[./0-9A-Za-z]';
const SHA512_CRYPT = new RegExp(`^\\$6\\$(?:rounds=(\\d+)\\$)?${CRYPT_CHARS}{1,16}\\$${CRYPT_CHARS}{86}$`);
const SHA256_CRYPT = new RegExp(`^\\$5\\$(?:rounds=(\\d+)\\$)?${CRYPT_CHARS}{1,16}\\$${CRYPT_CHARS}{43}$`);
const BCRYPT_2Y = new RegExp(`^\\$2y\\$(\\d{2})\\$${CRYPT_CHARS}{53}$`);

// glibc clamps rounds to this range; a value outside it is a typo rather than a hash glibc produced.
const MIN_ROUNDS = 1000;
const MAX_ROUNDS = 999_999_999;

export function sha512CryptProblem(value: string): string | null {
  return shaCryptProblem(value, SHA512_CRYPT, '$6$', 86, 'sha512crypt');
}

export function sha256CryptProblem(value: string): string | null {
  return shaCryptProblem(value, SHA256_CRYPT, '$5$', 43, 'sha256crypt');
}

function shaCryptProblem(
  value: string,
  shape: RegExp,
  prefix: string,
  hashLength: number,
  name: string,
): string | null {
  if (!value.startsWith(prefix)) return `is not a ${name} hash (must start with "${prefix}")`;
  const match = shape.exec(value);
  if (!match) {
    return `is not a well-formed ${name} hash ("${prefix}[rounds=N$]<salt of 1-16 chars>$<${hashLength} chars of [./0-9A-Za-z]>")`;
  }
  if (match[1] !== undefined) {
    const rounds = Number(match[1]);
    if (rounds < MIN_ROUNDS || rounds > MAX_ROUNDS)
      return `${name} rounds must be between ${MIN_ROUNDS} and ${MAX_ROUNDS}`;
  }
  return null;
}

export function bcryptProblem(value: string): string | null {
  if (!value.startsWith('$2y$')) return 'is not a bcrypt hash (must start with "$2y$")';
  if (value.length !== 60) return `bcrypt hash must be 60 characters in total, not ${value.length}`;
  const match = BCRYPT_2Y.exec(value);
  if (!match) return 'is not a well-formed bcrypt hash ("$2y$NN$" followed by 53 chars of [./0-9A-Za-z])';
  const cost = Number(match[1]);
  if (cost < 4 || cost > 31) return 'bcrypt cost NN must be between 04 and 31';
  return null;
}
