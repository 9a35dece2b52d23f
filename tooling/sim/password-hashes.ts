/**
 * The hash forms spec 2.5 asks for in `...PasswordHash` fields. Only the shape can be checked: the point
 * of a hash is that the password behind it is unknown. Each check answers a problem sentence (never the
 * value) or null.
 */

/** The alphabet of crypt(3) salts and hashes. */
const CRYPT = '[./0-9A-Za-z]';

/** `$6$[rounds=N$]salt$hash`: a salt of 1 to 16 characters, a hash of 86. */
const SHA512_CRYPT = new RegExp(`^\\$6\\$(?:rounds=[0-9]+\\$)?${CRYPT}{1,16}\\$${CRYPT}{86}$`);
/** `$5$[rounds=N$]salt$hash`: a salt of 1 to 16 characters, a hash of 43. */
const SHA256_CRYPT = new RegExp(`^\\$5\\$(?:rounds=[0-9]+\\$)?${CRYPT}{1,16}\\$${CRYPT}{43}$`);
/** Spec K13: `$2y$NN$` followed by 53 characters, 60 in all. */
const BCRYPT_2Y = new RegExp(`^\\$2y\\$[0-9]{2}\\$${CRYPT}{53}$`);

export function sha512CryptProblem(value: string): string | null {
  return SHA512_CRYPT.test(value) ? null : 'must be a sha512crypt hash ("$6$<salt>$<86 characters>")';
}

export function sha256CryptProblem(value: string): string | null {
  return SHA256_CRYPT.test(value) ? null : 'must be a sha256crypt hash ("$5$<salt>$<43 characters>")';
}

export function bcryptProblem(value: string): string | null {
  return BCRYPT_2Y.test(value) ? null : 'must be a bcrypt hash: "$2y$NN$" followed by 53 characters, 60 in all';
}

/**
 * The spec says only "SHA-512 hash" (K11 onboardPasswordHash, K12 adminPasswordHash). Both forms that
 * name fits are taken: a sha512crypt string or the bare digest as 128 hexadecimal digits.
 */
export function sha512HashProblem(value: string): string | null {
  if (SHA512_CRYPT.test(value) || /^[0-9a-fA-F]{128}$/.test(value)) return null;
  return 'must be a SHA-512 hash: a sha512crypt hash ("$6$...") or 128 hexadecimal digits';
}
