import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { projectPath } from '../../config/project-folder.js';
import type { Sql } from './connection.js';

/** The project's own migrations folder. */
export const MIGRATIONS_DIRECTORY = projectPath('migrations/');

/** The advisory lock every runner of every version of the app takes (any fixed number). */
export const MIGRATION_LOCK_KEY = 7_240_118_305;

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export interface Migration {
  version: number;
  /** The file name, e.g. `0001_orders.sql`. */
  name: string;
  sql: string;
  /** sha256 of the file's bytes, hex. */
  checksum: string;
}

export interface MigrationRun {
  /** Migrations this run applied, in order (empty when the database was up to date). */
  applied: Array<Pick<Migration, 'version' | 'name'>>;
  /** How many were applied before this run. */
  alreadyApplied: number;
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** Reads `NNNN_name.sql` files in version order; other `.sql` names and duplicate numbers are errors. */
export async function loadMigrations(directory: string = MIGRATIONS_DIRECTORY): Promise<Migration[]> {
  const migrations: Migration[] = [];
  for (const name of (await readdir(directory)).filter((file) => file.endsWith('.sql')).sort()) {
    const match = FILE_NAME.exec(name);
    if (!match) {
      throw new MigrationError(
        `migration file ${name} is misnamed: names are NNNN_lowercase_words.sql, e.g. 0004_add_notes.sql`,
      );
    }
    const version = Number(match[1]);
    const duplicate = migrations.find((m) => m.version === version);
    if (duplicate) throw new MigrationError(`migrations ${duplicate.name} and ${name} share version ${version}`);
    const bytes = await readFile(path.join(directory, name));
    migrations.push({
      version,
      name,
      sql: bytes.toString('utf8'),
      checksum: createHash('sha256').update(bytes).digest('hex'),
    });
  }
  return migrations;
}

/**
 * Applies pending migrations in one transaction, holding an advisory lock so that concurrent runners
 * (several workers starting at once) apply each migration exactly once; a runner that waited finds the
 * work done. Refuses, changing nothing, when an applied migration's file was edited or is missing.
 */
export async function runMigrations(sql: Sql, options: { directory?: string } = {}): Promise<MigrationRun> {
  const migrations = await loadMigrations(options.directory);
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`;
    await tx`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version    integer PRIMARY KEY,
        name       text NOT NULL,
        checksum   text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`;
    const applied = await tx<Array<{ version: number; name: string; checksum: string }>>`
      SELECT version, name, checksum FROM schema_migrations ORDER BY version`;
    checkAppliedMatchFiles(applied, migrations);

    const appliedVersions = new Set(applied.map((row) => row.version));
    const pending = migrations.filter((m) => !appliedVersions.has(m.version));
    for (const migration of pending) {
      try {
        await tx.unsafe(migration.sql).simple();
      } catch (error) {
        throw new MigrationError(
          `migration ${migration.name} failed, nothing was applied: ${(error as Error).message}`,
        );
      }
      await tx`
        INSERT INTO schema_migrations (version, name, checksum)
        VALUES (${migration.version}, ${migration.name}, ${migration.checksum})`;
    }
    return {
      applied: pending.map(({ version, name }) => ({ version, name })),
      alreadyApplied: applied.length,
    };
  });
}

function checkAppliedMatchFiles(
  applied: Array<{ version: number; name: string; checksum: string }>,
  migrations: Migration[],
): void {
  for (const row of applied) {
    const file = migrations.find((m) => m.version === row.version);
    if (!file) {
      throw new MigrationError(
        `the database has migration ${row.name} applied but there is no such file: ` +
          'this code is older than the database; run a newer version',
      );
    }
    if (file.checksum !== row.checksum) {
      throw new MigrationError(
        `migration ${file.name} was changed after it was applied (applied checksum ` +
          `${row.checksum.slice(0, 12)}…, file now ${file.checksum.slice(0, 12)}…): ` +
          'never edit an applied migration; restore it and add a new numbered file instead',
      );
    }
  }
}
