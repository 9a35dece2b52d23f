/**
 * `temporal server start-dev` under a supervisor, waited for until it answers: what `mve-orders dev`'s server
 * (real-temporal.ts) shares with the tests, benches and tools that run one of their own.
 */
import { Connection } from '@temporalio/client';
import { superviseServer, type SupervisedServer } from '../postgres/index.js';
import { freePort } from './free-port.js';

export interface StartDevFlags {
  host: string;
  port: number;
  /** Its Web UI: the port and the codec server it decodes payloads with. Without: `--headless`. */
  ui?: { port: number; codecEndpoint: string };
  /** Its SQLite file. Without: in memory, gone when it stops. */
  dbFile?: string;
  /** `PRAGMA=value` settings of that file's SQLite (DURABLE_SQLITE_PRAGMAS: dev's). */
  sqlitePragmas?: readonly string[];
  /** Created at start; "default" always is. */
  namespace: string;
  /** Anything else: search attributes, dynamic config, a log level. */
  extra?: string[];
}

/**
 * The SQLite settings of dev's durable server: a write-ahead log, synced to disk at its checkpoints rather than at each
 * commit as SQLite's default (synchronous=FULL) does, which runs orders about twice as fast. A crash of the server
 * loses nothing; a power cut (or a crash of the system) may lose the last transactions committed before it, and the
 * database stays consistent (https://www.sqlite.org/pragma.html#pragma_synchronous; docs/running.md).
 */
export const DURABLE_SQLITE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'] as const;

export function startDevArgs(flags: StartDevFlags): string[] {
  return [
    'server',
    'start-dev',
    '--ip',
    flags.host,
    '--port',
    String(flags.port),
    ...(flags.ui
      ? [
          '--ui-port',
          String(flags.ui.port),
          '--ui-codec-endpoint',
          flags.ui.codecEndpoint,
          // the Web UI would otherwise fetch Temporal's news from the internet
          '--ui-disable-news-fetch',
        ]
      : ['--headless']),
    ...(flags.dbFile ? ['--db-filename', flags.dbFile] : []),
    ...(flags.sqlitePragmas ?? []).flatMap((pragma) => ['--sqlite-pragma', pragma]),
    ...(flags.namespace === 'default' ? [] : ['--namespace', flags.namespace]),
    ...(flags.extra ?? []),
  ];
}

/**
 * Polls `probe` until it answers (what it answers is returned), and fails saying why once the server has ended or
 * `timeoutMs` has passed: `ended (exit code 1)`, `did not answer on <address> within N s`. A probe that throws has
 * not answered yet.
 */
export async function untilAnswers<T>(
  server: Pick<SupervisedServer, 'exited'>,
  address: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
): Promise<T> {
  let ended: string | undefined;
  void server.exited.then((how) => (ended = how));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await probe().catch(() => undefined);
    if (answer !== undefined) return answer;
    if (ended) throw new Error(`ended (${ended})`);
    if (Date.now() > deadline) throw new Error(`did not answer on ${address} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The result of `use(connection)` on a fresh connection to `address`, closed after. */
export async function withConnection<T>(address: string, use: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address, connectTimeout: 1_000 });
  try {
    return await use(connection);
  } finally {
    await connection.close().catch(() => undefined);
  }
}

export interface HeadlessTemporal {
  address: string;
  namespace: string;
  /** The server's own process id. */
  pid: number;
  exited: Promise<string>;
  /** Stops it and waits until it has ended. */
  stop(): Promise<void>;
}

const START_ATTEMPTS = 3;

/**
 * A real server, headless: by default a throwaway one, in memory, on a loopback port free now (a server that loses the
 * port to another program in the meantime is started again on another), with `namespace` created; ready when that
 * namespace answers. Given a `port` and a `dbFile`, the same server can be stopped and started again on its state.
 */
export async function startHeadlessTemporal(options: {
  cli: string;
  namespace: string;
  /** This port only (a server started again where clients expect it); default: one free now. */
  port?: number;
  /** Its SQLite file, kept across restarts; default: in memory. */
  dbFile?: string;
  /** That file's SQLite settings (DURABLE_SQLITE_PRAGMAS: dev's); default: SQLite's own. */
  sqlitePragmas?: readonly string[];
  extra?: string[];
  /** Everything the server prints. */
  output?: (chunk: string) => void;
  readyTimeoutMs?: number;
}): Promise<HeadlessTemporal> {
  const host = '127.0.0.1';
  let failure: Error | undefined;
  const attempts = options.port === undefined ? START_ATTEMPTS : 1;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const port = options.port ?? (await freePort(host));
    const address = `${host}:${port}`;
    let recent = '';
    const server = await superviseServer(
      options.cli,
      startDevArgs({
        host,
        port,
        namespace: options.namespace,
        ...(options.dbFile ? { dbFile: options.dbFile } : {}),
        ...(options.sqlitePragmas ? { sqlitePragmas: options.sqlitePragmas } : {}),
        ...(options.extra ? { extra: options.extra } : {}),
      }),
      {
        name: 'temporal-supervisor',
        output: (chunk) => {
          recent = (recent + chunk).slice(-2_000);
          options.output?.(chunk);
        },
      },
    );
    try {
      await untilAnswers(server, address, options.readyTimeoutMs ?? 60_000, () =>
        withConnection(address, (connection) =>
          connection.workflowService.describeNamespace({ namespace: options.namespace }),
        ),
      );
      return {
        address,
        namespace: options.namespace,
        pid: server.pid,
        exited: server.exited,
        stop: () => server.stop(),
      };
    } catch (error) {
      await server.stop();
      failure = new Error(`temporal server start-dev ${(error as Error).message}:\n${recent.trim()}`);
    }
  }
  throw failure!;
}
