/**
 * What the bench:scale stack holds: the memory of each of its processes and in all, and what its state takes on disk
 * (the product's database, and Temporal's: start-dev's SQLite file, or a cluster's two PostgreSQL databases).
 */
import { stat } from 'node:fs/promises';
import { connectDatabase } from '../../infra/db/index.js';
import { postgresPssMiB, processMemory, rssMiB, type ProcessMemory } from './memory.js';
import type { ScaleStack } from './stack.js';

export interface Footprint {
  /** Each process: Temporal's, dev's, each PostgreSQL server's postmaster with its backends. */
  processes: ProcessMemory[];
  /**
   * `temporal`: start-dev's RSS, or the sum of the cluster's processes' PSS (they share the server binary's pages);
   * `postgres`: the product's PostgreSQL's PSS; `temporalPostgres`: the cluster's PostgreSQL's PSS.
   */
  rssMiB: { temporal: number; dev: number; postgres: number; temporalPostgres?: number; total: number };
  /** On disk: `product` (pg_database_size), and Temporal's (SQLite's file and WAL, or its two databases). */
  storageMiB: Record<string, number>;
}

export async function readFootprint(stack: ScaleStack): Promise<Footprint> {
  const { temporal, dev, postgres } = stack;
  const cluster = temporal.cluster;
  const processes = [
    ...temporal.processes.map(({ name, pid }) => processMemory(name, pid)),
    processMemory('mve-orders dev (worker, HTTP API, simulator)', dev.pid),
    processMemory("the product's PostgreSQL (postmaster and backends)", postgres.pid, { tree: true }),
    ...(cluster
      ? [processMemory("Temporal's PostgreSQL (postmaster and backends)", cluster.postgres.pid, { tree: true })]
      : []),
  ];
  const memory = {
    temporal: cluster
      ? processes.slice(0, temporal.processes.length).reduce((sum, row) => sum + row['PSS MiB'], 0)
      : rssMiB(temporal.processes[0].pid),
    dev: rssMiB(dev.pid),
    postgres: postgresPssMiB(postgres.dataDir),
    ...(cluster ? { temporalPostgres: postgresPssMiB(cluster.postgres.dataDir) } : {}),
  };
  const total = Object.values(memory).reduce((sum, value) => sum + value, 0);
  return { processes, rssMiB: { ...memory, total }, storageMiB: await storage(stack) };
}

async function storage(stack: ScaleStack): Promise<Record<string, number>> {
  const [product] = await databaseSizes(stack.dev.state.databaseUrl, [undefined]);
  const { cluster, sqliteFile } = stack.temporal;
  if (cluster) {
    const [temporal, visibility] = await databaseSizes(cluster.postgres.adminUrl, cluster.databases);
    return { product, temporal, temporalVisibility: visibility };
  }
  const files = await Promise.all(['', '-wal', '-shm'].map((suffix) => fileMiB(`${sqliteFile}${suffix}`)));
  return { product, temporalSqlite: files.reduce((sum, size) => sum + size, 0) };
}

/** pg_database_size of each database named (undefined: the one `url` names), MiB. */
async function databaseSizes(url: string, names: ReadonlyArray<string | undefined>): Promise<number[]> {
  const sql = connectDatabase(url, { maxConnections: 1 });
  try {
    const sizes: number[] = [];
    for (const name of names) {
      const [row] = await sql<Array<{ bytes: string }>>`
        SELECT pg_database_size(${name ?? sql`current_database()`})::text AS bytes`;
      sizes.push(Math.round(Number(row.bytes) / 2 ** 20));
    }
    return sizes;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function fileMiB(file: string): Promise<number> {
  const size = await stat(file).then(
    (found) => found.size,
    () => 0, // no WAL (yet)
  );
  return Math.round(size / 2 ** 20);
}
