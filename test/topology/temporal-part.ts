/**
 * The topology harness's Temporal, of either kind:
 *
 * - `start-dev`: Temporal's own single-process server (`temporal server start-dev --headless`), its state in a SQLite
 *   file, with the temporal CLI dev finds;
 * - `cluster`: a cluster shaped like production (tooling/temporal/cluster): frontend, two history, two matching and a
 *   worker service, each a process, on a PostgreSQL server of its own (a copy of the tests' cached cluster) or, with
 *   DATABASE_URL, on scratch databases there. Its parts are built first when missing (`npm run cluster:install`).
 *
 * `stop()` / `start()` stop the whole of it and start it again on the same port and state; the cluster's `services`
 * can also be killed and started one at a time.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { orderSearchAttributeFlags } from '../../tooling/dev/real-temporal.js';
import { quoteIdentifier, type EmbeddedPostgresServer } from '../../tooling/dev/embedded-postgres.js';
import { connectDatabase } from '../../infra/db/index.js';
import {
  DURABLE_SQLITE_PRAGMAS,
  startHeadlessTemporal,
  type HeadlessTemporal,
} from '../../tooling/temporal/start-dev-server.js';
import {
  clusterPostgresSettings,
  databaseOf,
  DEFAULT_SERVICE_COUNTS,
  startTemporalClusterOnFreePorts,
  type ClusterService,
} from '../../tooling/temporal/cluster/index.js';
import { installClusterTools } from '../../tooling/temporal/cluster/tools.js';
import { startCopyOfTemplate } from '../helpers/postgres.js';
import { temporalCli } from '../helpers/real-temporal.js';

const CLUSTER_PROCESSES = Object.values(DEFAULT_SERVICE_COUNTS).reduce((sum, count) => sum + count, 0);

export const TEMPORAL_KINDS = ['start-dev', 'cluster'] as const;
export type TemporalKind = (typeof TEMPORAL_KINDS)[number];
/** Which kind a harness runs when its caller does not say: TOPOLOGY_TEMPORAL, else start-dev. */
export const TEMPORAL_KIND_VARIABLE = 'TOPOLOGY_TEMPORAL';

export interface TemporalPart {
  kind: TemporalKind;
  address: string;
  /** What runs it, in a line: the CLI of start-dev, the cluster's version and processes. */
  describe: string;
  /** The cluster's processes, one by one; none for start-dev. */
  services: readonly ClusterService[];
  stop(): Promise<void>;
  start(): Promise<void>;
}

export function temporalKindOf(value: string | undefined): TemporalKind {
  const kind = value?.trim() || 'start-dev';
  if (!(TEMPORAL_KINDS as readonly string[]).includes(kind))
    throw new Error(
      `${TEMPORAL_KIND_VARIABLE} (or --temporal) must be one of ${TEMPORAL_KINDS.join(', ')}: not ${kind}`,
    );
  return kind as TemporalKind;
}

export function startTemporalPart(options: {
  kind: TemporalKind;
  namespace: string;
  dir: string;
  log: (line: string) => void;
  undo: Array<() => Promise<void>>;
}): Promise<TemporalPart> {
  return options.kind === 'cluster' ? startClusterPart(options) : startDevPart(options);
}

async function startDevPart(options: {
  namespace: string;
  dir: string;
  log: (line: string) => void;
  undo: Array<() => Promise<void>>;
}): Promise<TemporalPart> {
  const cli = temporalCli();
  let running: HeadlessTemporal | undefined;
  // the first start takes a free port; a start again, the same one
  const startOnce = async (port?: number): Promise<string> => {
    running = await startHeadlessTemporal({
      cli,
      namespace: options.namespace,
      dbFile: path.join(options.dir, 'temporal.db'),
      // SQLite set as dev sets it: with its own defaults every commit is synced, and each of the one history shard's
      // writes, taken one at a time, costs three times as much (docs/http-api.md, "Where a vote's time goes")
      sqlitePragmas: DURABLE_SQLITE_PRAGMAS,
      ...(port === undefined ? {} : { port }),
      extra: [...orderSearchAttributeFlags(), '--log-level', 'error'],
      output: (chunk) => options.log(`[temporal] ${chunk.trimEnd()}`),
    });
    return running.address;
  };
  const address = await startOnce();
  const port = Number(address.split(':').pop());
  options.undo.push(async () => running?.stop());
  return {
    kind: 'start-dev',
    address,
    describe: `${address} (${cli} server start-dev)`,
    services: [],
    stop: async () => running?.stop(),
    start: async () => void (await startOnce(port)),
  };
}

async function startClusterPart(options: {
  namespace: string;
  dir: string;
  log: (line: string) => void;
  undo: Array<() => Promise<void>>;
}): Promise<TemporalPart> {
  const { log, undo } = options;
  const tools = await installClusterTools({ log });
  const postgres = await clusterPostgres(undo);
  const cluster = await startTemporalClusterOnFreePorts(() =>
    Promise.resolve({
      tools,
      dir: path.join(options.dir, 'temporal-cluster'),
      database: databaseOf(postgres.url, postgres.prefix),
      namespace: options.namespace,
      log,
    }),
  );
  undo.push(() => cluster.stop());
  const counts = cluster.services.map((service) => service.name).join(', ');
  return {
    kind: 'cluster',
    address: cluster.address,
    describe: `${cluster.address} (Temporal ${cluster.version} cluster: ${counts}; ${cluster.historyShards} history shards; PostgreSQL ${postgres.where})`,
    services: cluster.services,
    stop: () => cluster.stop(),
    start: () => cluster.start(),
  };
}

/**
 * The cluster's own PostgreSQL, apart from the product's, as a deployment keeps them: a copy of the tests' cached
 * cluster, or scratch databases on DATABASE_URL's server (dropped at the end).
 */
async function clusterPostgres(
  undo: Array<() => Promise<void>>,
): Promise<{ url: string; prefix: string; where: string }> {
  const external = process.env['DATABASE_URL']?.trim();
  if (!external) {
    const server: EmbeddedPostgresServer = await startCopyOfTemplate(clusterPostgresSettings(CLUSTER_PROCESSES));
    undo.push(async () => {
      await server.stop();
      await rm(server.dataDir, { recursive: true, force: true });
    });
    return { url: server.adminUrl, prefix: 'temporal', where: `embedded, port ${server.port}` };
  }
  const prefix = `temporal_topology_${process.pid}_${randomBytes(3).toString('hex')}`;
  undo.push(async () => {
    const sql = connectDatabase(external, { maxConnections: 1 });
    for (const name of [prefix, `${prefix}_visibility`])
      await sql.unsafe(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
    await sql.end();
  });
  return { url: external, prefix, where: `DATABASE_URL's server, databases ${prefix}*` };
}
