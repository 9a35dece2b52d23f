/**
 * The engine as a real deployment runs it, each part a process of its own that can be killed and started again:
 *
 * - PostgreSQL: an embedded server of its own (a copy of the tests' cached cluster), or DATABASE_URL's server (a
 *   scratch database on it, dropped at the end). `stopPostgres()` / `startPostgres()` stop it and start it again on
 *   the same data and port: an outage, not a new database. DATABASE_URL's server is not the cluster's to stop:
 *   those two then throw, saying so (`postgres.outage` says it beforehand); `postgres: 'embedded'` insists.
 * - Temporal (./temporal-part.ts): the real server (`temporal server start-dev --headless`, its state in a SQLite file,
 *   the order's search attributes registered), or with `temporal: 'cluster'` (or TOPOLOGY_TEMPORAL=cluster) a cluster
 *   shaped like production, its services processes of their own (`temporal.services`) on a PostgreSQL of its own.
 *   `stopTemporal()` / `startTemporal()` on the same port and state.
 * - The API simulator, in this process: the provider. It outlives everything and lists what was bought
 *   (`productsFor(ticket)`: requests made by `topologyRequest` carry the ticket in their product's name).
 * - `workers` order workers (`mve-orders worker`) and `servers` API servers (`mve-orders serve`), each a child process
 *   configured by environment variables only, as docs/running.md tells an operator (`deploymentEnv`). They are kept
 *   in numbered slots: `killWorker(i)` / `killServer(i)` SIGKILL one; `startWorker(i)` / `startServer(i)` start it
 *   again in its slot (a server on its port, where clients expect it), without an index a new slot.
 * - The migrations, applied once with `mve-orders migrate` before anything serves; approvers (fiona, dave, and the
 *   requesters alice, pat and quinn) and API tokens (`tokens`: ticket-bot, fiona, dave, olga).
 * - `http`: a round-robin client over the servers' slots that says which server answered and checks every error it
 *   gets (./round-robin.ts).
 *
 * Every child runs under a supervisor that stops it when this process ends, however it ends: a test that dies (a
 * timeout's SIGTERM, a SIGKILL) leaves no process behind. `stop()` stops everything, in order.
 *
 *   const cluster = await startCluster({ servers: 2, workers: 2 });
 *   const answer = await cluster.http.patient('POST', '/api/v1/orders', { as: 'ticket-bot', body: topologyRequest('T-1') });
 *   await cluster.killServer(answer.server);
 *   …
 *   await cluster.stop();
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeSimKindMap } from '../../tooling/dev/kind-map.js';
import { issueApiToken } from '../../client/http/index.js';
import {
  quoteIdentifier,
  startEmbeddedPostgres,
  type EmbeddedPostgresServer,
} from '../../tooling/dev/embedded-postgres.js';
import { connectDatabase, createRepository } from '../../infra/db/index.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../tooling/sim/index.js';
import { namedRequest } from '../helpers/api.js';
import { APPROVERS } from '../helpers/orders.js';
import { startCopyOfTemplate } from '../helpers/postgres.js';
import { runCli, startCliProcess, type CliProcess } from './cli-process.js';
import { RoundRobinClient } from './round-robin.js';
import type { ClusterService } from '../../tooling/temporal/cluster/index.js';
import {
  startTemporalPart,
  TEMPORAL_KIND_VARIABLE,
  temporalKindOf,
  type TemporalKind,
  type TemporalPart,
} from './temporal-part.js';

/** Who holds an API token, with what roles. */
export const CLUSTER_USERS = {
  'ticket-bot': ['ticket-system'],
  fiona: ['finance-approver'],
  dave: ['finance-director'],
  olga: ['ops'],
} as const;
export type ClusterUser = keyof typeof CLUSTER_USERS;

export interface ClusterOptions {
  /** API servers to start (default 2). */
  servers?: number;
  /** Order workers to start (default 2). */
  workers?: number;
  /** Which Temporal: start-dev's single process, or a cluster shaped like production (default: TOPOLOGY_TEMPORAL, else start-dev). */
  temporal?: TemporalKind;
  /** `embedded` even when DATABASE_URL is set (a PostgreSQL outage needs a server the cluster may stop). */
  postgres?: 'auto' | 'embedded';
  /** The simulator's options (faults, provisioning times…); by default products go LIVE 2 s after the buy. */
  sim?: SimulatorOptions;
  /** Variables added to (or replacing) every worker's and server's. */
  env?: Record<string, string>;
  /** Each line the children print, and what the cluster does. Default: nowhere. */
  log?: (line: string) => void;
}

export interface ProcessSlot {
  readonly index: number;
  /** The process in the slot now (the last one, when killed). */
  readonly pid: number;
  alive(): boolean;
}

export interface ServerSlot extends ProcessSlot {
  /** Its base URL; the same after a restart in its slot. */
  readonly url: string;
}

export interface Cluster {
  postgres: {
    kind: 'embedded' | 'external';
    /** DATABASE_URL of every worker and server. */
    url: string;
    /** Why the PostgreSQL outage cannot be made, when it cannot (DATABASE_URL's server). */
    outage: string | undefined;
  };
  temporal: {
    kind: TemporalKind;
    address: string;
    /** The orders' namespace. */
    namespace: string;
    /** What runs it, in a line. */
    describe: string;
    /** The cluster's processes (none for start-dev), each of which can be killed and started again. */
    services: readonly ClusterService[];
  };
  sim: Simulator;
  tokens: Record<ClusterUser, string>;
  http: RoundRobinClient;
  servers: readonly ServerSlot[];
  workers: readonly ProcessSlot[];
  /** Every server's base URL, by slot (killed ones included: their port refuses until started again). */
  serverUrls(): string[];
  /** What runs, a line each. */
  describe(): string;
  /** SIGKILL the server in slot `index`; resolves once it is gone. */
  killServer(index: number): Promise<void>;
  /** Starts a server in slot `index` (on its port), or in a new slot; resolves to the slot once it listens. */
  startServer(index?: number): Promise<number>;
  killWorker(index: number): Promise<void>;
  /** Starts a worker in slot `index`, or in a new slot; resolves to the slot once it polls. */
  startWorker(index?: number): Promise<number>;
  /** PostgreSQL's fast shutdown (connections cut); its data and port are kept. */
  stopPostgres(): Promise<void>;
  startPostgres(): Promise<void>;
  /** Temporal stopped (gracefully; a cluster's every process), its state and port kept. */
  stopTemporal(): Promise<void>;
  startTemporal(): Promise<void>;
  /** The products the simulator created for a ticket of `topologyRequest`. */
  productsFor(ticketId: string): ReturnType<Simulator['state']>['products'];
  stop(): Promise<void>;
}

/** A request (ticket-bot's, for alice, Sydney) whose product name carries the ticket, so products count per ticket. */
export function topologyRequest(ticketId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return namedRequest(ticketId, overrides);
}

const NAMESPACE = 'default';
/** The cluster's scratch folder (Temporal's SQLite file, the kind map): `<tmp>/mve-topology-<pid>-…`. */
const DIR_PREFIX = 'mve-topology-';
const DATABASE = 'mve_orders';
/** What a worker and a server print once they serve (client/cli/commands/worker.ts, serve.ts). */
const WORKER_READY = /worker polling \S+ on /;
const SERVER_READY = /HTTP API listening on (http:\/\/\S+) /;

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const log = options.log ?? (() => undefined);
  await sweepAbandonedDirs();
  const dir = await mkdtemp(path.join(tmpdir(), `${DIR_PREFIX}${process.pid}-`));
  const undo: Array<() => Promise<void>> = [async () => rm(dir, { recursive: true, force: true })];
  const cleanUp = async () => {
    for (const step of undo.splice(0).reverse()) await step().catch((error: Error) => log(`stop: ${error.message}`));
  };
  try {
    const [postgres, sim] = await Promise.all([
      startPostgresPart(options.postgres ?? 'auto', undo),
      startSimulator({ provisioning: { configuredAfterMs: 1_000, liveAfterMs: 2_000 }, ...options.sim }),
    ]);
    undo.push(() => sim.close());
    const kindMapFile = await writeSimKindMap(dir);
    const base = {
      ...withoutDeploymentVariables(process.env),
      DATABASE_URL: postgres.url,
      TEMPORAL_NAMESPACE: NAMESPACE,
      MVE_CODEC_KEYS: `topology:${randomBytes(32).toString('base64')}`,
      MVE_ACTION_KEY: `topology-action:${randomBytes(32).toString('base64')}`,
      MVE_KIND_MAP: kindMapFile,
    };
    // Migrations first, as docs/running.md asks of a deployment (serve and worker expect the schema), then the
    // directory and the tokens; Temporal meanwhile.
    const [temporal, tokens] = await Promise.all([
      startTemporalPart({
        kind: options.temporal ?? temporalKindOf(process.env[TEMPORAL_KIND_VARIABLE]),
        namespace: NAMESPACE,
        dir,
        log,
        undo,
      }),
      runCli(['migrate'], base).then(async (output) => {
        log(output.trim());
        return seedDirectory(postgres.url);
      }),
    ]);
    const workerEnv = {
      ...base,
      TEMPORAL_ADDRESS: temporal.address,
      MVE_API_BASE_URL: sim.baseUrl,
      MVE_AUTH_URL: sim.authUrl,
      MVE_ENVIRONMENT: 'staging',
      MVE_CLIENT_ID: sim.clientId,
      MVE_CLIENT_SECRET: sim.clientSecret,
      // the simulator's products go live in seconds: read them as often
      MVE_PROVISIONING_POLL: '1s',
      MVE_PROVISIONING_POLL_MAX: '2s',
      ...options.env,
    };
    const serverEnv = {
      ...base,
      TEMPORAL_ADDRESS: temporal.address,
      MVE_ENVIRONMENTS: 'staging',
      // the tests' clients poll far more often than a ticket system would
      MVE_RATE_LIMIT: '0',
      ...options.env,
    };

    const slots = processSlots({ worker: workerEnv, server: serverEnv }, log, undo);
    await Promise.all([
      ...Array.from({ length: options.workers ?? 2 }, (_, index) => slots.startWorker(index)),
      ...Array.from({ length: options.servers ?? 2 }, (_, index) => slots.startServer(index)),
    ]);
    const cluster = clusterOf({ postgres, temporal, sim, tokens, slots, log, stop: cleanUp });
    log(cluster.describe());
    return cluster;
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

type WorkerEntry = { index: number; process: CliProcess };
type ServerEntry = WorkerEntry & { port: number; url: string };

/** The cluster's workers and API servers in numbered slots; a slot started again keeps its place (a server its port). */
interface ProcessSlots {
  workers: WorkerEntry[];
  servers: ServerEntry[];
  startWorker: (index?: number) => Promise<number>;
  startServer: (index?: number) => Promise<number>;
}

function processSlots(
  env: { worker: NodeJS.ProcessEnv; server: NodeJS.ProcessEnv },
  log: (line: string) => void,
  undo: Array<() => Promise<void>>,
): ProcessSlots {
  const workers: WorkerEntry[] = [];
  const servers: ServerEntry[] = [];
  undo.push(() => Promise.all(workers.map((worker) => worker.process.stop())).then(() => undefined));
  undo.push(() => Promise.all(servers.map((server) => server.process.stop())).then(() => undefined));
  return {
    workers,
    servers,
    startWorker: async (index = workers.length) => {
      if (workers[index]?.process.alive()) throw new Error(`worker ${index} is running: kill it first`);
      const started = await startCliProcess({
        args: ['worker'],
        env: env.worker,
        readyPattern: WORKER_READY,
        name: `worker ${index}`,
        log,
      });
      workers[index] = { index, process: started };
      log(`worker ${index} (pid ${started.pid}) polls`);
      return index;
    },
    startServer: async (index = servers.length) => {
      const slot = servers[index];
      if (slot?.process.alive()) throw new Error(`server ${index} is running: kill it first`);
      const started = await startCliProcess({
        args: ['serve', '--host', '127.0.0.1', '--port', String(slot?.port ?? 0)],
        env: env.server,
        readyPattern: SERVER_READY,
        name: `server ${index}`,
        log,
      });
      const url = started.ready[1];
      servers[index] = { index, process: started, url, port: Number(new URL(url).port) };
      log(`server ${index} (pid ${started.pid}) listens on ${url}`);
      return index;
    },
  };
}

/** The cluster's face over its running parts. */
function clusterOf(parts: {
  postgres: PostgresPart;
  temporal: TemporalPart;
  sim: Simulator;
  tokens: Record<ClusterUser, string>;
  slots: ProcessSlots;
  log: (line: string) => void;
  stop: () => Promise<void>;
}): Cluster {
  const { postgres, temporal, sim, tokens, slots, log } = parts;
  const { workers, servers } = slots;
  const slot = (entry: WorkerEntry) => ({
    index: entry.index,
    get pid() {
      return entry.process.pid;
    },
    alive: () => entry.process.alive(),
  });
  const serverUrls = () => servers.map((server) => server.url);
  return {
    postgres: { kind: postgres.kind, url: postgres.url, outage: postgres.outage },
    temporal: {
      kind: temporal.kind,
      address: temporal.address,
      namespace: NAMESPACE,
      describe: temporal.describe,
      services: temporal.services,
    },
    sim,
    tokens,
    http: new RoundRobinClient(serverUrls, tokens),
    get servers() {
      return servers.map((server) => ({ ...slot(server), url: server.url }));
    },
    get workers() {
      return workers.map(slot);
    },
    serverUrls,
    describe: () =>
      [
        `PostgreSQL   ${postgres.kind === 'embedded' ? 'embedded' : 'DATABASE_URL'}: ${postgres.redactedUrl}`,
        `Temporal     ${temporal.describe}`,
        `simulator    ${sim.url}`,
        ...workers.map((worker) => `worker ${worker.index}     pid ${worker.process.pid}`),
        ...servers.map((server) => `server ${server.index}     pid ${server.process.pid}, ${server.url}`),
      ].join('\n'),
    async killServer(index) {
      await slotOf(servers, index, 'server').process.kill();
      log(`server ${index} killed`);
    },
    startServer: slots.startServer,
    async killWorker(index) {
      await slotOf(workers, index, 'worker').process.kill();
      log(`worker ${index} killed`);
    },
    startWorker: slots.startWorker,
    stopPostgres: () => postgres.stop(),
    startPostgres: () => postgres.start(),
    stopTemporal: () => temporal.stop(),
    startTemporal: () => temporal.start(),
    productsFor: (ticketId) =>
      sim.state().products.filter((product) => product.serviceName?.startsWith(`${ticketId} firewall [`)),
    stop: parts.stop,
  };
}

/** Scratch folders of clusters whose process was killed before it could remove them. */
async function sweepAbandonedDirs(): Promise<void> {
  for (const name of await readdir(tmpdir()).catch(() => [])) {
    const pid = Number(new RegExp(`^${DIR_PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (pid > 0 && !isAlive(pid)) await rm(path.join(tmpdir(), name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function slotOf<T>(slots: T[], index: number, what: string): T {
  const slot = slots[index];
  if (!slot) throw new Error(`there is no ${what} ${index} (slots 0 to ${slots.length - 1})`);
  return slot;
}

/** The runner's environment without any variable that configures a deployment: the cluster sets those itself. */
function withoutDeploymentVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !/^(MVE_|TEMPORAL_|DATABASE_URL$)/.test(name)));
}

interface PostgresPart {
  kind: 'embedded' | 'external';
  url: string;
  redactedUrl: string;
  outage: string | undefined;
  stop(): Promise<void>;
  start(): Promise<void>;
}

async function startPostgresPart(choice: 'auto' | 'embedded', undo: Array<() => Promise<void>>): Promise<PostgresPart> {
  const external = choice === 'auto' ? process.env['DATABASE_URL']?.trim() : undefined;
  let server: EmbeddedPostgresServer | undefined;
  if (!external) {
    server = await startCopyOfTemplate();
    const { dataDir } = server;
    undo.push(async () => {
      await server!.stop();
      await rm(dataDir, { recursive: true, force: true });
    });
  }
  const admin = connectDatabase(external ?? server!.adminUrl, { maxConnections: 1 });
  const name = external ? `mve_topology_${process.pid}_${randomBytes(3).toString('hex')}` : DATABASE;
  try {
    await admin.unsafe(`CREATE DATABASE ${quoteIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(external ?? server!.adminUrl);
  url.pathname = `/${name}`;
  const redacted = new URL(url);
  redacted.password = '***';
  if (external) {
    undo.push(async () => {
      const sql = connectDatabase(external, { maxConnections: 1 });
      await sql.unsafe(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
      await sql.end();
    });
    const outage =
      "the PostgreSQL outage cannot be made on DATABASE_URL's server, which is not the cluster's to stop: " +
      "start the cluster with postgres: 'embedded' (or unset DATABASE_URL)";
    const refuse = () => Promise.reject(new Error(outage));
    return {
      kind: 'external',
      url: url.toString(),
      redactedUrl: redacted.toString(),
      outage,
      stop: refuse,
      start: refuse,
    };
  }
  let stopped = false;
  return {
    kind: 'embedded',
    url: url.toString(),
    redactedUrl: redacted.toString(),
    outage: undefined,
    async stop() {
      stopped = true;
      await server!.stop();
    },
    async start() {
      if (!stopped) throw new Error('PostgreSQL runs: stop it first');
      const { dataDir, port } = server!;
      server = await startEmbeddedPostgres({ dataDir, port, ephemeral: true, database: name });
      stopped = false;
    },
  };
}

/** The approver directory (the requesters of the tickets too) and an API token for each cluster user. */
async function seedDirectory(url: string): Promise<Record<ClusterUser, string>> {
  const sql = connectDatabase(url, { maxConnections: 2 });
  try {
    const repository = createRepository(sql);
    for (const approver of APPROVERS) await repository.addApprover({ ...approver, roles: [...approver.roles] });
    const tokens = {} as Record<ClusterUser, string>;
    for (const [owner, roles] of Object.entries(CLUSTER_USERS) as Array<[ClusterUser, readonly string[]]>)
      tokens[owner] = (await issueApiToken(repository, { owner, roles: [...roles] })).token;
    return tokens;
  } finally {
    await sql.end();
  }
}
