import type { ProviderPortal } from '../../client/console/index.js';
import { startApiServer, type RunningApi } from '../../client/server/index.js';
import { kindMapFromEnv } from '../../infra/catalog/index.js';
import type { DevDatabase } from './database.js';
import { HOST, type PortPlan } from './port-plan.js';
import type { DevSecrets } from './secrets.js';
import { STOP_STEPS, type DevStops } from './stops.js';
import type { DevTemporal } from './temporal.js';

/** The API's port, chosen before the API starts, and `release`d for it to listen on. */
export interface ApiPort {
  port: number;
  taken: boolean;
  release: () => Promise<void>;
}

/**
 * The real Temporal server's Web UI is told the API's codec server before the API starts: then the API's port is
 * chosen now and held until the API listens. Otherwise the API takes the preferred port, or any.
 */
export async function settleApiPort(ports: PortPlan, forTemporalUi: boolean): Promise<ApiPort> {
  if (forTemporalUi) return ports.held('http');
  return { ...(await ports.preferredOrFree('http')), release: () => Promise.resolve() };
}

export interface DevApiOptions {
  port: ApiPort;
  /** engine-env.ts */
  env: NodeJS.ProcessEnv;
  temporal: DevTemporal;
  database: DevDatabase;
  secrets: DevSecrets;
  log: (line: string) => void;
  ports: PortPlan;
  stops: DevStops;
  /** The API simulator, when dev runs one (not for MVE_API_BASE_URL's API): the console links to its state. */
  simulator?: { url: string } | undefined;
}

/**
 * In dev the provider is the API simulator: what ops would look for in the provider's portal (the product an
 * uncertain buy created, one that did not go live) is in its `/_sim/state`, which the console links to.
 */
export function simulatorPortal(simulatorUrl: string): ProviderPortal {
  return {
    label: "the API simulator's /_sim/state, listing the products it created",
    url: `${simulatorUrl}/_sim/state`,
  };
}

/** The HTTP API and the console, with the seeded users signing in with one click. */
export async function startDevApi(options: DevApiOptions): Promise<RunningApi> {
  const { port, env, temporal, database, secrets, log } = options;
  await port.release();
  const api = await startApiServer({
    env,
    temporalAddress: temporal.address,
    // A server dev has just started may answer slowly on a loaded machine.
    ...(temporal.server.kind === 'real' ? { temporalConnectTimeoutMs: 60_000 } : {}),
    databaseUrl: database.url,
    codecKeys: secrets.keyring,
    actionKeys: secrets.actionKeys,
    kindMap: kindMapFromEnv(env),
    host: HOST,
    port: port.port,
    devUsers: database.users,
    ...(options.simulator ? { providerPortal: simulatorPortal(options.simulator.url) } : {}),
    log: (line) => log(`[http] ${line}`),
  });
  options.stops.add(STOP_STEPS.http, async () => void (await api.close()));
  options.ports.got('http', 'HTTP API', Number(new URL(api.url).port), port.taken);
  return api;
}
