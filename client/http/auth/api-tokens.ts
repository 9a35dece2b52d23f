import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import {
  RepositoryError,
  TOKEN_TOUCH_INTERVAL_SECONDS,
  type ApiTokenRecord,
  type TokensRepository,
} from '../../../infra/db/index.js';
import type { Principal } from '../../orders/index.js';
import { AuthenticationError } from './authentication-error.js';

// API tokens for machines: `mvo_<id>_<secret>`. The id is public (12 base32 characters, it names the token in
// lists and logs); the secret is 32 random bytes in base64url (43 characters, 256 bits of entropy). Only the
// SHA-256 of the secret is stored: nobody, not even the database's owner, can get the token back.

export const API_TOKEN_PREFIX = 'mvo_';

/** The length of the ids `issueApiToken` makes (60 random bits: to find a row, not to keep anything secret). */
const ID_LENGTH = 12;
const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const SECRET_BYTES = 32;

/** `mvo_` + id (8 to 32 lowercase letters and digits, as the database checks) + `_` + 43 base64url characters. */
const TOKEN_FORMAT = /^mvo_([a-z0-9]{8,32})_([A-Za-z0-9_-]{43})$/;

export interface IssuedToken {
  /** The token itself: shown to its holder once, stored nowhere. */
  token: string;
  record: ApiTokenRecord;
}

/**
 * Makes a new token for `owner` with `roles` and stores its hash. The repository checks the owner's and
 * roles' form and that `expiresAt` is in the future (RepositoryError 'invalid-input' otherwise).
 */
export async function issueApiToken(
  repo: TokensRepository,
  input: { owner: string; roles: string[]; description?: string; expiresAt?: Date },
): Promise<IssuedToken> {
  // 60 random bits make a clash all but impossible; should one happen, a fresh id is drawn.
  for (let attempt = 1; ; attempt++) {
    const id = newTokenId();
    const secret = randomBytes(SECRET_BYTES).toString('base64url');
    try {
      const record = await repo.insertToken({
        id,
        secretHash: hashSecret(secret),
        owner: input.owner,
        roles: input.roles,
        description: input.description,
        expiresAt: input.expiresAt,
      });
      return { token: `${API_TOKEN_PREFIX}${id}_${secret}`, record };
    } catch (error) {
      const idTaken = error instanceof RepositoryError && error.message.includes('api_tokens_pkey');
      if (!idTaken || attempt >= 3) throw error;
    }
  }
}

/**
 * Whether `value` is meant as an API token (it has the `mvo_` prefix, which no JWT has), so that a caller routes
 * it to `authenticateApiToken` rather than to OIDC, and a damaged token is refused as a malformed API token
 * instead of as a bad JWT. Says nothing of its form or validity beyond that.
 */
export function looksLikeApiToken(value: string): boolean {
  return value.startsWith(API_TOKEN_PREFIX);
}

/**
 * Verifies with a constant-time comparison of the hashes; refuses unknown, malformed, revoked and expired tokens
 * with AuthenticationError (the message says which and names the token's public id at most, never the token);
 * on success records its use (when the last one recorded is over a minute old) and returns the Principal { id: owner,
 * qualifiedId: owner, roles, via: { kind: 'token', tokenId } }.
 *
 * Revocation and expiry are told only to a caller that holds the right secret.
 */
export async function authenticateApiToken(
  repo: TokensRepository,
  token: string,
  now: Date = new Date(),
): Promise<Principal> {
  const match = TOKEN_FORMAT.exec(token);
  if (!match) {
    throw new AuthenticationError(
      'malformed API token: expected mvo_<id>_<secret> as issued by `mve-orders tokens create`',
    );
  }
  const [, id, secret] = match as unknown as [string, string, string];
  const presented = hashSecret(secret);

  const found = await repo.findTokenForAuthentication(id);
  if (!found) throw new AuthenticationError(`unknown API token ${id}`);
  if (found.secretHash.length !== presented.length || !timingSafeEqual(found.secretHash, presented)) {
    throw new AuthenticationError(`API token ${id}: wrong secret`);
  }

  const { record } = found;
  if (record.revokedAt !== null) throw new AuthenticationError(`API token ${id} was revoked at ${record.revokedAt}`);
  if (record.expiresAt !== null && Date.parse(record.expiresAt) <= now.getTime()) {
    throw new AuthenticationError(`API token ${id} expired at ${record.expiresAt}`);
  }

  // The row just read says when the token was last used: within the minute, the write would change nothing, and a
  // busy token would cost every request a second statement.
  if (useIsDue(record, now)) await repo.touchToken(id, now);
  // The owner's form (no colon) keeps it apart from any OIDC person's qualified id.
  return { id: record.owner, qualifiedId: record.owner, roles: [...record.roles], via: { kind: 'token', tokenId: id } };
}

/** Whether a use at `now` is to be written: none was, or the last is older than the touch interval (as touchToken asks). */
function useIsDue(record: ApiTokenRecord, now: Date): boolean {
  return (
    record.lastUsedAt === null || Date.parse(record.lastUsedAt) < now.getTime() - TOKEN_TOUCH_INTERVAL_SECONDS * 1000
  );
}

/** SHA-256 of the secret part's characters. A fast hash is right: the secret has 256 bits of entropy. */
function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

function newTokenId(): string {
  let id = '';
  for (let i = 0; i < ID_LENGTH; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}
