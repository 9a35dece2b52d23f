/**
 * dev's Temporal as a cluster shaped like production (`mve-orders dev --temporal cluster`): Temporal's server built
 * from its Go module (built first when missing), one frontend, two history, two matching and one worker service, each
 * a process of its own, their state in dev's PostgreSQL server (databases `temporal` and `temporal_visibility`), their
 * config files and logs in `<data folder>/temporal-cluster/`. Temporal's Web UI server runs behind dev's Web UI front,
 * as start-dev's own UI does, decoding payloads through the API's codec server.
 */
import { join } from 'node:path';
import type { TemporalConfig } from '../../config/temporal.js';
import {
  clusterPostgresSettings,
  databaseOf,
  DEFAULT_SERVICE_COUNTS,
  installClusterTools,
  READY_PROBE_TYPE,
  startTemporalClusterOnFreePorts,
  startWebUiServer,
  type ClusterTools,
  type TemporalCluster,
  type WebUiServer,
} from '../temporal/cluster/index.js';

import { withConnection } from '../temporal/start-dev-server.js';
import type { DevDatabase } from './database.js';
import { HOST, type PortPlan } from './port-plan.js';
import { concretePort } from './ports.js';
import { STOP_STEPS, watchUnaskedEnd, type DevStops } from './stops.js';
import { DEV_CLUSTER_DIR } from './temporal-switch.js';
import { startWebUiFront, type WebUiFront } from './web-ui-front.js';

/**
 * dev's embedded PostgreSQL with the cluster on it: room for the cluster's connections (config.ts) on top of
 * PostgreSQL's default 100, which the product's pools fit in.
 */
export const CLUSTER_POSTGRES_SETTINGS = clusterPostgresSettings(
  Object.values(DEFAULT_SERVICE_COUNTS).reduce((a, b) => a + b),
);

export interface DevClusterOptions {
  env: NodeJS.ProcessEnv;
  config: TemporalConfig;
  dataDir: string;
  database: DevDatabase;
  /** The API's port: the Web UI decodes payloads through its codec server. */
  apiPort: number;
  ports: PortPlan;
  stops: DevStops;
  log: (line: string) => void;
}

/** One process of the cluster, as the start-up summary lists it. */
export interface ClusterProcessReport {
  name: string;
  pid: number;
  grpc: string;
  metricsUrl: string;
  logFile: string;
}

export interface ClusterReport {
  kind: 'cluster';
  version: string;
  historyShards: number;
  /** Where its config files and logs are. */
  dir: string;
  /** Where its state is, in words: the embedded PostgreSQL, or DATABASE_URL's server. */
  database: string;
  processes: ClusterProcessReport[];
  /** Workflow runs open in it when it started: orders carried over from an earlier run of dev. */
  openRuns: number;
  uiUrl: string;
  uiLogFile: string;
}

/** dev's Temporal (temporal.ts DevTemporal), as a cluster. */
export interface DevCluster {
  address: string;
  server: ClusterReport;
  lost: Promise<string>;
  uiOrigins: string[];
}

export async function startDevCluster(options: DevClusterOptions): Promise<DevCluster> {
  const { ports, log } = options;
  const tools = await installClusterTools({ log });
  const dir = join(options.dataDir, DEV_CLUSTER_DIR);
  const parts: RunningParts = {};
  const { lost, watch } = stopWithDev(parts, options.stops);
  let frontend = { port: 0, taken: false };
  parts.cluster = await startTemporalClusterOnFreePorts(async () => {
    frontend = await ports.concrete('temporal');
    const database = databaseOf(options.database.url);
    return { tools, dir, database, namespace: options.config.namespace, frontendPort: frontend.port, log };
  });
  ports.got('temporal', 'Temporal', frontend.port, frontend.taken);
  await startWebUi(parts, tools, dir, options);
  const { cluster, front, ui } = parts as Required<RunningParts>;
  watch();
  return {
    address: cluster.address,
    server: {
      kind: 'cluster',
      version: cluster.version,
      historyShards: cluster.historyShards,
      dir,
      database: options.env['DATABASE_URL']
        ? "DATABASE_URL's server, databases temporal and temporal_visibility"
        : 'the embedded PostgreSQL, databases temporal and temporal_visibility',
      processes: cluster.services.map((service) => ({
        name: service.name,
        pid: service.pid,
        grpc: `${HOST}:${service.ports.grpc}`,
        metricsUrl: `http://${HOST}:${service.ports.metrics}/metrics`,
        logFile: service.logFile,
      })),
      openRuns: await openRuns(cluster),
      uiUrl: front.url,
      uiLogFile: ui.logFile,
    },
    lost,
    // The front's origins only: the UI server behind it is not told the browser's credentials.
    uiOrigins: [front.url, front.url.replace(`//${HOST}:`, '//localhost:')],
  };
}

interface RunningParts {
  cluster?: TemporalCluster;
  front?: WebUiFront;
  ui?: WebUiServer;
}

/** The UI server on a port of its own, behind dev's front on the Web UI's port (web-ui-front.ts). */
async function startWebUi(parts: RunningParts, tools: ClusterTools, dir: string, options: DevClusterOptions) {
  const { ports } = options;
  const preferred = await ports.preferredOrFree('temporalUi');
  const inner = await concretePort(0, HOST);
  const front = (parts.front = await startWebUiFront({
    host: HOST,
    port: preferred.port,
    upstreamPort: inner.port,
    apiPort: options.apiPort,
  }));
  parts.ui = await startWebUiServer({
    binary: tools.uiServer,
    dir: join(dir, 'web-ui'),
    host: HOST,
    port: inner.port,
    temporalAddress: parts.cluster!.address,
    namespace: options.config.namespace,
    codec: { endpoint: `http://${HOST}:${options.apiPort}/codec`, includeCredentials: true },
    origins: [front.url, front.url.replace(`//${HOST}:`, '//localhost:')],
  });
  ports.got('temporalUi', 'Temporal Web UI', front.port, preferred.taken || front.taken);
}

/**
 * Stopped with dev, after the worker: the UI's front and server, then the cluster, frontends first (cluster.ts).
 * `watch()`, once every part runs, follows them: `lost` resolves, saying which and where its log is, when a process
 * ends before dev asks (killed, crashed).
 */
function stopWithDev(parts: RunningParts, stops: DevStops): { lost: Promise<string>; watch: () => void } {
  let ended: (how: string) => void = () => undefined;
  const end = watchUnaskedEnd(new Promise<string>((resolve) => (ended = resolve)));
  stops.add(STOP_STEPS.temporalCluster, async () => {
    const already = end.ask();
    await parts.front?.close();
    await parts.ui?.stop();
    await parts.cluster?.stop();
    if (already) return `Temporal cluster stopped (${already}, before dev stopped it)`;
  });
  const watch = () => {
    const { cluster, ui } = parts;
    const exits = (cluster?.services ?? []).map((service) =>
      service.exited().then((how) => `${service.name} (pid ${service.pid}) ended: ${how}; its log: ${service.logFile}`),
    );
    if (ui)
      exits.push(ui.exited.then((how) => `its Web UI server (pid ${ui.pid}) ended: ${how}; its log: ${ui.logFile}`));
    void Promise.race(exits).then(ended);
  };
  return { lost: end.lost, watch };
}

/** Workflow runs open in the cluster, bar its readiness probes (register.ts), which it ends at once. */
async function openRuns(cluster: TemporalCluster): Promise<number> {
  return withConnection(cluster.address, async (connection) => {
    const { count } = await connection.workflowService.countWorkflowExecutions({
      namespace: cluster.namespace,
      query: `ExecutionStatus = "Running" AND WorkflowType != "${READY_PROBE_TYPE}"`,
    });
    return Number(count ?? 0);
  });
}
