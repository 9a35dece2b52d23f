import { readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { connectDatabase, createRepository } from '../../infra/db/index.js';
import { encryptingDataConverter, type Keyring } from '../../codec/index.js';
import { connectionOptions, loadTemporalConfig } from '../../config/temporal.js';
import { servedEnvironmentsFromEnv } from '../../config/served-environments.js';
import type { KindMap } from '../../domain/index.js';
import { loadApprovalPolicies, type ApprovalPolicies } from '../../domain/approval/index.js';
import type { Logger } from '../../infra/log.js';
import type { Repository } from '../../infra/db/index.js';
import {
  oidcSignInFromEnv,
  registerConsole,
  SessionStore,
  type OidcSignIn,
  type ProviderPortal,
} from '../console/index.js';
import { sessionCredential } from '../console/sessions.js';
import { LiveReads, liveReadsFromEnv, OrderClient, OrderIntake, OrderService } from '../orders/index.js';
import {
  buildApiServer,
  createAuthenticator,
  createOidcVerifier,
  handlersEnded,
  loadOidcConfig,
  authFailureLimitFromEnv,
  requestsPerMinuteFromEnv,
  requestTimeoutFromEnv,
  trustProxyFromEnv,
  type ApiContext,
  type OidcConfig,
} from '../http/index.js';
import { closeGracefully, NO_DRAIN, type ShutdownTiming } from './graceful-close.js';

export const CODEC_CORS_VARIABLE = 'MVE_CODEC_CORS_ORIGINS';

export interface StartApiOptions {
  env: NodeJS.ProcessEnv;
  /** Overrides TEMPORAL_ADDRESS (the embedded server in `mve-orders dev`). */
  temporalAddress?: string;
  /**
   * How long the first connection to Temporal may take: 10 s by default, so `serve` against a cluster that is down
   * says so soon. `dev` gives the server it has just started longer, as a loaded machine may answer slowly.
   */
  temporalConnectTimeoutMs?: number;
  databaseUrl: string;
  codecKeys: Keyring;
  actionKeys: Keyring;
  kindMap: KindMap;
  host: string;
  /** 0: any free port. */
  port: number;
  /**
   * `mve-orders dev` only: the seeded users, each signing in to the console with one click, and plain-http
   * cookies. `serve` never passes them.
   */
  devUsers?: ReadonlyArray<{ id: string; roles: readonly string[]; token: string }>;
  /**
   * `mve-orders dev` only: where its console sends ops to check the provider's products (its simulator's
   * `/_sim/state`). `serve` leaves it out: the console says "the provider's portal" and links nowhere.
   */
  providerPortal?: ProviderPortal;
  log: (line: string) => void;
  /** Where each answered request is logged (client/http/access-log.ts); left out: nowhere. */
  accessLog?: Logger;
}

export interface RunningApi {
  url: string;
  /**
   * Stops: /readyz answers 503 `draining` at once, the listener closes after `timing.drainMs`, and the requests in
   * flight are answered within `timing.graceMs` (./graceful-close.ts); then the connections to PostgreSQL and Temporal
   * close. Without `timing`, no drain (dev). True when every request was answered, false when some were cut.
   */
  close(timing?: ShutdownTiming): Promise<boolean>;
}

/** Connects to Temporal and Postgres, builds the HTTP API and the web console on them, and listens. */
export async function startApiServer(options: StartApiOptions): Promise<RunningApi> {
  const temporalConfig = loadTemporalConfig(options.env);
  const address = options.temporalAddress ?? temporalConfig.address;
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set (host:port of the Temporal frontend)');
  // Every setting is read before anything connects: a wrong one is said at once.
  const oidcConfig = loadOidcConfig(options.env);
  const consoleOidc = oidcSignInFromEnv(options.env);
  const requestsPerMinute = requestsPerMinuteFromEnv(options.env);
  const authFailures = authFailureLimitFromEnv(options.env);
  const trustProxy = trustProxyFromEnv(options.env);
  const requestTimeoutMs = requestTimeoutFromEnv(options.env);
  // The workers' policies, from the same variables: their teams and budgets are the API's too. A broken one stops us.
  const { policies } = loadApprovalPolicies(options.env, (path) => readFileSync(path, 'utf8'));
  const connection = await Connection.connect({
    ...connectionOptions(temporalConfig, address),
    connectTimeout: options.temporalConnectTimeoutMs ?? 10_000,
  });
  const sql = connectDatabase(options.databaseUrl);
  let draining = false;
  const closeConnections = async () => {
    await connection.close().catch(() => undefined);
    await sql.end({ timeout: 5 }).catch(() => undefined);
  };
  try {
    const repository = createRepository(sql);
    const temporal = new Client({
      connection,
      namespace: temporalConfig.namespace,
      dataConverter: encryptingDataConverter(options.codecKeys),
    });
    const context = apiContext(options, {
      temporal,
      taskQueue: temporalConfig.taskQueue,
      repository,
      oidcConfig,
      policies,
    });
    const app = await buildApiServer({
      context,
      ...consoleBeside(options, { context, repository }, consoleOidc),
      requestsPerMinute,
      authFailures,
      ...(trustProxy === undefined ? {} : { trustProxy }),
      requestTimeoutMs,
      draining: () => draining,
      ...(options.accessLog ? { accessLog: options.accessLog } : {}),
      readiness: {
        temporal: async () => void (await connection.workflowService.getSystemInfo({})),
        postgres: async () => void (await sql`SELECT 1`),
      },
    });
    const url = await app.listen({ host: options.host, port: options.port });
    return {
      url: url.replace('://[::1]', '://localhost'),
      async close(timing = NO_DRAIN) {
        const until = Date.now() + timing.graceMs;
        draining = true;
        const answered = await closeGracefully(app, timing, options.log);
        // A request answered 503 TIMEOUT may have left its handler running: PostgreSQL's end stops its queries, and
        // its Temporal calls end by their deadline, before Temporal's connection is closed under them.
        await sql.end({ timeout: 5 }).catch(() => undefined);
        await handlersEnded(app, Math.max(0, until - Date.now()));
        await closeConnections();
        return answered;
      },
    };
  } catch (error) {
    await closeConnections();
    throw error;
  }
}

/** The parts the API (its order service) and the console stand on, over one Temporal client and one repository. */
function apiContext(
  options: StartApiOptions,
  {
    temporal,
    taskQueue,
    repository,
    oidcConfig,
    policies,
  }: {
    temporal: Client;
    taskQueue: string;
    repository: Repository;
    oidcConfig: OidcConfig | undefined;
    policies: ApprovalPolicies;
  },
): ApiContext {
  const orders = new OrderClient({
    client: temporal,
    taskQueue,
    kindMap: options.kindMap,
    actionKeys: options.actionKeys,
    tickets: repository,
  });
  const service = new OrderService({
    orders,
    intake: new OrderIntake({
      orders,
      repository,
      fingerprintKeys: options.actionKeys,
      kindMap: options.kindMap,
      environments: servedEnvironmentsFromEnv(options.env),
      policies,
    }),
    repository,
    temporal,
    codecKeys: options.codecKeys,
    liveReads: new LiveReads(liveReadsFromEnv(options.env)),
    policies,
    log: options.log,
  });
  return {
    service,
    authenticator: createAuthenticator({
      tokens: repository,
      ...(oidcConfig ? { oidc: createOidcVerifier(oidcConfig) } : {}),
    }),
    codecKeys: options.codecKeys,
    codecCorsOrigins: (options.env[CODEC_CORS_VARIABLE] ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    log: options.log,
  };
}

/**
 * The web console, mounted beside the API, and the credential its session cookie stands for. Its sessions are in
 * PostgreSQL: the codec server takes the same cookie for the Web UI in that browser.
 */
function consoleBeside(
  options: StartApiOptions,
  { context, repository }: { context: ApiContext; repository: Repository },
  oidc: OidcSignIn | undefined,
) {
  const sessions = new SessionStore({ rows: repository, keys: options.codecKeys });
  const consoleOptions = {
    sessions,
    secureCookies: options.devUsers === undefined,
    ...(options.devUsers ? { devUsers: options.devUsers } : {}),
    ...(oidc ? { oidc } : {}),
    ...(options.providerPortal ? { providerPortal: options.providerPortal } : {}),
  };
  return {
    extensions: [(api: FastifyInstance) => registerConsole(api, context, consoleOptions)],
    browserCredential: sessionCredential(sessions, consoleOptions.secureCookies),
  };
}
