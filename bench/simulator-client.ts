/**
 * The ordering-API client a bench drives the API simulator with: staging, the simulator's own credentials. Each bench
 * brings its timeouts (a lookup bench gives up sooner than the order bench, whose worker waits as production's does).
 */
import { createApiClient, Secret, type ApiClient } from '../infra/ordering-api/index.js';
import { startSimulator, type Simulator } from '../tooling/sim/index.js';

export interface ClientTimeouts {
  connectTimeoutMs: number;
  responseTimeoutMs: number;
}

export function simulatorApiClient(sim: Simulator, timeouts: ClientTimeouts): ApiClient {
  return createApiClient({
    config: {
      environment: 'staging',
      baseUrl: sim.baseUrl,
      authUrl: sim.authUrl,
      clientId: sim.clientId,
      clientSecret: new Secret(sim.clientSecret),
      ...timeouts,
    },
  });
}

/** A simulator of its own and a client on it, for `use` alone: both closed after, whatever it did. */
export async function withSimulatorClient<T>(
  timeouts: ClientTimeouts,
  use: (sim: Simulator, client: ApiClient) => Promise<T>,
): Promise<T> {
  const sim = await startSimulator();
  const client = simulatorApiClient(sim, timeouts);
  try {
    return await use(sim, client);
  } finally {
    client.close();
    await sim.close();
  }
}
