import type { TemporalConfig } from '../../config/temporal.js';
import type { DevDatabase } from './database.js';
import { HOST, type PortPlan } from './port-plan.js';
import { concretePort } from './ports.js';
import { startRealTemporal, type RunningRealTemporal } from './real-temporal.js';
import { NEVER_LOST, STOP_STEPS, watchUnaskedEnd, type DevStops } from './stops.js';
import type { TemporalCli } from './temporal-cli.js';
import { startDevCluster, type ClusterReport } from './temporal-cluster.js';
import type { DevTemporalKind } from './temporal-kind.js';
import { startWebUiFront, type WebUiFront } from './web-ui-front.js';

/** `dbFile`: where the server keeps its state; `openRuns`: the workflow runs open in it when it started. */
export type TemporalServerReport =
  | { kind: 'external' }
  | {
      kind: 'real';
      version: string;
      cli: TemporalCli;
      dbFile: string;
      openRuns: number;
      logFile: string;
      uiUrl: string;
    }
  | ClusterReport;

export interface DevTemporal {
  address: string;
  /** The Temporal server dev started, or none (TEMPORAL_ADDRESS). */
  server: TemporalServerReport;
  /** Resolves, saying how and where its log is, if the server dev started ends before dev stops it. */
  lost: Promise<string>;
  /** Where the real server's Web UI calls the API's codec server from, as 127.0.0.1 or as localhost. */
  uiOrigins: string[];
}

export interface DevTemporalOptions {
  env: NodeJS.ProcessEnv;
  /** start-dev (with `cli`) or a cluster (`--temporal cluster`); ignored when TEMPORAL_ADDRESS names a server. */
  kind: DevTemporalKind;
  /** The temporal CLI that runs start-dev; none for a cluster, or when TEMPORAL_ADDRESS names a server. */
  cli: TemporalCli | undefined;
  config: TemporalConfig;
  dataDir: string;
  /** The API's port: the Web UI decodes payloads through its codec server. */
  apiPort: number;
  ports: PortPlan;
  stops: DevStops;
  /** The cluster keeps its state on dev's PostgreSQL server. */
  database: DevDatabase;
  log: (line: string) => void;
}

/**
 * TEMPORAL_ADDRESS's server, else Temporal's own: `temporal server start-dev`, its state kept in the data folder, or a
 * cluster (temporal-cluster.ts), its state in PostgreSQL. Its Web UI is reached through dev's front (web-ui-front.ts)
 * on the Web UI's port, which has the UI decode payloads through the API's codec server with the browser's console
 * sign-in; start-dev's own UI server (or the cluster's UI server) listens behind it.
 */
export async function startDevTemporal(options: DevTemporalOptions): Promise<DevTemporal> {
  const { cli, config } = options;
  if (config.address) return { address: config.address, server: { kind: 'external' }, lost: NEVER_LOST, uiOrigins: [] };
  if (options.kind === 'cluster') return startDevCluster(options);
  if (!cli) throw new Error('start-dev needs a temporal CLI');
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options, cli);
    } catch (error) {
      if (attempt >= START_ATTEMPTS || !lostAPort(error)) throw error;
    }
  }
}

/**
 * Starts made in all: the ports dev picks are free when picked, but another program (or an outgoing connection's
 * local port) can take one before start-dev binds it; start-dev then exits saying so, and dev picks again.
 */
const START_ATTEMPTS = 3;

function lostAPort(error: unknown): boolean {
  return error instanceof Error && /address already in use/.test(error.message);
}

async function startOnce(options: DevTemporalOptions, cli: TemporalCli): Promise<DevTemporal> {
  const { config, ports } = options;
  const frontend = await ports.concrete('temporal');
  const preferredUi = await ports.preferredOrFree('temporalUi');
  const inner = await concretePort(0, HOST);
  const front = await startWebUiFront({
    host: HOST,
    port: preferredUi.port,
    upstreamPort: inner.port,
    apiPort: options.apiPort,
  });
  let server: RunningRealTemporal;
  try {
    server = await startRealTemporal({
      cli,
      dataDir: options.dataDir,
      host: HOST,
      port: frontend.port,
      uiPort: inner.port,
      namespace: config.namespace,
      codecEndpoint: `http://${HOST}:${options.apiPort}/codec`,
      readyTimeoutMs: 60_000,
    });
  } catch (error) {
    await front.close();
    throw error;
  }
  ports.got('temporal', 'Temporal', frontend.port, frontend.taken);
  ports.got('temporalUi', 'Temporal Web UI', front.port, preferredUi.taken || front.taken);
  return {
    address: server.address,
    server: {
      kind: 'real',
      version: server.version,
      cli,
      dbFile: server.dbFile,
      openRuns: server.openRuns,
      logFile: server.logFile,
      uiUrl: front.url,
    },
    lost: stopWithDev(server, front, options.stops),
    // The front's origins only: start-dev's own UI, behind it, does not send the browser's credentials.
    uiOrigins: [front.url, front.url.replace(`//${HOST}:`, '//localhost:')],
  };
}

/** Stopped with dev, its Web UI's front first (even when it had already ended: its log and pid file are closed then); its loss, if unasked. */
function stopWithDev(server: RunningRealTemporal, front: WebUiFront, stops: DevStops): Promise<string> {
  const end = watchUnaskedEnd(server.exited);
  stops.add(STOP_STEPS.temporal, async () => {
    const ended = end.ask();
    await front.close();
    await server.stop();
    if (ended) return `Temporal had already stopped (${ended})`;
  });
  return end.lost.then((how) => `${how}; its log: ${server.logFile}`);
}
