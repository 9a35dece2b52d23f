/**
 * Public face of sim/: an HTTP server that behaves like the ordering API of spec section 4 (DESIGN.md
 * section 5) for tests, demos and benchmarks. Each environment is addressed by a path prefix on one port:
 * `{url}/staging` and `{url}/production` are base URL and token host at once (`/oauth2/token` beside
 * `/v3/locations`). Keys and tokens belong to one environment. `/_sim/...` is the admin surface.
 */
import type { AddressInfo } from 'node:net';
import {
  DEFAULT_PROVISIONING,
  DEFAULT_SEED,
  DEFAULT_TOKEN_TTL_SECONDS,
  SIM_PRODUCT_READ_MODES,
  type SimProductReadMode,
} from './defaults.js';
import { defaultClients, SIM_ENVIRONMENTS, TokenAuthority, type SimClient, type SimEnvironment } from './auth.js';
import { checked, priceFactorSchema, snapshot } from './admin.js';
import { FaultBook, SIM_ENDPOINTS, type FaultInput, type SimEndpoint } from './faults.js';
import { generateImageGroups } from './images.js';
import { SIM_KIND_MAP, type SimKindMap } from './kind-map.js';
import { DEFAULT_LOCATION_COUNT, generateLocations } from './locations.js';
import { productReadModeSchema } from './products.js';
import { provisioningTimesSchema, type SimProvisioningTimes } from './provisioning.js';
import { ADMIN_PREFIX, createSimServer } from './server.js';
import type { SimState } from './state.js';
import { generateVariants } from './variants.js';

export type { SimClient, SimEnvironment, SimRole } from './auth.js';
export type { FaultInput, SimEndpoint } from './faults.js';
export type { SimProduct } from './state.js';
export type { SimProductReadMode } from './defaults.js';
export { SIM_FAILED_STATUSES } from './provisioning.js';
export type { SimFailedStatus, SimProvisioningStatus, SimProvisioningTimes, SimTimeline } from './provisioning.js';
export { priceOf } from './pricing.js';
export { EXTRA_SIZE_LABEL } from './images.js';
export { SIM_KIND_MAP } from './kind-map.js';
export type { SimKindMap, SimKindMapEntry } from './kind-map.js';

export interface SimulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** Seed of the generated catalog; the same seed serves the same locations. */
  seed?: number;
  tokenTtlSeconds?: number;
  /** API keys accepted; by default a Company Admin and a Read Only key on staging and an admin key on production. */
  clients?: SimClient[];
  locationCount?: number;
  /** Image families and their kinds; by default SIM_KIND_MAP (the families of the default kind map, and one for K5). */
  kindMap?: SimKindMap;
  /** Faults armed from the start, as if injected through injectFault. */
  faults?: FaultInput[];
  /** When bought products become CONFIGURED and LIVE; DEFAULT_PROVISIONING (3 s, 8 s) by default. */
  provisioning?: SimProvisioningTimes;
  /** Whether the product read is offered (the default) or answers every read 404 or 405. */
  productRead?: SimProductReadMode;
  /** One line per request (method, path, status, time); never credentials. */
  log?: (line: string) => void;
}

export interface Simulator {
  /** Root URL of the server, e.g. http://127.0.0.1:4010. */
  url: string;
  /** Base URL and token host of each environment. */
  environments: Record<SimEnvironment, { baseUrl: string; authUrl: string }>;
  /** The primary key (the first Company Admin key of staging) and its environment's URLs. */
  environment: SimEnvironment;
  baseUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: string;
  clients: readonly SimClient[];
  /** Arms a fault for the next call(s) of an endpoint; throws on an invalid fault. */
  injectFault(fault: FaultInput): void;
  clearFaults(): void;
  /** Every token issued so far expires now. */
  expireTokens(): void;
  /** Every price from now on is the price model's times `factor` (1 restores it); throws unless 0 < factor ≤ 100. */
  setPriceFactor(factor: number): void;
  /** The course of each product bought from now on (products bought before keep theirs); throws on bad times. */
  setProvisioning(times: SimProvisioningTimes): void;
  setProductRead(mode: SimProductReadMode): void;
  /** Calls served per endpoint, tokens issued, products created (with their status now), faults still armed, settings. */
  state(): ReturnType<typeof snapshot>;
  close(): Promise<void>;
}

export { DEFAULT_PROVISIONING, DEFAULT_SEED, DEFAULT_TOKEN_TTL_SECONDS, SIM_PRODUCT_READ_MODES };
export const SIM_ADMIN_PREFIX = ADMIN_PREFIX;

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const clients = options.clients ?? defaultClients();
  const primary = clients.find((c) => c.environment === 'staging' && c.role === 'Company Admin') ?? clients[0];
  if (!primary) throw new Error('startSimulator: clients must name at least one API key');
  const state: SimState = {
    authority: new TokenAuthority(clients, options.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS),
    faults: new FaultBook(),
    catalog: {
      kindMap: options.kindMap ?? SIM_KIND_MAP,
      locations: generateLocations(options.seed ?? DEFAULT_SEED, options.locationCount ?? DEFAULT_LOCATION_COUNT),
      imageGroups: generateImageGroups(options.kindMap ?? SIM_KIND_MAP),
      variants: generateVariants(),
      priceFactor: 1,
    },
    products: [],
    provisioning: checked(
      provisioningTimesSchema,
      options.provisioning ?? DEFAULT_PROVISIONING,
      'startSimulator: invalid provisioning',
    ),
    productRead: checked(
      productReadModeSchema,
      options.productRead ?? 'offered',
      'startSimulator: invalid productRead',
    ),
    calls: Object.fromEntries(SIM_ENDPOINTS.map((endpoint) => [endpoint, 0])) as Record<SimEndpoint, number>,
  };
  for (const fault of options.faults ?? []) state.faults.inject(fault);
  const server = createSimServer(state, options.log);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  const environments = Object.fromEntries(
    SIM_ENVIRONMENTS.map((environment) => [
      environment,
      { baseUrl: `${url}/${environment}`, authUrl: `${url}/${environment}` },
    ]),
  ) as Simulator['environments'];
  return {
    url,
    environments,
    environment: primary.environment,
    baseUrl: environments[primary.environment].baseUrl,
    authUrl: environments[primary.environment].authUrl,
    clientId: primary.clientId,
    clientSecret: primary.clientSecret,
    clients,
    injectFault: (fault) => void state.faults.inject(fault),
    clearFaults: () => state.faults.clear(),
    expireTokens: () => state.authority.expireAll(),
    setPriceFactor: (factor) => {
      state.catalog.priceFactor = priceFactorSchema.parse(factor);
    },
    setProvisioning: (times) => {
      state.provisioning = checked(provisioningTimesSchema, times, 'setProvisioning');
    },
    setProductRead: (mode) => {
      state.productRead = checked(productReadModeSchema, mode, 'setProductRead');
    },
    state: () => snapshot(state),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
