import { loadTemporalConfig, type TemporalConfig } from '../../config/temporal.js';
import { settleApiPort, startDevApi, type ApiPort } from './api.js';
import { followAttention } from './attention.js';
import { claimDataDir } from './data-folder.js';
import { startDevDatabase, type DevDatabase } from './database.js';
import { earlierOrders } from './earlier-orders.js';
import { engineEnv } from './engine-env.js';
import { writeSimKindMap } from './kind-map.js';
import { PortPlan } from './port-plan.js';
import { publishDev } from './report.js';
import { loadDevSecrets } from './secrets.js';
import { startDevSimulator } from './simulator.js';
import { DevStops } from './stops.js';
import { startDevTemporal, type DevTemporal } from './temporal.js';
import { CLUSTER_POSTGRES_SETTINGS } from './temporal-cluster.js';
import { requireTemporalCli } from './temporal-cli.js';
import { refuseStrandingSwitch, rememberTemporalKind } from './temporal-switch.js';
import type { DevOptions, RunningDev } from './types.js';
import { installQuietRuntime, startDevWorker } from './worker.js';

/**
 * The whole engine on one machine: embedded PostgreSQL (migrated, demo approvers seeded when none exist), Temporal's
 * own server (`temporal server start-dev`, or with `--temporal cluster` a cluster shaped like production), the API
 * simulator and a worker holding the simulator's staging key. DATABASE_URL, TEMPORAL_ADDRESS and MVE_API_BASE_URL
 * each replace the part they name.
 */
export async function startDev(options: DevOptions): Promise<RunningDev> {
  const { env, dataDir, log } = options;
  await claimDataDir(dataDir);
  const temporalConfig = loadTemporalConfig(env);
  const temporalCli = temporalConfig.address || options.temporal === 'cluster' ? undefined : requireTemporalCli(env);
  if (temporalConfig.address && options.temporal === 'cluster')
    throw new Error(
      `--temporal cluster starts a Temporal cluster of dev's own, and TEMPORAL_ADDRESS (${temporalConfig.address}) ` +
        'names a Temporal server of yours for dev to use instead: give one or the other',
    );
  const secrets = await loadDevSecrets(env, dataDir);
  const ports = await PortPlan.forStart(options, dataDir);
  const stops = new DevStops(log);
  try {
    const onCluster = options.temporal === 'cluster';
    const database = await startDevDatabase(env, dataDir, stops, onCluster ? CLUSTER_POSTGRES_SETTINGS : undefined);
    const { apiPort, temporal } = await startTemporal({ options, temporalConfig, temporalCli, database, ports, stops });
    const earlier = await earlierOrders({
      databaseUrl: database.url,
      temporal: { address: temporal.address, config: temporalConfig },
      drop: options.dropEarlierOrders ?? false,
    });
    const simulator = await startDevSimulator(env, ports, stops);
    const kindMapFile = env['MVE_KIND_MAP'] || (simulator ? await writeSimKindMap(dataDir) : undefined);

    installQuietRuntime();
    const engine = engineEnv({
      env,
      apiEnv: simulator?.apiEnv ?? {},
      callbackSecret: secrets.callbackSecret,
      simulated: simulator !== undefined,
      kindMapFile,
      temporalUiOrigins: temporal.uiOrigins,
    });
    // The API first: its URL is the console's, which the worker puts in its messages to approvers.
    const apiOptions = { port: apiPort, env: engine, temporal, database, secrets, log, ports, stops, simulator };
    const api = await startDevApi(apiOptions);
    const worker = await startDevWorker({
      env: { ...engine, MVE_CONSOLE_URL: env['MVE_CONSOLE_URL'] ?? api.url },
      temporalAddress: temporal.address,
      databaseUrl: database.url,
      secrets,
      log,
      stops,
    });
    await followAttention({ database, api, simulator, earlier, log, stops });

    const summary = await publishDev(
      {
        env,
        dataDir,
        temporalConfig,
        secrets,
        database,
        temporal,
        earlier,
        simulator,
        kindMapFile,
        engineEnv: engine,
        api,
        worker,
      },
      ports,
      stops,
    );
    return {
      ...summary,
      workerDone: worker.done,
      postgresLost: database.postgresLost,
      temporalLost: temporal.lost,
      stop: (report) => stops.stopAll(report),
    };
  } catch (error) {
    await stops.stopAll();
    throw error;
  }
}

/**
 * The Temporal dev runs on, once it takes an order's start; a switch of kind that would strand open orders is refused
 * (temporal-switch.ts). The Web UI of the Temporal dev starts decodes payloads through the API's codec server, so the
 * API's port is settled first.
 */
async function startTemporal(parts: {
  options: DevOptions;
  temporalConfig: TemporalConfig;
  temporalCli: ReturnType<typeof requireTemporalCli> | undefined;
  database: DevDatabase;
  ports: PortPlan;
  stops: DevStops;
}): Promise<{ apiPort: ApiPort; temporal: DevTemporal }> {
  const { options, temporalConfig, database } = parts;
  const kind = options.temporal ?? 'start-dev';
  const apiPort = await settleApiPort(parts.ports, !temporalConfig.address);
  const temporal = await startDevTemporal({
    env: options.env,
    kind,
    cli: parts.temporalCli,
    config: temporalConfig,
    dataDir: options.dataDir,
    apiPort: apiPort.port,
    ports: parts.ports,
    stops: parts.stops,
    database,
    log: options.log,
  });
  if (!temporalConfig.address) {
    const { dataDir } = options;
    const running = { address: temporal.address, config: temporalConfig };
    await refuseStrandingSwitch({ dataDir, kind, databaseUrl: database.url, temporal: running });
    await rememberTemporalKind(dataDir, kind);
  }
  return { apiPort, temporal };
}
