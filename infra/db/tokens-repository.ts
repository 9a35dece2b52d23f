import type { Sql } from './connection.js';
import { RepositoryError } from './errors.js';
import { toApiToken, type ApiTokenRecord, type ApiTokenRow } from './records.js';
import {
  listTokensInput,
  newTokenInput,
  revokeTokenInput,
  tokenIdSchema,
  touchTokenInput,
  type ListTokensInput,
  type NewTokenInput,
  type RevokeTokenInput,
} from './schemas.js';
import { operation } from './validate.js';

/** How stale `last_used_at` may get before a use writes it again: one write a minute per busy token, not one per request. */
export const TOKEN_TOUCH_INTERVAL_SECONDS = 60;

/**
 * API tokens, stored as the SHA-256 of their secret. Issuing and checking tokens (and making the secret) is
 * `client/http/auth/api-tokens.ts`; this stores them. Tokens are revoked, never deleted: logs refer to their ids.
 */
export interface TokensRepository {
  /** Stores a new token; an id already taken is a RepositoryError 'constraint'. Returns the record, never the hash. */
  insertToken(input: NewTokenInput): Promise<ApiTokenRecord>;
  /** The token and its secret's hash, for checking a presented token: the only method that returns the hash. */
  findTokenForAuthentication(id: string): Promise<{ record: ApiTokenRecord; secretHash: Buffer } | null>;
  /**
   * Records a use at `at`, writing only when the stored last use is older than a minute (or absent).
   * True when it wrote. An unknown id writes nothing.
   */
  touchToken(id: string, at: Date | string): Promise<boolean>;
  /** Oldest first; revoked tokens only with `includeRevoked`; `owner` compares case-insensitively. */
  listTokens(filter?: ListTokensInput): Promise<ApiTokenRecord[]>;
  /**
   * Revokes a token. Idempotent: revoking a revoked token keeps its first revocation (time and who) and
   * answers `revoked: false`. An unknown id is a RepositoryError 'not-found'.
   */
  revokeToken(input: RevokeTokenInput): Promise<{ revoked: boolean; token: ApiTokenRecord }>;
}

// Every column but secret_hash: records are read through these, so the hash never leaves the database by accident.
const RECORD_COLUMNS = [
  'id',
  'owner',
  'roles',
  'description',
  'created_at',
  'expires_at',
  'last_used_at',
  'revoked_at',
  'revoked_by',
] as const;

export function createTokensRepository(sql: Sql): TokensRepository {
  const columns = sql(RECORD_COLUMNS);

  return {
    insertToken: (input) =>
      operation(
        'insertToken',
        newTokenInput,
        input,
        async ({ id, secretHash, owner, roles, description, expiresAt }) => {
          const [row] = await sql<ApiTokenRow[]>`
          INSERT INTO api_tokens (id, secret_hash, owner, roles, description, expires_at)
          VALUES (${id}, ${Buffer.from(secretHash)}, ${owner}, ${roles}::text[], ${description ?? null},
                  ${expiresAt ?? null}::timestamptz)
          RETURNING ${columns}`;
          return toApiToken(row);
        },
      ),

    findTokenForAuthentication: (id) =>
      operation('findTokenForAuthentication', tokenIdSchema, id, async (tokenId) => {
        const [row] = await sql<
          Array<ApiTokenRow & { secret_hash: Uint8Array }>
        >`SELECT ${columns}, secret_hash FROM api_tokens WHERE id = ${tokenId}`;
        return row ? { record: toApiToken(row), secretHash: Buffer.from(row.secret_hash) } : null;
      }),

    touchToken: (id, at) =>
      operation('touchToken', touchTokenInput, { id, at }, async (input) => {
        const written = await sql`
          UPDATE api_tokens SET last_used_at = ${input.at}::timestamptz
          WHERE id = ${input.id}
            AND (last_used_at IS NULL
                 OR last_used_at < ${input.at}::timestamptz - make_interval(secs => ${TOKEN_TOUCH_INTERVAL_SECONDS}::int))`;
        return written.count > 0;
      }),

    listTokens: (filter = {}) =>
      operation('listTokens', listTokensInput, filter, async ({ owner, includeRevoked }) => {
        const rows = await sql<ApiTokenRow[]>`
          SELECT ${columns} FROM api_tokens WHERE true
            ${owner ? sql`AND lower(owner) = lower(${owner})` : sql``}
            ${includeRevoked ? sql`` : sql`AND revoked_at IS NULL`}
          ORDER BY created_at, id`;
        return rows.map(toApiToken);
      }),

    revokeToken: (input) =>
      operation('revokeToken', revokeTokenInput, input, async ({ id, by }) => {
        // Only a live token is changed, so the first revocation's time and author stay.
        const [revoked] = await sql<ApiTokenRow[]>`
          UPDATE api_tokens SET revoked_at = now(), revoked_by = ${by}
          WHERE id = ${id} AND revoked_at IS NULL RETURNING ${columns}`;
        if (revoked) return { revoked: true, token: toApiToken(revoked) };
        const [existing] = await sql<ApiTokenRow[]>`SELECT ${columns} FROM api_tokens WHERE id = ${id}`;
        if (!existing) throw new RepositoryError('not-found', `revokeToken: no API token with id ${id}`);
        return { revoked: false, token: toApiToken(existing) };
      }),
  };
}
