/**
 * A throwaway PostgreSQL for the package's tests (test/postgres.ts) and benches: a cluster of its own in a temporary
 * folder, removed when it stops. The server is the workspace's local PostgreSQL (`@mve-orders/local-postgres`), which
 * also starts as root from a folder only root can enter.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '@mve-orders/local-postgres';

export interface ThrowawayPostgres {
  /** The cluster's maintenance database, `postgres` (the tests create and drop others through it). */
  url: string;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/**
 * A new cluster on a free port of 127.0.0.1, in a folder of its own: in memory (/dev/shm, where there is one) with
 * fsync off by default, on disk with fsync on when `durable`.
 */
export async function startThrowawayPostgres(options: { durable?: boolean } = {}): Promise<ThrowawayPostgres> {
  const durable = options.durable ?? false;
  const dataDir = path.join(
    durable ? tmpdir() : scratchRoot(),
    `mve-devserver-pg-${process.pid}-${randomBytes(3).toString('hex')}`,
  );
  const server = await startEmbeddedPostgres({ dataDir, ephemeral: !durable });
  return {
    url: server.adminUrl,
    async stop() {
      await server.stop();
      // the server may have been moved where the postgres account can reach it (as root)
      await rm(server.dataDir, { recursive: true, force: true });
    },
  };
}

/** Memory where there is some to write (a throwaway cluster's files need no disk), else the temp folder. */
function scratchRoot(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}
