import { startSimulator } from '../sim/index.js';
import { HOST, type PortPlan } from './port-plan.js';
import type { DevState } from '../../client/cli/dev-state.js';
import { STOP_STEPS, type DevStops } from './stops.js';

export interface DevSimulator {
  url: string;
  /** Its Read Only key, with which `locations` and `images` list its catalog. */
  catalogKey: DevState['api']['catalogKey'];
  /** The ordering API the worker and the API server use: the simulator's staging API, with its Company Admin key. */
  apiEnv: NodeJS.ProcessEnv;
}

/** The API simulator, unless MVE_API_BASE_URL names a real ordering API (then undefined). */
export async function startDevSimulator(
  env: NodeJS.ProcessEnv,
  ports: PortPlan,
  stops: DevStops,
): Promise<DevSimulator | undefined> {
  if (env['MVE_API_BASE_URL']) return undefined;
  const { port, taken } = await ports.preferredOrFree('simulator');
  const sim = await startSimulator({ port, host: HOST });
  stops.add(STOP_STEPS.simulator, () => sim.close());
  ports.got('simulator', 'API simulator', Number(new URL(sim.url).port), taken);
  const readOnly = sim.clients.find((client) => client.environment === sim.environment && client.role === 'Read Only');
  return {
    url: sim.url,
    catalogKey: readOnly && { authUrl: sim.authUrl, clientId: readOnly.clientId, clientSecret: readOnly.clientSecret },
    apiEnv: {
      MVE_API_BASE_URL: sim.baseUrl,
      MVE_AUTH_URL: sim.authUrl,
      MVE_ENVIRONMENT: sim.environment,
      MVE_CLIENT_ID: sim.clientId,
      MVE_CLIENT_SECRET: sim.clientSecret,
    },
  };
}
