import type { RunningApi } from '../../client/server/index.js';
import { orderTaskQueue, type TemporalConfig } from '../../config/temporal.js';
import type { RunningWorker } from '../../worker/index.js';
import type { DevDatabase } from './database.js';
import type { EarlierOrders } from './earlier-orders.js';
import type { PortPlan } from './port-plan.js';
import type { DevSecrets } from './secrets.js';
import type { DevSimulator } from './simulator.js';
import { removeDevState, writeDevState, type DevState } from '../../client/cli/dev-state.js';
import { STOP_STEPS, type DevStops } from './stops.js';
import type { DevTemporal } from './temporal.js';
import type { DevReport } from './types.js';

/** Every part dev started or reused, as startDev settled them. */
export interface StartedDev {
  env: NodeJS.ProcessEnv;
  dataDir: string;
  temporalConfig: TemporalConfig;
  secrets: DevSecrets;
  database: DevDatabase;
  temporal: DevTemporal;
  earlier: EarlierOrders | undefined;
  simulator: DevSimulator | undefined;
  kindMapFile: string | undefined;
  /** engine-env.ts */
  engineEnv: NodeJS.ProcessEnv;
  api: RunningApi;
  worker: RunningWorker;
}

/**
 * Tells what runs: the state file other commands find dev by (removed first when dev stops), the ports kept for the
 * next start, and the report the start-up summary prints.
 */
export async function publishDev(dev: StartedDev, ports: PortPlan, stops: DevStops): Promise<DevReport> {
  const state = devState(dev);
  await writeDevState(state);
  await ports.remember();
  stops.add(STOP_STEPS.state, () => removeDevState(dev.dataDir));
  const { env, database, worker } = dev;
  return {
    state,
    taskQueue: orderTaskQueue(dev.temporalConfig.taskQueue, worker.dependencies.environment),
    embedded: { postgres: !env['DATABASE_URL'], simulator: dev.simulator !== undefined },
    temporalServer: dev.temporal.server,
    ...(dev.earlier ? { earlierOrders: dev.earlier } : {}),
    postgresDataDir: database.postgresDataDir,
    movedPorts: ports.moved,
    codecKeyId: dev.secrets.keyring.currentKeyId,
    codecKeyFromEnvironment: Boolean(env['MVE_CODEC_KEYS']?.trim()),
    callbackSecretFromEnvironment: Boolean(env['MVE_CALLBACK_SECRET']),
    seededApprovers: database.seededApprovers,
    users: database.users,
    policy: { version: worker.dependencies.policies.version, source: worker.dependencies.policies.source },
  };
}

function devState(dev: StartedDev): DevState {
  const { temporalConfig, temporal, simulator, kindMapFile } = dev;
  return {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    dataDir: dev.dataDir,
    temporal: {
      address: temporal.address,
      namespace: temporalConfig.namespace,
      taskQueue: temporalConfig.taskQueue,
      kind: temporal.server.kind === 'real' ? 'start-dev' : temporal.server.kind,
      ...(temporal.server.kind === 'external' ? {} : { uiUrl: temporal.server.uiUrl }),
    },
    databaseUrl: dev.database.url,
    api: {
      environment: dev.worker.dependencies.environment,
      baseUrl: dev.engineEnv['MVE_API_BASE_URL']!,
      ...(simulator ? { simulatorUrl: simulator.url } : {}),
      ...(simulator?.catalogKey ? { catalogKey: simulator.catalogKey } : {}),
    },
    ...(kindMapFile ? { kindMapFile } : {}),
    http: { url: dev.api.url },
    users: dev.database.users,
  };
}
