import { loadTemporalConfig } from '../../config/temporal.js';
import { settleApiPort, startDevApi } from './api.js';
import { followAttention } from './attention.js';
import { claimDataDir } from './data-folder.js';
import { startDevDatabase } from './database.js';
import { earlierOrders } from './earlier-orders.js';
import { engineEnv } from './engine-env.js';
import { writeSimKindMap } from './kind-map.js';
import { PortPlan } from './port-plan.js';
import { publishDev } from './report.js';
import { loadDevSecrets } from './secrets.js';
import { startDevSimulator } from './simulator.js';
import { DevStops } from './stops.js';
import { startDevTemporal } from './temporal.js';
import { requireTemporalCli } from './temporal-cli.js';
import type { DevOptions, RunningDev } from './types.js';
import { installQuietRuntime, startDevWorker } from './worker.js';

/**
 * The whole engine on one machine: embedded PostgreSQL (migrated, demo approvers seeded when none exist), Temporal's
 * own server (`temporal server start-dev`), the API simulator and a worker holding the simulator's staging key.
 * DATABASE_URL, TEMPORAL_ADDRESS and MVE_API_BASE_URL each replace the part they name.
 */
export async function startDev(options: DevOptions): Promise<RunningDev> {
  const { env, dataDir, log } = options;
  await claimDataDir(dataDir);
  const temporalConfig = loadTemporalConfig(env);
  const temporalCli = temporalConfig.address ? undefined : requireTemporalCli(env);
  const secrets = await loadDevSecrets(env, dataDir);
  const ports = await PortPlan.forStart(options, dataDir);
  const stops = new DevStops(log);
  try {
    const database = await startDevDatabase(env, dataDir, stops);
    // The real server's Web UI decodes payloads through the API's codec server, so the API's port is settled first.
    const apiPort = await settleApiPort(ports, temporalCli !== undefined);
    const temporal = await startDevTemporal({
      cli: temporalCli,
      config: temporalConfig,
      dataDir,
      apiPort: apiPort.port,
      ports,
      stops,
    });
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
