/**
 * A Temporal cluster shaped like a self-hosted production one, on loopback: Temporal's server built from its Go module
 * (tools.ts), its state in PostgreSQL (schemas set up or upgraded with Temporal's schema tool), and each service a
 * process of its own — by default one frontend, two history hosts sharing the shards, two matching hosts and one
 * worker service. The processes find each other through the membership table in PostgreSQL, as separate machines do.
 *
 *   const cluster = await startTemporalCluster({ tools, dir, database, namespace: 'default' });
 *   cluster.address                          // the first frontend: what clients dial
 *   await cluster.service('history-1').kill() // its shards move to history-2
 *   await cluster.service('history-1').start()
 *   await cluster.stop()
 */
import { mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { untilAnswers, withConnection } from '../start-dev-server.js';
import { DYNAMIC_CONFIG, SERVICE_KINDS, type ClusterDatabase, type ServiceKind } from './config.js';
import { lastWords } from './last-words.js';
import { recordedCluster } from './metadata.js';
import { acceptsAStart, registerNamespace } from './register.js';
import { prepareSchemas, type SchemaStep } from './schema.js';
import { servicePorts, startService, type ClusterService, type ServiceInput } from './service.js';
import type { ServicePorts } from './config.js';
import type { ClusterTools } from './tools.js';

export type ServiceCounts = Record<ServiceKind, number>;

/** Production's shape at its smallest: every service but the system worker on two hosts or more. */
export const DEFAULT_SERVICE_COUNTS: ServiceCounts = { frontend: 1, history: 2, matching: 2, worker: 1 };
/** Shards of workflow state the history hosts share out; fixed once the cluster has state. */
export const DEFAULT_HISTORY_SHARDS = 16;

export interface TemporalClusterOptions {
  tools: ClusterTools;
  /** Where the processes' config files and logs go. */
  dir: string;
  database: ClusterDatabase;
  namespace: string;
  /** The first frontend's gRPC port, where clients dial; default: one free now. */
  frontendPort?: number;
  counts?: Partial<ServiceCounts>;
  /** Set when the cluster is created (default 16), fixed after: an existing cluster's count, or refused if another. */
  historyShards?: number;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** How long the cluster may take to serve (default 120 s). */
  readyTimeoutMs?: number;
  /** What the cluster does, a line at a time. */
  log?: (line: string) => void;
}

export interface TemporalCluster {
  /** The first frontend's address: what clients dial. */
  address: string;
  /** Every frontend's address. */
  frontends: string[];
  namespace: string;
  /** The server's version, as it reports it. */
  version: string;
  historyShards: number;
  schema: SchemaStep[];
  services: readonly ClusterService[];
  /** The service named `history-2`; throws for a name the cluster has none of. */
  service(name: string): ClusterService;
  /** Resolves once every process listens and the cluster takes an order's start. */
  untilServing(timeoutMs?: number): Promise<void>;
  /** What runs, a line each. */
  describe(): string[];
  /** Stops every process gracefully: frontends first, so clients stop coming, then the rest. */
  stop(): Promise<void>;
  /** Starts again, on their ports, the processes that do not run (history first); resolves once it serves. */
  start(timeoutMs?: number): Promise<void>;
}

const HOST = '127.0.0.1';

export async function startTemporalCluster(options: TemporalClusterOptions): Promise<TemporalCluster> {
  const log = options.log ?? (() => undefined);
  const counts = { ...DEFAULT_SERVICE_COUNTS, ...options.counts };
  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  log(`temporal cluster: schemas with ${options.tools.sqlTool}`);
  const schema = await prepareSchemas(options.tools.sqlTool, options.tools.schemaDir, options.database);
  for (const step of schema) log(`temporal cluster: ${step.database} schema ${step.from} → ${step.to}`);
  const recorded = await recordedCluster(options.database);
  const historyShards = fixedShards(options.database, recorded?.historyShards, options.historyShards);

  const dynamicConfigFile = join(options.dir, 'dynamic-config.yaml');
  await writeFile(dynamicConfigFile, DYNAMIC_CONFIG);
  const plan = await planPorts(counts, options.frontendPort);
  const input: ServiceInput = {
    others: Object.fromEntries(SERVICE_KINDS.map((kind) => [kind, plan[kind][0]])) as Record<ServiceKind, ServicePorts>,
    host: HOST,
    database: options.database,
    historyShards,
    frontendAddress: `${HOST}:${plan.frontend[0].grpc}`,
    dynamicConfigFile,
    logLevel: options.logLevel ?? 'warn',
  };
  const services: ClusterService[] = [];
  const stopAll = async () => {
    // one at a time: two hosts of a kind stopping at once can each wait on the other's leaving the ring
    for (const kind of STOP_ORDER)
      for (const service of services.filter((each) => each.kind === kind)) await service.stop();
  };
  try {
    for (const kind of SERVICE_KINDS)
      for (const [at, ports] of plan[kind].entries()) {
        services.push(
          await startService({ binary: options.tools.server, dir: options.dir, kind, index: at + 1, ports, input }),
        );
        // Processes that find the cluster's metadata missing or out of date (a new cluster; its frontend's address
        // changed) race to record it, and the losers end: the first one records it alone.
        if (recorded?.clusterAddress !== input.frontendAddress && services.length === 1)
          await untilRecorded(options.database, services[0], input.frontendAddress, options.readyTimeoutMs ?? 120_000);
      }
    const cluster = clusterOf(options, services, schema, historyShards, stopAll);
    await cluster.untilStarted(options.readyTimeoutMs ?? 120_000);
    cluster.version = await withConnection(cluster.address, async (connection) => {
      const info = await connection.workflowService.getClusterInfo({});
      return info.serverVersion ?? 'unknown';
    });
    log(`temporal cluster: serving on ${cluster.address}`);
    return cluster;
  } catch (error) {
    const said = await Promise.all(
      services.filter((service) => !service.alive()).map(async (s) => `${s.name} said: ${await lastWords(s.logFile)}`),
    );
    await stopAll();
    throw new Error(
      `the Temporal cluster did not start: ${(error as Error).message}; its processes' logs are in ${options.dir}` +
        said.map((words) => `\n  ${words}`).join(''),
    );
  }
}

/**
 * The cluster's history shard count: the one it recorded at its first start, else the one asked, else the default. A
 * count asked that differs from the recorded one is refused: the server would silently keep the recorded one.
 */
function fixedShards(db: ClusterDatabase, recorded: number | undefined, asked: number | undefined): number {
  if (recorded !== undefined && asked !== undefined && asked !== recorded)
    throw new Error(
      `the cluster in database ${db.database} on ${db.host}:${db.port} has ${recorded} history shards, set when it ` +
        `was created: the count is fixed for a cluster's life, so it cannot start with ${asked}. Leave the count ` +
        `out (or give ${recorded}), or create a new cluster (another database or data folder)`,
    );
  return recorded ?? asked ?? DEFAULT_HISTORY_SHARDS;
}

/** Resolves once the first process has recorded the cluster's metadata with `address`; fails if it ends first. */
async function untilRecorded(
  db: ClusterDatabase,
  first: ClusterService,
  address: string,
  timeoutMs: number,
): Promise<void> {
  await untilAnswers({ exited: first.exited() }, `${db.host}:${db.port}/${db.database}`, timeoutMs, async () =>
    (await recordedCluster(db))?.clusterAddress === address ? true : undefined,
  );
}

/** Loopback ports free now for every process, the first frontend's gRPC port as asked. */
async function planPorts(
  counts: ServiceCounts,
  frontendPort: number | undefined,
): Promise<Record<ServiceKind, ServicePorts[]>> {
  const plan = {} as Record<ServiceKind, ServicePorts[]>;
  for (const kind of SERVICE_KINDS) {
    plan[kind] = [];
    for (let index = 0; index < counts[kind]; index++)
      plan[kind].push(
        await servicePorts(HOST, kind === 'frontend' && index === 0 ? frontendPort || undefined : undefined),
      );
  }
  return plan;
}

/** Frontends first (no new requests), the system worker, matching (no more dispatch), history last (it owns the state). */
const STOP_ORDER: readonly ServiceKind[] = ['frontend', 'worker', 'matching', 'history'];

function clusterOf(
  options: TemporalClusterOptions,
  services: ClusterService[],
  schema: SchemaStep[],
  historyShards: number,
  stop: () => Promise<void>,
): TemporalCluster & { version: string; untilStarted(timeoutMs: number): Promise<void> } {
  const frontends = services.filter((service) => service.kind === 'frontend').map((s) => `${HOST}:${s.ports.grpc}`);
  const address = frontends[0];
  const serving = async (exited: Promise<string>, timeoutMs: number) => {
    const watched = { exited };
    await untilAnswers(watched, address, timeoutMs, async () =>
      (await Promise.all(services.map((service) => listens(service.ports.grpc)))).every(Boolean) ? true : undefined,
    );
    await untilAnswers(watched, address, timeoutMs, () =>
      withConnection(address, async (connection) => {
        await registerNamespace(connection, options.namespace);
        await acceptsAStart(connection, options.namespace);
        return true;
      }),
    );
  };
  // At start-up, a process that ends (a bad config, a port lost) fails the start at once.
  const anyEnded = new Promise<string>((resolve) => {
    for (const service of services) void service.exited().then((how) => resolve(`${service.name} ended (${how})`));
  });
  return {
    address,
    frontends,
    namespace: options.namespace,
    version: 'unknown',
    historyShards,
    schema,
    services,
    service(name) {
      const found = services.find((service) => service.name === name);
      if (!found) throw new Error(`the cluster has no service ${name}: ${services.map((s) => s.name).join(', ')}`);
      return found;
    },
    untilServing: (timeoutMs = 120_000) => serving(NEVER, timeoutMs),
    async start(timeoutMs = 120_000) {
      for (const kind of [...STOP_ORDER].reverse())
        await Promise.all(services.filter((s) => s.kind === kind && !s.alive()).map((s) => s.start()));
      await serving(NEVER, timeoutMs);
    },
    untilStarted: (timeoutMs) => serving(anyEnded, timeoutMs),
    describe() {
      return services.map(
        (service) =>
          `${service.name.padEnd(11)} pid ${String(service.pid).padEnd(8)} gRPC ${HOST}:${service.ports.grpc}, ` +
          `membership ${service.ports.membership}, metrics http://${HOST}:${service.ports.metrics}/metrics, ` +
          `pprof ${service.ports.pprof}; log ${service.logFile}`,
      );
    },
    stop,
  };
}

const NEVER = new Promise<string>(() => undefined);

function listens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: HOST, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
