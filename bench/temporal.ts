/**
 * The Temporal server of a bench: a throwaway `temporal server start-dev`, headless, on a free loopback port, with the
 * order's search attributes, durable as `mve-orders dev` runs it (its state in a SQLite file, here in a scratch folder
 * removed when it stops). Its SQLite runs with SQLite's own settings or with the ones dev runs with, so that a bench
 * can tell what they are worth. Or, with `startBenchServer`, either that or a cluster shaped like production
 * (./cluster.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { orderSearchAttributeFlags } from '../tooling/dev/real-temporal.js';
import type { EmbeddedPostgresServer } from '../tooling/dev/embedded-postgres.js';
import { freePort } from '../tooling/temporal/free-port.js';
import {
  DURABLE_SQLITE_PRAGMAS,
  startHeadlessTemporal,
  type HeadlessTemporal,
} from '../tooling/temporal/start-dev-server.js';
import { findTemporalCli, INSTALL_TEMPORAL } from '../tooling/dev/temporal-cli.js';
import { startBenchCluster, type TemporalProcess } from './cluster.js';
import type { TemporalMetricsSource } from './server-cost.js';
import type { TemporalKind } from './temporal-choice.js';

/** `defaults`: SQLite's own (a rollback journal, every commit synced); `tuned`: dev's (DURABLE_SQLITE_PRAGMAS). */
export const SQLITE_SETTINGS = ['defaults', 'tuned'] as const;
export type SqliteSettings = (typeof SQLITE_SETTINGS)[number];

const SQLITE_PRAGMAS: Record<SqliteSettings, readonly string[]> = {
  defaults: [],
  tuned: DURABLE_SQLITE_PRAGMAS,
};

export interface BenchTemporal extends HeadlessTemporal {
  sqlite: SqliteSettings;
  /** What the server is, for a report: `temporal server start-dev (<its CLI>), SQLite tuned (journal_mode=wal, …)`. */
  description: string;
  /** Its Prometheus endpoint. */
  metricsUrl: string;
}

/** Temporal as a bench runs it, of either kind. */
export interface BenchServer {
  kind: TemporalKind;
  address: string;
  description: string;
  /** Temporal's own processes: start-dev's one, or each service of a cluster. */
  processes(): TemporalProcess[];
  metrics: TemporalMetricsSource;
  /** A cluster's PostgreSQL server; none for start-dev. */
  postgres?: EmbeddedPostgresServer;
  stop(): Promise<void>;
}

/** A fresh Temporal of `kind` with namespace `default`: start-dev with `sqlite`'s settings, or a cluster. */
export async function startBenchServer(options: {
  kind: TemporalKind;
  sqlite: SqliteSettings;
  log: (line: string) => void;
}): Promise<BenchServer> {
  if (options.kind === 'cluster') {
    const cluster = await startBenchCluster({ namespace: 'default', log: options.log });
    return {
      ...cluster,
      kind: 'cluster',
      metrics: {
        metricsUrls: cluster.metricsUrls,
        postgres: { adminUrl: cluster.postgres.adminUrl, databases: cluster.databases },
      },
    };
  }
  const server = await startBenchTemporal(options);
  return {
    kind: 'start-dev',
    address: server.address,
    description: server.description,
    processes: () => [{ name: 'temporal server start-dev', pid: server.pid, metricsUrl: server.metricsUrl }],
    metrics: { metricsUrls: [server.metricsUrl] },
    stop: () => server.stop(),
  };
}

export async function startBenchTemporal(options: {
  sqlite: SqliteSettings;
  log?: (line: string) => void;
}): Promise<BenchTemporal> {
  const cli = findTemporalCli(process.env);
  if (!cli)
    throw new Error(
      `no temporal CLI found: the benches run on the real server; install it with \`${INSTALL_TEMPORAL}\``,
    );
  const folder = await mkdtemp(path.join(tmpdir(), 'mve-bench-temporal-'));
  const pragmas = SQLITE_PRAGMAS[options.sqlite];
  const metricsPort = await freePort('127.0.0.1');
  try {
    const server = await startHeadlessTemporal({
      cli: cli.path,
      namespace: 'default',
      dbFile: path.join(folder, 'temporal.db'),
      sqlitePragmas: pragmas,
      extra: [...orderSearchAttributeFlags(), '--metrics-port', String(metricsPort)],
      // start-dev prints its warnings and errors only
      ...(options.log ? { output: (chunk: string) => lines(chunk).forEach(options.log!) } : {}),
    });
    return {
      ...server,
      sqlite: options.sqlite,
      description: `temporal server start-dev (${cli.path}), SQLite ${options.sqlite}${pragmas.length ? ` (${pragmas.join(', ')})` : ''}`,
      metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
      stop: async () => {
        await server.stop();
        await rm(folder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}

function lines(chunk: string): string[] {
  return chunk
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => `[temporal] ${line}`);
}
