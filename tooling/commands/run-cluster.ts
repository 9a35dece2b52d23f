/**
 * `mve-orders cluster`: a Temporal cluster shaped like production, alone (tooling/temporal/cluster), for an operator to
 * try that shape or point their own `serve` and `worker` at: PostgreSQL (embedded in its own folder, or DATABASE_URL's
 * server), the cluster's processes and Temporal's Web UI server, until a signal or a process that ends on its own.
 */
import { join, relative } from 'node:path';
import { devDataDir } from '../../client/cli/dev-state.js';
import { redactDatabaseUrl } from '../../infra/db/index.js';
import { concretePort } from '../dev/ports.js';
import { startEmbeddedPostgres } from '../postgres/index.js';
import {
  clusterPostgresSettings,
  databaseOf,
  installClusterTools,
  startTemporalClusterOnFreePorts,
  startWebUiServer,
  type TemporalCluster,
  type WebUiServer,
} from '../temporal/cluster/index.js';
import { claimClusterFolder, removeClusterState, writeClusterState, type ClusterSummary } from './cluster-state.js';

export interface ClusterCommandOptions {
  port?: number;
  frontend?: number;
  history?: number;
  matching?: number;
  shards?: number;
  uiPort?: number;
  json?: boolean;
}

const HOST = '127.0.0.1';
const DEFAULT_PORT = 7233;
const DEFAULT_UI_PORT = 8233;

const log = (line: string) => process.stderr.write(`${line}\n`);

/** A part started, stopped in the reverse order: the Web UI, the cluster (frontends first), PostgreSQL last. */
interface Part {
  name: string;
  stop: () => Promise<void>;
  /** Settles, saying how, if it ends before it is stopped. */
  lost: Promise<string>;
}

export async function runCluster(options: ClusterCommandOptions): Promise<void> {
  const folder = join(devDataDir(process.env), 'cluster');
  await claimClusterFolder(folder);
  const parts: Part[] = [];
  let summary: ClusterSummary;
  try {
    summary = await startParts(options, folder, parts);
    await writeClusterState(folder, summary);
  } catch (error) {
    await stopParts(parts);
    throw error;
  }
  process.stdout.write(options.json ? `${JSON.stringify(summary)}\n` : describe(summary));
  const reason = await untilStopped(parts);
  log(`stopping (${reason.why})`);
  await removeClusterState(folder);
  await stopParts(parts);
  log('stopped');
  process.exitCode = reason.ok ? 0 : 1;
}

async function startParts(options: ClusterCommandOptions, folder: string, parts: Part[]): Promise<ClusterSummary> {
  const processes = (options.frontend ?? 1) + (options.history ?? 2) + (options.matching ?? 2) + 1;
  const postgres = await startDatabase(folder, parts, processes);
  const tools = await installClusterTools({ log });
  const namespace = process.env['TEMPORAL_NAMESPACE']?.trim() || 'default';
  let frontendPort: { port: number; note?: string } = { port: 0 };
  const cluster = await startTemporalClusterOnFreePorts(async () => {
    frontendPort = await chosenPort(options.port, DEFAULT_PORT, '--port');
    return {
      tools,
      dir: join(folder, 'temporal'),
      database: databaseOf(postgres.url),
      namespace,
      frontendPort: frontendPort.port,
      counts: {
        ...(options.frontend ? { frontend: options.frontend } : {}),
        ...(options.history ? { history: options.history } : {}),
        ...(options.matching ? { matching: options.matching } : {}),
      },
      ...(options.shards ? { historyShards: options.shards } : {}),
      log,
    };
  });
  parts.push({ name: 'Temporal cluster', stop: () => cluster.stop(), lost: anyEnded(cluster) });
  const uiPort = await chosenPort(options.uiPort, DEFAULT_UI_PORT, '--ui-port');
  const ui = await startWebUiServer({
    binary: tools.uiServer,
    dir: join(folder, 'temporal', 'web-ui'),
    host: HOST,
    port: uiPort.port,
    temporalAddress: cluster.address,
    namespace,
  });
  parts.push({ name: 'Web UI', stop: () => ui.stop(), lost: uiEnded(ui) });
  const moved = [frontendPort, uiPort].filter((port) => port.note).map((port) => port.note!);
  return summaryOf({ folder, postgres, cluster, ui, notes: moved });
}

/**
 * The embedded PostgreSQL in `<folder>/postgres`, with room for the connections of the cluster's processes on top of
 * PostgreSQL's default 100 (for a serve and a worker of yours on it), or DATABASE_URL's server.
 */
async function startDatabase(
  folder: string,
  parts: Part[],
  processes: number,
): Promise<{ url: string; embedded: boolean; dataDir?: string }> {
  const external = process.env['DATABASE_URL']?.trim();
  if (external) return { url: external, embedded: false };
  const server = await startEmbeddedPostgres({
    dataDir: join(folder, 'postgres'),
    settings: clusterPostgresSettings(processes),
  });
  parts.push({ name: 'PostgreSQL', stop: () => server.stop(), lost: server.exited });
  return { url: server.adminUrl, embedded: true, dataDir: server.dataDir };
}

/**
 * The port asked for, which must be free (0: any free one); without one, the default when free, else a free one, said
 * in a note.
 */
async function chosenPort(
  asked: number | undefined,
  preferred: number,
  option: string,
): Promise<{ port: number; note?: string }> {
  const choice = await concretePort(asked ?? preferred, HOST);
  if (!choice.taken) return { port: choice.port };
  if (asked !== undefined)
    throw new Error(`${option} ${asked}: the port is taken by another program; choose another, or 0 for any`);
  return {
    port: choice.port,
    note: `port ${preferred} is taken by another program; using port ${choice.port} (${option})`,
  };
}

const anyEnded = (cluster: TemporalCluster) =>
  Promise.race(
    cluster.services.map((service) =>
      service.exited().then((how) => `${service.name} (pid ${service.pid}) ended: ${how}; its log: ${service.logFile}`),
    ),
  );

const uiEnded = (ui: WebUiServer) =>
  ui.exited.then((how) => `the Web UI server (pid ${ui.pid}) ended: ${how}; its log: ${ui.logFile}`);

/** A signal (exit 0), or a part that ended on its own (exit 1): the first of them. */
function untilStopped(parts: Part[]): Promise<{ why: string; ok: boolean }> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      // A second one while stopping means "now"; the processes stop with this one, through their supervisors.
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      resolve({ why: signal, ok: true });
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    for (const part of parts) void part.lost.then((how) => resolve({ why: `${part.name}: ${how}`, ok: false }));
  });
}

/** Stops the parts started, last first, a line each. */
async function stopParts(parts: Part[]): Promise<void> {
  for (const part of parts.splice(0).reverse()) {
    await part.stop().then(
      () => log(`  ${part.name} stopped`),
      (error: unknown) => log(`  while stopping the ${part.name}: ${(error as Error).message}`),
    );
  }
}

function summaryOf(started: {
  folder: string;
  postgres: { url: string; embedded: boolean; dataDir?: string };
  cluster: TemporalCluster;
  ui: WebUiServer;
  notes: string[];
}): ClusterSummary {
  const { cluster, postgres, ui } = started;
  return {
    pid: process.pid,
    address: cluster.address,
    frontends: cluster.frontends,
    version: cluster.version,
    namespace: cluster.namespace,
    historyShards: cluster.historyShards,
    postgres: {
      url: redactDatabaseUrl(postgres.url),
      embedded: postgres.embedded,
      ...(postgres.dataDir ? { dataDir: postgres.dataDir } : {}),
      databases: [databaseOf(postgres.url).database, databaseOf(postgres.url).visibilityDatabase],
    },
    processes: cluster.services.map((service) => ({
      name: service.name,
      kind: service.kind,
      pid: service.pid,
      grpc: `${HOST}:${service.ports.grpc}`,
      membershipPort: service.ports.membership,
      metricsUrl: `http://${HOST}:${service.ports.metrics}/metrics`,
      pprofPort: service.ports.pprof,
      logFile: service.logFile,
    })),
    webUi: { url: ui.url, pid: ui.pid, logFile: ui.logFile },
    folder: started.folder,
    notes: started.notes,
  };
}

function describe(summary: ClusterSummary): string {
  const show = (path: string) =>
    relative(process.cwd(), path).startsWith('..') ? path : relative(process.cwd(), path);
  const lines = ['mve-orders cluster', ...summary.notes.map((note) => `  note: ${note}`)];
  const row = (label: string, value: string) => lines.push(`  ${label.padEnd(12)}${value}`);
  row('address', `${summary.address} (the first frontend; frontends: ${summary.frontends.join(', ')})`);
  row('version', `Temporal Server ${summary.version}, built from go.temporal.io/server`);
  row('namespace', `${summary.namespace} (the order's search attributes registered)`);
  row('shards', `${summary.historyShards} history shards, shared out by the history processes`);
  const { postgres } = summary;
  row(
    'PostgreSQL',
    `${postgres.url} (${postgres.embedded ? `embedded; data in ${show(postgres.dataDir!)}` : 'DATABASE_URL'}), ` +
      `databases ${postgres.databases.join(' and ')}`,
  );
  for (const each of summary.processes)
    row(
      each === summary.processes[0] ? 'processes' : '',
      `${each.name.padEnd(11)} pid ${String(each.pid).padEnd(8)} gRPC ${each.grpc.padEnd(16)} ` +
        `membership ${each.membershipPort}  metrics ${each.metricsUrl}  pprof ${each.pprofPort}  ` +
        `log ${show(each.logFile)}`,
    );
  row('Web UI', `${summary.webUi.url} (payloads shown as stored: encrypted by the engine's codec)`);
  row('folder', `${show(summary.folder)} (config files and logs in ${show(join(summary.folder, 'temporal'))})`);
  lines.push(
    '',
    `export TEMPORAL_ADDRESS=${summary.address}`,
    '',
    'ready: point `mve-orders serve` and `worker` at it with the line above (and DATABASE_URL and the rest: docs/deploy.md). Ctrl-C stops.',
    '',
  );
  return lines.join('\n');
}
