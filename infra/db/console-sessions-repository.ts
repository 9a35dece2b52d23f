import { z } from 'zod';
import type { Sql } from './connection.js';
import { jsonParameter } from './json.js';
import { operation } from './validate.js';

/** How stale `last_seen_at` may get before a request writes it again: one write a minute per busy session. */
export const CONSOLE_SESSION_TOUCH_INTERVAL_SECONDS = 60;

const idHash = z
  .custom<Uint8Array>((value) => value instanceof Uint8Array, 'must be bytes')
  .refine((hash) => hash.length === 32, 'must be a 32-byte SHA-256 digest')
  .transform((hash) => Buffer.from(hash));
const moment = z.union([z.date(), z.iso.datetime({ offset: true })]).transform((value) => new Date(value));
const jsonObject = z.record(z.string(), z.unknown());
const secrets = z.object({
  keyId: z.string().min(1, 'must not be empty'),
  data: z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'must be bytes').transform((b) => Buffer.from(b)),
});

const newSessionInput = z
  .object({
    idHash,
    createdAt: moment,
    expiresAt: moment,
    credentialExpiresAt: moment.nullish(),
    user: jsonObject.nullish(),
    flash: jsonObject.nullish(),
    secrets: secrets.nullish(),
  })
  .refine((input) => input.expiresAt > input.createdAt, { path: ['expiresAt'], message: 'must be after createdAt' });

const touchSessionInput = z.object({ idHash, at: moment, expiresAt: moment });

const sessionChangesInput = z
  .object({ idHash, flash: jsonObject.nullable().optional(), secrets: secrets.nullable().optional() })
  .refine((input) => input.flash !== undefined || input.secrets !== undefined, {
    message: 'name at least one of flash, secrets',
  });

const cleanUpInput = z.object({
  now: moment,
  keepAnonymous: z.number().int('must be a whole number').min(0, 'must not be negative'),
});

export type NewConsoleSessionInput = z.input<typeof newSessionInput>;
export type ConsoleSessionChanges = z.input<typeof sessionChangesInput>;

/** A stored console session; the store above it (client/console/sessions.ts) decides what each field means. */
export interface ConsoleSessionRecord {
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  credentialExpiresAt: string | null;
  user: Record<string, unknown> | null;
  flash: Record<string, unknown> | null;
  /** Sealed with a codec key: the repository never sees them in plaintext. */
  secrets: { keyId: string; data: Buffer } | null;
}

/**
 * The web console's sessions (migration 0017), keyed by the SHA-256 of the id the browser's cookie holds: the id itself
 * is never given to the repository.
 */
export interface ConsoleSessionsRepository {
  insertConsoleSession(input: NewConsoleSessionInput): Promise<void>;
  /** The session under this hash, or null; whether it has ended is the caller's to judge from its times. */
  findConsoleSession(idHash: Uint8Array): Promise<ConsoleSessionRecord | null>;
  /** Records a use at `at` (and the end it moves to), writing only when the stored one is more than a minute older. */
  touchConsoleSession(input: { idHash: Uint8Array; at: Date | string; expiresAt: Date | string }): Promise<void>;
  /** Writes only the fields named (null clears one); a session that ended meanwhile stays ended. */
  updateConsoleSession(changes: ConsoleSessionChanges): Promise<void>;
  deleteConsoleSession(idHash: Uint8Array): Promise<void>;
  /**
   * Deletes the sessions ended by `now`, and the anonymous ones (no one signed in) beyond the `keepAnonymous` seen
   * most recently, so requests without a cookie cannot fill the table.
   */
  deleteEndedConsoleSessions(input: { now: Date | string; keepAnonymous: number }): Promise<void>;
}

/** A console_sessions row as findConsoleSession reads it. */
interface ConsoleSessionRow {
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  credential_expires_at: Date | null;
  signed_in_user: Record<string, unknown> | null;
  flash: Record<string, unknown> | null;
  secrets_key_id: string | null;
  secrets: Uint8Array | null;
}

export function createConsoleSessionsRepository(sql: Sql): ConsoleSessionsRepository {
  const json = (value: Record<string, unknown> | null | undefined) => (value ? jsonParameter(sql, value) : null);
  return {
    insertConsoleSession: (input) =>
      operation('insertConsoleSession', newSessionInput, input, async (row) => {
        await sql`
          INSERT INTO console_sessions
            (id_hash, created_at, last_seen_at, expires_at, credential_expires_at, signed_in_user, flash,
             secrets_key_id, secrets)
          VALUES (${row.idHash}, ${row.createdAt}, ${row.createdAt}, ${row.expiresAt}, ${row.credentialExpiresAt ?? null},
                  ${json(row.user)}, ${json(row.flash)},
                  ${row.secrets?.keyId ?? null}, ${row.secrets?.data ?? null})`;
      }),

    findConsoleSession: (hash) =>
      operation('findConsoleSession', idHash, hash, async (key) => {
        const [row] = await sql<ConsoleSessionRow[]>`
          SELECT created_at, last_seen_at, expires_at, credential_expires_at, signed_in_user, flash, secrets_key_id,
                 secrets
          FROM console_sessions WHERE id_hash = ${key}`;
        if (!row) return null;
        return {
          createdAt: row.created_at.toISOString(),
          lastSeenAt: row.last_seen_at.toISOString(),
          expiresAt: row.expires_at.toISOString(),
          credentialExpiresAt: row.credential_expires_at ? row.credential_expires_at.toISOString() : null,
          user: row.signed_in_user,
          flash: row.flash,
          // Both or neither (console_sessions_secrets_complete).
          secrets: row.secrets ? { keyId: row.secrets_key_id as string, data: Buffer.from(row.secrets) } : null,
        };
      }),

    touchConsoleSession: (input) =>
      operation('touchConsoleSession', touchSessionInput, input, async ({ idHash: key, at, expiresAt }) => {
        await sql`
          UPDATE console_sessions SET last_seen_at = ${at}, expires_at = ${expiresAt}
          WHERE id_hash = ${key}
            AND last_seen_at < ${at}::timestamptz - make_interval(secs => ${CONSOLE_SESSION_TOUCH_INTERVAL_SECONDS}::int)`;
      }),

    updateConsoleSession: (changes) =>
      operation(
        'updateConsoleSession',
        sessionChangesInput,
        changes,
        async ({ idHash: key, flash, secrets: sealed }) => {
          const set = {
            ...(flash !== undefined ? { flash: json(flash) } : {}),
            ...(sealed !== undefined ? { secrets_key_id: sealed?.keyId ?? null, secrets: sealed?.data ?? null } : {}),
          };
          await sql`UPDATE console_sessions SET ${sql(set)} WHERE id_hash = ${key}`;
        },
      ),

    deleteConsoleSession: (hash) =>
      operation('deleteConsoleSession', idHash, hash, async (key) => {
        await sql`DELETE FROM console_sessions WHERE id_hash = ${key}`;
      }),

    deleteEndedConsoleSessions: (input) =>
      operation('deleteEndedConsoleSessions', cleanUpInput, input, async ({ now, keepAnonymous }) => {
        await sql`DELETE FROM console_sessions WHERE expires_at <= ${now}`;
        await sql`
          DELETE FROM console_sessions WHERE id_hash IN (
            SELECT id_hash FROM console_sessions WHERE signed_in_user IS NULL
            ORDER BY last_seen_at DESC OFFSET ${keepAnonymous})`;
      }),
  };
}
