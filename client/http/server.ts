import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Logger } from '../../infra/log.js';
import { installAccessLog } from './access-log.js';
import { DEFAULT_AUTH_WINDOW_MS, FailedAuthentications, type AuthFailureLimit } from './auth-failures.js';
import type { Principal } from '../orders/index.js';
import type { ApiContext } from './context.js';
import { frameworkErrors, installErrorHandler, MAX_PARAM_LENGTH } from './errors.js';
import { registerApprovalRoutes } from './routes/approvals.js';
import { registerCommitmentRoutes } from './routes/commitments.js';
import { codecCors, isCodecOrigin, registerCodecRoutes } from './routes/codec.js';
import { registerHealthRoutes, type Readiness } from './routes/health.js';
import { createApiMetrics, registerMetricsRoute } from './routes/metrics.js';
import { registerOrderRoutes } from './routes/orders.js';
import { registerRecoveryRoutes } from './routes/recovery.js';
import { installRateLimit } from './rate-limit.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, installTimeLimits, receiveLimits } from './time-limits.js';
import { installRequestIdHeader, requestIdOf } from './request-id.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set for every /api/ and /codec/ request by authentication, before any handler runs. */
    principal?: Principal;
  }
}

export const API_VERSION = '1.0.0';

export interface ApiServerOptions {
  context: ApiContext;
  readiness: Readiness;
  /**
   * What else the server serves beside the API, registered before it starts (the web console, which sits above the
   * API and calls it: client/server/start.ts). Without any, the API alone.
   */
  extensions?: ReadonlyArray<(app: FastifyInstance) => Promise<void>>;
  /**
   * The bearer credential a browser's cookie stands for (the console's signed-in session), or undefined. Taken only
   * by the codec server, only from an origin of MVE_CODEC_CORS_ORIGINS, and only without an Authorization header:
   * the Temporal Web UI calling it with the browser's credentials as the person signed in to the console.
   */
  browserCredential?: (cookieHeader: string | undefined) => Promise<string | undefined>;
  /** Requests a minute each credential may make of /api/ and /codec/ (MVE_RATE_LIMIT); 0 or left out: no limit. */
  requestsPerMinute?: number;
  /**
   * Failed authentications per source address before its requests are refused 429 for the rest of the window
   * (MVE_RATE_LIMIT_AUTH_FAILURES, MVE_RATE_LIMIT_AUTH_WINDOW); left out: no limit.
   */
  authFailures?: AuthFailureLimit;
  /** The proxies whose X-Forwarded-For gives a request's address (MVE_TRUST_PROXY); left out: none. */
  trustProxy?: string;
  /** How long a request may take before it is answered 503 TIMEOUT (MVE_REQUEST_TIMEOUT; 15 s when left out). */
  requestTimeoutMs?: number;
  /**
   * True once the server is stopping (client/server/graceful-close.ts): /readyz answers 503 `draining`, so a load
   * balancer sends no more, and every answer closes its connection, so keep-alive clients reconnect elsewhere.
   */
  draining?: () => boolean;
  /** Where each answered request is logged (./access-log.ts); left out: nowhere. */
  accessLog?: Logger;
}

/**
 * The HTTP API (fastify, zod-validated routes, OpenAPI 3 generated from the same schemas). Every /api/ and
 * /codec/ route authenticates its caller first; health, readiness, metrics and the OpenAPI document are open. The
 * routes call the context's order service for every order action.
 */
export async function buildApiServer(options: ApiServerOptions): Promise<FastifyInstance> {
  const { context, readiness, extensions = [], requestsPerMinute = 0, draining = () => false, accessLog } = options;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const app = Fastify({
    logger: false,
    // The request's id in the access log and X-Request-Id: a proxy's, or unique across servers and restarts.
    genReqId: requestIdOf,
    bodyLimit: 1024 * 1024,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    ...receiveLimits(requestTimeoutMs),
    // A request reaching a server that is closing, on a connection it had already, is answered as usual (and its
    // connection then closed), rather than with fastify's own 503: it came before the client could know.
    return503OnClosing: false,
    ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
  });
  installTimeLimits(app, requestTimeoutMs, context.service);
  installRequestIdHeader(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await registerOpenApi(app);
  installErrorHandler(app, context.log);
  if (accessLog) installAccessLog(app, accessLog);
  app.addHook('onSend', async (_request, reply, payload) => {
    if (draining()) void reply.header('connection', 'close');
    return payload;
  });

  const metrics = createApiMetrics(context.service);
  app.addHook('onRequest', codecCors(context));
  installAuthentication(app, context, options);
  metrics.instrument(app);
  // Counted by who the caller is: registered after authentication, before the routes it guards.
  await installRateLimit(app, requestsPerMinute);

  registerOrderRoutes(app, context);
  registerRecoveryRoutes(app, context);
  registerApprovalRoutes(app, context);
  registerCommitmentRoutes(app, context);
  registerCodecRoutes(app, context);
  registerHealthRoutes(app, readiness, draining);
  registerMetricsRoute(app, metrics);
  app.get('/openapi.json', { schema: { hide: true } }, () => Promise.resolve(app.swagger()));
  for (const extend of extensions) await extend(app);
  await app.ready();
  return app;
}

/** The OpenAPI 3 document, generated from the routes' zod schemas. */
async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'mve-orders',
        version: API_VERSION,
        description: 'Approval-gated MVE orders: intake, approvals and ops views',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'an API token (mvo_…) or an OIDC access token' },
        },
      },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
}

/** Sets `request.principal` of every /api/ and /codec/ request before any handler runs, or refuses it (401, 429). */
function installAuthentication(
  app: FastifyInstance,
  context: ApiContext,
  { browserCredential, authFailures = { failures: 0, windowMs: DEFAULT_AUTH_WINDOW_MS } }: ApiServerOptions,
): void {
  // The same credential, authenticated the same way, whether in the header or, for the Web UI, behind the cookie.
  const cookieAuthorization = async (request: FastifyRequest): Promise<string | undefined> => {
    if (!browserCredential || !isCodecOrigin(context, request.headers.origin)) return undefined;
    const credential = await browserCredential(request.headers.cookie);
    return credential ? `Bearer ${credential}` : undefined;
  };
  const failedAuthentications = new FailedAuthentications(authFailures);
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0];
    const codec = path.startsWith('/codec/') && request.method !== 'OPTIONS';
    if (!path.startsWith('/api/') && !codec) return;
    request.principal = await failedAuthentications.authenticate(
      request,
      reply,
      async () => request.headers.authorization ?? (codec ? await cookieAuthorization(request) : undefined),
      (authorization) => context.authenticator.authenticate(authorization),
    );
  });
}
