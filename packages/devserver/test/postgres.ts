/**
 * Databases for the durable store's tests: in a test file, `await pg.database()` is a new, empty database on
 * DATABASE_URL's server when it is set (dropped after the file), else on a throwaway cluster of the file's own
 * (each ava file is a process of its own; ../support/throwaway-postgres.ts), started on first use and removed after
 * the file.
 */
import { randomBytes } from 'node:crypto';
import type { TestFn } from 'ava';
import postgres from 'postgres';
import { startThrowawayPostgres } from '../support/throwaway-postgres.js';
import type { ThrowawayPostgres } from '../support/throwaway-postgres.js';

export interface ScratchDatabase {
  name: string;
  url: string;
  sql: postgres.Sql;
}

/** Scratch databases for one test file; see the top of this file. */
export function usePostgres(test: TestFn<any>): { database(): Promise<ScratchDatabase> } {
  let cluster: ThrowawayPostgres | undefined;
  let starting: Promise<string> | undefined;
  const created: ScratchDatabase[] = [];
  // started on first use: before hooks run concurrently, so none of them can be relied on to go first
  const adminUrl = () =>
    (starting ??= (async () => {
      if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
      cluster = await startThrowawayPostgres();
      // ava ends a timed-out file with SIGTERM, which skips exit handlers: exit properly, so the server is stopped
      process.once('SIGTERM', exitOnSigterm);
      return cluster.url;
    })());

  test.after.always(async () => {
    const admin = await starting?.catch(() => undefined);
    await Promise.all(created.map((db) => db.sql.end({ timeout: 5 })));
    if (cluster) {
      process.removeListener('SIGTERM', exitOnSigterm);
      await cluster.stop();
    } else if (admin) {
      const sql = postgres(admin, { max: 1, onnotice: () => {} });
      for (const db of created) await sql.unsafe(`DROP DATABASE IF EXISTS "${db.name}"`);
      await sql.end();
    }
  });

  return {
    async database() {
      const admin = await adminUrl();
      const name = `devserver_test_${process.pid}_${created.length}_${randomBytes(3).toString('hex')}`;
      const sql = postgres(admin, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(`CREATE DATABASE "${name}"`);
      } finally {
        await sql.end();
      }
      const url = new URL(admin);
      url.pathname = `/${name}`;
      const db = { name, url: url.toString(), sql: postgres(url.toString(), { max: 4, onnotice: () => {} }) };
      created.push(db);
      return db;
    },
  };
}

const exitOnSigterm = () => process.exit(128 + 15);
