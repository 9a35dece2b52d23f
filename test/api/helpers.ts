import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createApiClient,
  Secret,
  type ApiClient,
  type ApiClientOptions,
  type ApiConfig,
} from '../../infra/ordering-api/index.js';
import { vendorConfigSchema, type OrderObject } from '../../schemas/index.js';
import { startSimulator, type SimClient, type Simulator, type SimulatorOptions } from '../../tooling/sim/index.js';

/** Config of the API client pointed at one key of the simulator (by default its primary staging key). */
export function configFor(
  sim: Simulator,
  key: Pick<SimClient, 'environment' | 'clientId' | 'clientSecret'> = primaryKey(sim),
  overrides: Partial<ApiConfig> = {},
): ApiConfig {
  return {
    environment: key.environment,
    baseUrl: sim.environments[key.environment].baseUrl,
    authUrl: sim.environments[key.environment].authUrl,
    clientId: key.clientId,
    clientSecret: new Secret(key.clientSecret),
    connectTimeoutMs: 5_000,
    responseTimeoutMs: 15_000,
    ...overrides,
  };
}

export function primaryKey(sim: Simulator): SimClient {
  return {
    environment: sim.environment,
    clientId: sim.clientId,
    clientSecret: sim.clientSecret,
    role: 'Company Admin',
  };
}

export function keyWithRole(
  sim: Simulator,
  role: SimClient['role'],
  environment: SimClient['environment'] = 'staging',
): SimClient {
  const key = sim.clients.find((client) => client.role === role && client.environment === environment);
  if (!key) throw new Error(`the simulator has no ${role} key on ${environment}`);
  return key;
}

export interface SimAndClient {
  sim: Simulator;
  client: ApiClient;
  /** Closes the client, then the simulator; a function of its own, so tests take it apart from the rest. */
  close: () => Promise<void>;
}

/** A fresh simulator and a client of its primary key; close both at the end of the test. */
export async function simWithClient(
  simOptions: SimulatorOptions = {},
  clientOptions: Omit<ApiClientOptions, 'config'> & { config?: Partial<ApiConfig> } = {},
): Promise<SimAndClient> {
  const sim = await startSimulator(simOptions);
  const { config, ...rest } = clientOptions;
  const client = createApiClient({ ...rest, config: configFor(sim, primaryKey(sim), config) });
  return {
    sim,
    client,
    close: async () => {
      client.close();
      await sim.close();
    },
  };
}

/** An order object the simulator accepts: a cloud-managed appliance (token + exactly 2 vNICs) in an MVE location. */
export async function validOrder(client: ApiClient, overrides: { term?: OrderObject['term']; mveLabel?: string } = {}) {
  const [locations, images] = await Promise.all([client.listLocations(), client.listImages()]);
  const location = locations.find(
    (candidate) =>
      candidate.status === 'Active' &&
      Object.values(candidate.diversityZones ?? {}).some(
        (zone) => zone?.mveAvailable && (zone.mveMaxCpuCoreCount ?? 0) >= 32,
      ),
  );
  const group = images.data.mveImages.find((candidate) => candidate.vendor === 'Meraki');
  const image = group?.images.find((candidate) => candidate.releaseImage);
  if (!location || !image) throw new Error('the simulated catalog lacks an MVE location or a Meraki release image');
  const order: OrderObject = {
    locationId: location.id,
    productName: 'CHG-1042 edge',
    productType: 'MVE',
    term: overrides.term ?? 12,
    vendorConfig: vendorConfigSchema.parse({
      imageId: image.id,
      mveLabel: overrides.mveLabel ?? 'MVE 4/16',
      token: 'vendor-dashboard-token-123',
    }),
    vnics: [{ description: 'wan' }, { description: 'lan' }],
  };
  return { location, order };
}

/** A bare HTTP server standing in for an API that misbehaves in ways the simulator does not. */
export async function rawApi(
  t: { teardown(fn: () => void): void },
  answer: (res: ServerResponse, req: IncomingMessage) => void,
) {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/oauth2/token')
      res.end(JSON.stringify({ access_token: 'opaque-token', expires_in: 3600, token_type: 'Bearer' }));
    else answer(res, req);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = createApiClient({
    config: {
      environment: 'staging',
      baseUrl: url,
      authUrl: url,
      clientId: 'raw-key',
      clientSecret: new Secret('raw-secret-value'),
      connectTimeoutMs: 5_000,
      responseTimeoutMs: 15_000,
    },
  });
  t.teardown(() => {
    client.close();
    server.closeAllConnections();
    server.close();
  });
  return client;
}
