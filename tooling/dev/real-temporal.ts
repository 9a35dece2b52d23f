import { createWriteStream, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TypedSearchAttributes } from '@temporalio/common';
import { awaitProcessEnd, superviseServer } from '../postgres/index.js';
import { ORDER_SEARCH_ATTRIBUTES } from '../../workflows/order/search-attributes.js';
import { DURABLE_SQLITE_PRAGMAS, startDevArgs, untilAnswers, withConnection } from '../temporal/start-dev-server.js';
import type { TemporalCli } from './temporal-cli.js';

export const TEMPORAL_DB_FILE = 'temporal.db';
export const TEMPORAL_LOG_FILE = 'temporal.log';
export const TEMPORAL_PID_FILE = 'temporal.pid';
/** How long a server left by a dev that was killed may take to end (its supervisor stopped it as dev died). */
const EARLIER_SERVER_WAIT_MS = 10_000;

export interface RealTemporalOptions {
  cli: TemporalCli;
  dataDir: string;
  host: string;
  /** Its frontend (gRPC) and Web UI ports: numbers, as the CLI needs them. */
  port: number;
  uiPort: number;
  namespace: string;
  /** The codec server the Web UI decodes payloads with (the API's `/codec`). */
  codecEndpoint: string;
  /** How long it may take to answer, with the namespace and the order's search attributes in place. */
  readyTimeoutMs: number;
}

export interface RunningRealTemporal {
  address: string;
  uiUrl: string;
  /** The server's version, as it reports it (`1.32.0`). */
  version: string;
  dbFile: string;
  logFile: string;
  /** Workflow runs open in its database when it started: orders carried over from an earlier run of dev. */
  openRuns: number;
  /** Settles, saying how, when the server has ended, whether stop() asked it to or not. */
  exited: Promise<string>;
  /** Stops it (gracefully, through its supervisor) and waits until it has ended. */
  stop(): Promise<void>;
}

/** `--search-attribute Name=Type` for each of the order's search attributes, as the workflow defines them. */
export function orderSearchAttributeFlags(): string[] {
  return ORDER_SEARCH_ATTRIBUTES.flatMap((key) => [
    '--search-attribute',
    `${key.name}=${TypedSearchAttributes.toMetadataType(key.type)}`,
  ]);
}

/**
 * The real Temporal server, `temporal server start-dev`: its state in SQLite in the data folder (open orders survive
 * a restart; DURABLE_SQLITE_PRAGMAS say what a power cut may cost), its log in a file there, the order's search
 * attributes registered, its Web UI decoding payloads through the API's codec server. It runs under a supervisor in a process group of its own, so a terminal's Ctrl-C
 * reaches dev first (which stops the worker before it), and it ends with dev however dev ends.
 */
export async function startRealTemporal(options: RealTemporalOptions): Promise<RunningRealTemporal> {
  const { dataDir, host, port, uiPort, namespace } = options;
  const dbFile = join(dataDir, TEMPORAL_DB_FILE);
  const logFile = join(dataDir, TEMPORAL_LOG_FILE);
  const pidFile = join(dataDir, TEMPORAL_PID_FILE);
  await awaitEarlierServer(pidFile, dbFile);

  const log = createWriteStream(logFile, { flags: 'a', mode: 0o600 });
  log.write(`--- ${new Date().toISOString()} dev starts ${options.cli.path} server start-dev\n`);
  let recent = '';
  const server = await superviseServer(
    options.cli.path,
    startDevArgs({
      host,
      port,
      ui: { port: uiPort, codecEndpoint: options.codecEndpoint },
      dbFile,
      sqlitePragmas: DURABLE_SQLITE_PRAGMAS,
      namespace,
      extra: orderSearchAttributeFlags(),
    }),
    {
      name: 'temporal-supervisor',
      // its SQLite files hold order metadata (ticket ids, states): this account's alone, as the data folder's keys are
      umask: 0o077,
      output: (chunk) => {
        log.write(chunk);
        recent = (recent + chunk).slice(-2_000);
      },
    },
  ).catch(async (error: unknown) => {
    await closeStream(log);
    throw new Error(`temporal server start-dev did not start: ${(error as Error).message}\n${recent}`);
  });
  await writeFile(pidFile, `${server.pid}\n`, { mode: 0o600 });
  const stop = async () => {
    await server.stop();
    await closeStream(log);
    await rm(pidFile, { force: true });
  };

  const address = `${host}:${port}`;
  const uiUrl = `http://${host}:${uiPort}`;
  try {
    const answer = await untilAnswers(server, address, options.readyTimeoutMs, () =>
      answers(address, namespace, uiUrl),
    );
    return { address, uiUrl, dbFile, logFile, ...answer, exited: server.exited, stop };
  } catch (error) {
    await stop();
    throw new Error(
      `temporal server start-dev ${(error as Error).message}; its log is ${logFile}. Its last words:\n${recent.trim()}`,
    );
  }
}

/**
 * The server answers: its frontend, with the namespace and the order's search attributes, and its Web UI. Then its
 * version and the workflow runs open in it; undefined while it does not answer yet.
 */
async function answers(
  address: string,
  namespace: string,
  uiUrl: string,
): Promise<{ version: string; openRuns: number } | undefined> {
  return withConnection(address, async (connection) => {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    if (!ORDER_SEARCH_ATTRIBUTES.every((key) => customAttributes?.[key.name] !== undefined)) return undefined;
    if (!(await fetch(uiUrl, { signal: AbortSignal.timeout(1_000) })).ok) return undefined;
    const { serverVersion } = await connection.workflowService.getClusterInfo({});
    const { count } = await connection.workflowService.countWorkflowExecutions({
      namespace,
      query: 'ExecutionStatus = "Running"',
    });
    return { version: serverVersion ?? 'unknown', openRuns: Number(count ?? 0) };
  });
}

/**
 * The server of a dev that was killed (SIGKILL) is stopped by its supervisor as dev dies, and may still be shutting
 * down: two servers on one SQLite file must never run, so wait for it; one still running after that is named.
 */
async function awaitEarlierServer(pidFile: string, dbFile: string): Promise<void> {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
  } catch {
    return; // none: the last one stopped cleanly
  }
  if (Number.isInteger(pid) && pid > 0 && runsOn(pid, dbFile) && !(await awaitProcessEnd(pid, EARLIER_SERVER_WAIT_MS)))
    throw new Error(
      `a Temporal server of an earlier dev (pid ${pid}) still runs on ${dbFile}; stop it (kill ${pid}) and start again`,
    );
  await rm(pidFile, { force: true });
}

/** Whether the process is a server on this database (a pid file's number may have been reused by another process). */
function runsOn(pid: number, dbFile: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(dbFile);
  } catch {
    return false;
  }
}

function closeStream(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => stream.end(() => resolve()));
}
