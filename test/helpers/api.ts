/**
 * The order engine with the HTTP API in front of it, for API, CLI and browser tests: the real server on a
 * loopback port, the real authenticator (API tokens in Postgres, made here for each test user), the same
 * Temporal client, codec and action keys as the engine's worker.
 *
 *   const pg = usePostgres(test);
 *   test.before(async (t) => { t.context.api = await startApiEngine(pg); });
 *   test.after.always((t) => t.context.api?.stop());
 */
import type { Client } from '@temporalio/client';
import type { ExecutionContext } from 'ava';
import type { FastifyInstance } from 'fastify';
import {
  DEFAULT_LIVE_READS,
  LiveReads,
  OrderClient,
  OrderIntake,
  OrderService,
  type OrderServiceParts,
} from '../../client/orders/index.js';
import { buildApiServer, createAuthenticator, issueApiToken, type ApiContext } from '../../client/http/index.js';
import type { ApiOrder } from '../../client/http-client/index.js';
import { SIM_KIND_MAP } from '../../tooling/sim/index.js';
import { callApi, type ApiAnswer } from './api-call.js';
import { json } from './json.js';
import type { TestPostgres } from './postgres.js';
import {
  startOrderEngine,
  sydneyRequest,
  TASK_QUEUE,
  TEST_POLICIES_IN_FORCE,
  type EngineOptions,
  type OrderEngine,
} from './orders.js';
import { waitFor } from './wait.js';

/**
 * Who calls the API in tests; the directory (test/helpers/orders.ts APPROVERS) knows fiona, dave, erin and alice, and
 * pat and quinn, for whom the ticket system orders.
 */
export const TEST_USERS = {
  alice: ['requester'],
  /** alice again, with an approver role as well: self-approval must be refused by identity, not by role. */
  aliceApprover: ['requester', 'finance-approver'],
  fiona: ['finance-approver'],
  dave: ['finance-director'],
  erin: ['engineering-manager'],
  olga: ['ops'],
  'ticket-bot': ['ticket-system'],
} as const;

export type TestUser = keyof typeof TEST_USERS;

export interface ApiEngine extends OrderEngine {
  url: string;
  app: FastifyInstance;
  context: ApiContext;
  /** What the context's order service stands on: swap some with `contextWith`. */
  parts: OrderServiceParts;
  tokens: Record<TestUser, string>;
  /** A request to the API as `user` (or with no credentials); the body is JSON. */
  call(method: string, path: string, options?: { as?: TestUser; token?: string; body?: unknown }): Promise<ApiAnswer>;
}

export async function startApiEngine(
  pg: TestPostgres,
  options: EngineOptions & { /** MVE_LIVE_READS of the server. */ liveReads?: number } = {},
): Promise<ApiEngine> {
  const engine = await startOrderEngine(pg, options);
  const log = (line: string) => void (process.env['API_TEST_LOG'] && console.error(line));
  const { policies } = options.policies ?? TEST_POLICIES_IN_FORCE;
  const parts: OrderServiceParts = {
    orders: engine.orders,
    intake: new OrderIntake({
      orders: engine.orders,
      repository: engine.repository,
      fingerprintKeys: engine.actionKeys,
      kindMap: SIM_KIND_MAP,
      // The engine runs a staging worker only.
      environments: ['staging'],
      // The workers' policies: the API charges orders to their teams.
      policies,
    }),
    repository: engine.repository,
    temporal: engine.client,
    codecKeys: engine.keyring,
    liveReads: new LiveReads(options.liveReads ?? DEFAULT_LIVE_READS),
    policies,
    log,
  };
  const context: ApiContext = {
    service: new OrderService(parts),
    authenticator: createAuthenticator({ tokens: engine.repository }),
    codecKeys: engine.keyring,
    codecCorsOrigins: ['http://ui.test'],
    log,
  };
  const app = await buildApiServer({
    context,
    readiness: {
      temporal: async () => void (await engine.client.connection.workflowService.getSystemInfo({})),
      postgres: async () => void (await engine.db.sql`SELECT 1`),
    },
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const tokens = {} as Record<TestUser, string>;
  for (const [user, roles] of Object.entries(TEST_USERS) as Array<[TestUser, readonly string[]]>) {
    const owner = user === 'aliceApprover' ? 'alice' : user;
    tokens[user] = (await issueApiToken(engine.repository, { owner, roles: [...roles] })).token;
  }
  const stopEngine = engine.stop.bind(engine);
  return Object.assign(engine, {
    url,
    app,
    context,
    parts,
    tokens,
    call(method: string, path: string, request: { as?: TestUser; token?: string; body?: unknown } = {}) {
      return callApi(url, method, path, {
        token: request.token ?? (request.as ? tokens[request.as] : undefined),
        body: request.body,
      });
    },
    async stop() {
      await app.close();
      await stopEngine();
    },
  });
}

/** The engine's API context over its order service's parts with some swapped, and some of its own. */
export function contextWith(
  api: ApiEngine,
  parts: Partial<OrderServiceParts>,
  own: Partial<Omit<ApiContext, 'service'>> = {},
): ApiContext {
  return { ...api.context, ...own, service: new OrderService({ ...api.parts, ...parts }) };
}

/** The order service's parts that reach Temporal, over another client of it (one that is down, or never answers). */
export function partsOver(api: ApiEngine, temporal: Client): Pick<OrderServiceParts, 'temporal' | 'orders' | 'intake'> {
  const orders = new OrderClient({
    client: temporal,
    taskQueue: TASK_QUEUE,
    kindMap: SIM_KIND_MAP,
    actionKeys: api.actionKeys,
    tickets: api.repository,
  });
  return {
    temporal,
    orders,
    intake: new OrderIntake({ orders, repository: api.repository, fingerprintKeys: api.actionKeys }),
  };
}

/** A request whose product name carries the ticket, so the simulator's products can be counted per ticket. */
export function namedRequest(ticketId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return sydneyRequest(ticketId, { productName: `${ticketId} firewall`, ...overrides });
}

/** Submits `namedRequest(ticketId, overrides)` through the API as `as` (alice by default); it must be created. */
export async function submit(
  t: ExecutionContext,
  api: ApiEngine,
  ticketId: string,
  overrides: Record<string, unknown> = {},
  as: TestUser = 'alice',
): Promise<void> {
  const response = await api.call('POST', '/api/v1/orders', { as, body: namedRequest(ticketId, overrides) });
  t.is(response.status, 201, JSON.stringify(response.body));
}

/** Products the simulator created for a request made by `namedRequest`. */
export function productsFor(api: ApiEngine, ticketId: string) {
  return api.sim.state().products.filter((product) => product.serviceName?.startsWith(`${ticketId} firewall [`));
}

/** Polls GET /api/v1/orders/{id} (as ops) until the order is in `state`. */
export async function waitForApiState(
  api: ApiEngine,
  ticketId: string,
  state: string,
  timeoutMs = 30_000,
): Promise<ApiOrder> {
  return waitFor(
    async () => {
      const response = await api.call('GET', `/api/v1/orders/${ticketId}`, { as: 'olga' });
      if (response.status !== 200) return undefined;
      const order = json<ApiOrder>(response);
      return order.state === state ? order : undefined;
    },
    timeoutMs,
    `order ${ticketId} in ${state}`,
  );
}
