/**
 * The Temporal cluster of a bench, shaped like production (tooling/temporal/cluster: one frontend, two history and
 * two matching hosts, one worker service, each a process; 16 history shards), on a PostgreSQL server of its own in a
 * scratch folder removed when it stops: apart from the product's, as a deployment keeps them.
 *
 * Its PostgreSQL syncs to disk but does not wait for the disk at each commit (`synchronous_commit=off`), as durable as
 * start-dev's SQLite with dev's settings (`synchronous=normal` in WAL mode): a crashed process loses nothing, a power
 * cut the last commits. It loads pg_stat_statements, so a bench can count the statements Temporal makes. It takes 200
 * connections: each of the six processes may open 30 (20 to the workflow store, 10 to visibility), 180 together, over
 * PostgreSQL's default of 100; at 100, with 10,000 orders parked, a bench's own reads were refused ("too many clients").
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from '../tooling/dev/embedded-postgres.js';
import { databaseOf, startTemporalClusterOnFreePorts } from '../tooling/temporal/cluster/index.js';
import { installClusterTools } from '../tooling/temporal/cluster/tools.js';

/** One of Temporal's own processes, by name, and its Prometheus endpoint. */
export interface TemporalProcess {
  name: string;
  pid: number;
  metricsUrl: string;
}

export interface BenchCluster {
  address: string;
  /** What runs, for a report: the version, the processes, the shards, the PostgreSQL. */
  description: string;
  processes(): TemporalProcess[];
  /** Each process's Prometheus endpoint. */
  metricsUrls: string[];
  postgres: EmbeddedPostgresServer;
  /** The cluster's databases: workflow state, and visibility. */
  databases: readonly [string, string];
  stop(): Promise<void>;
}

export async function startBenchCluster(options: {
  namespace: string;
  log: (line: string) => void;
}): Promise<BenchCluster> {
  const tools = await installClusterTools({ log: options.log });
  const folder = await mkdtemp(path.join(tmpdir(), 'mve-bench-cluster-'));
  const stops: Array<() => Promise<unknown>> = [() => rm(folder, { recursive: true, force: true })];
  const stop = async () => {
    for (const each of stops.reverse()) await each();
  };
  try {
    const postgres = await startEmbeddedPostgres({
      dataDir: path.join(folder, 'postgres'),
      database: 'postgres',
      settings: {
        synchronous_commit: 'off',
        shared_preload_libraries: 'pg_stat_statements',
        max_connections: String(MAX_CONNECTIONS),
      },
    });
    stops.push(() => postgres.stop());
    const database = databaseOf(postgres.adminUrl);
    const cluster = await startTemporalClusterOnFreePorts(() =>
      Promise.resolve({
        tools,
        dir: path.join(folder, 'cluster'),
        database,
        namespace: options.namespace,
        log: options.log,
      }),
    );
    stops.push(() => cluster.stop());
    const names = cluster.services.map((service) => service.name).join(', ');
    return {
      address: cluster.address,
      description:
        `Temporal ${cluster.version} cluster (${names}; ${cluster.historyShards} history shards; ` +
        `PostgreSQL of its own, port ${postgres.port}, synchronous_commit=off, max_connections=${MAX_CONNECTIONS})`,
      processes: () =>
        cluster.services.map(({ name, pid, ports }) => ({
          name: `temporal ${name}`,
          pid,
          metricsUrl: metricsUrl(ports),
        })),
      metricsUrls: cluster.services.map(({ ports }) => metricsUrl(ports)),
      postgres,
      databases: [database.database, database.visibilityDatabase],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Above the 180 connections the cluster's processes may open together (config.ts: 20 + 10 each). */
const MAX_CONNECTIONS = 200;

const metricsUrl = (ports: { metrics: number }) => `http://127.0.0.1:${ports.metrics}/metrics`;
