import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { readdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestFn } from 'ava';
import {
  initialiseEmbeddedPostgres,
  quoteIdentifier,
  startEmbeddedPostgres,
  type EmbeddedPostgresServer,
} from '../../tooling/dev/embedded-postgres.js';
import { connectDatabase, runMigrations, type Sql } from '../../infra/db/index.js';

// Gives each ava test file (its own process) its own PostgreSQL: one embedded cluster per file, copied
// from an initdb'd cluster cached in the temp folder (initdb once per machine, not once per file) into
// memory where possible, and a fresh database per call to `database()`. With DATABASE_URL set, that server is used instead, with
// scratch databases created on it and dropped afterwards.

export interface TestDatabase {
  name: string;
  url: string;
  sql: Sql;
}

export interface TestPostgres {
  /** A new database on this file's server, with the project's migrations applied unless told otherwise. */
  database(options?: { migrated?: boolean }): Promise<TestDatabase>;
}

const execFileAsync = promisify(execFile);

export function usePostgres<Context>(test: TestFn<Context>): TestPostgres {
  let adminUrl: string | undefined;
  let server: EmbeddedPostgresServer | undefined;
  let starting: Promise<string> | undefined;
  const created: TestDatabase[] = [];

  // Started on first use (before hooks run concurrently, so none of them can be relied on to go first).
  const serverUrl = () =>
    (starting ??= (async () => {
      if (process.env.DATABASE_URL) {
        adminUrl = process.env.DATABASE_URL;
      } else {
        server = await startCopyOfTemplate();
        adminUrl = server.adminUrl;
        // ava ends a timed-out file with SIGTERM, which skips exit handlers: exit properly instead,
        // so the server is signalled rather than orphaned.
        process.once('SIGTERM', exitOnSigterm);
      }
      return adminUrl;
    })());

  test.after.always(async () => {
    await starting?.catch(() => {});
    await Promise.all(created.map((db) => db.sql.end({ timeout: 5 })));
    if (server) {
      process.removeListener('SIGTERM', exitOnSigterm);
      await server.stop();
      await rm(server.dataDir, { recursive: true, force: true });
    } else if (adminUrl) {
      const admin = connectDatabase(adminUrl, { maxConnections: 1 });
      for (const db of created) await admin.unsafe(`DROP DATABASE IF EXISTS ${quoteIdentifier(db.name)}`);
      await admin.end();
    }
  });

  // Migrated once per file, then cloned: CREATE DATABASE … TEMPLATE copies files, cheaper than migrating.
  let migratedTemplate: Promise<string> | undefined;
  const templateName = () =>
    (migratedTemplate ??= (async () => {
      const db = await createDatabase(false);
      await runMigrations(db.sql);
      await db.sql.end(); // a template must have no open connections while it is cloned
      return db.name;
    })());

  async function createDatabase(migrated: boolean): Promise<TestDatabase> {
    const admin = await serverUrl();
    const name = `mve_test_${process.pid}_${created.length}_${randomBytes(3).toString('hex')}`;
    const template = migrated ? await templateName() : undefined;
    const sql = connectDatabase(admin, { maxConnections: 1 });
    try {
      await sql.unsafe(
        `CREATE DATABASE ${quoteIdentifier(name)}${template ? ` TEMPLATE ${quoteIdentifier(template)}` : ''}`,
      );
    } finally {
      await sql.end();
    }
    const url = withDatabase(admin, name);
    const db = { name, url, sql: connectDatabase(url, { maxConnections: 4 }) };
    created.push(db);
    return db;
  }

  return { database: ({ migrated = true } = {}) => createDatabase(migrated) };
}

const exitOnSigterm = () => process.exit(128 + 15);

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** One cached, initialised cluster per version of the PostgreSQL binaries. */
async function templateDir(): Promise<string> {
  const packageJson = fileURLToPath(new URL('../package.json', import.meta.resolve('embedded-postgres')));
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  const dir = path.join(tmpdir(), `mve-orders-pg-template-${version}`);
  if (existsSync(path.join(dir, 'PG_VERSION'))) return dir;
  // Built aside and renamed into place, so concurrent test files never see half a cluster.
  const building = `${dir}.building-${process.pid}`;
  await initialiseEmbeddedPostgres(building, { ephemeral: true });
  await rename(building, dir).catch(async (error: NodeJS.ErrnoException) => {
    await rm(building, { recursive: true, force: true });
    if (!existsSync(path.join(dir, 'PG_VERSION'))) throw error;
  });
  return dir;
}

/**
 * Where each file's cluster lives: memory (/dev/shm) where there is one. On a busy disk, copying the
 * cluster and creating databases there is several times slower; these clusters are thrown away anyway.
 */
function clusterRoot(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

const CLUSTER_PREFIX = 'mve-orders-pg-test-';

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Removes clusters left by test processes that were killed before their cleanup ran (they would hold
 * memory in /dev/shm until reboot): those whose test process and server are both gone.
 */
async function sweepAbandonedClusters(root: string): Promise<void> {
  for (const name of await readdir(root).catch(() => [])) {
    const match = new RegExp(`^${CLUSTER_PREFIX}(\\d+)-`).exec(name);
    if (!match || isAlive(Number(match[1]))) continue;
    const dir = path.join(root, name);
    const serverPid = Number((await readFile(path.join(dir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
    if (serverPid > 0 && isAlive(serverPid)) continue;
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A PostgreSQL server of its own on a copy of the cached cluster (in memory where possible): the caller stops it and
 * removes its `dataDir`. Its `url` is the maintenance database's. `settings`: further server settings (`-c`).
 */
export async function startCopyOfTemplate(settings: Record<string, string> = {}): Promise<EmbeddedPostgresServer> {
  const root = clusterRoot();
  await sweepAbandonedClusters(root);
  const dataDir = path.join(root, `${CLUSTER_PREFIX}${process.pid}-${randomBytes(3).toString('hex')}`);
  // cp -a keeps owner and modes: as root the copy stays owned by the account PostgreSQL runs as.
  await execFileAsync('cp', ['-a', await templateDir(), dataDir]);
  return startEmbeddedPostgres({ dataDir, ephemeral: true, database: 'postgres', settings });
}
