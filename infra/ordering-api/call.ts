import { errorFromResponse } from './classify.js';
import type { ApiConfig, Environment } from './config.js';
import { secretValuesOf } from './echoes.js';
import { ENDPOINTS, type ApiOperation } from './endpoints.js';
import {
  ApiAuthenticationError,
  ApiNetworkError,
  ApiRateLimitedError,
  isMutatingCall,
  type ApiCall,
  type ApiErrorContext,
} from './errors.js';
import type { TokenProvider } from './token.js';
import { TransportError, type HttpRequest, type HttpResponse, type Transport } from './transport.js';

/** One line per HTTP exchange; never headers or bodies. */
export interface ApiLogEntry {
  call: ApiCall;
  environment: Environment;
  request: string;
  attempt: number;
  status?: number;
  traceId?: string;
  durationMs: number;
  error?: string;
}

export interface RateLimitPolicy {
  /** How many times one call waits out a 429 before giving up with ApiRateLimitedError. */
  maxWaits: number;
  /** A Retry-After longer than this is not waited for here; the error carries it to the caller instead. */
  maxWaitMs: number;
}

export const DEFAULT_RATE_LIMIT_POLICY: RateLimitPolicy = { maxWaits: 2, maxWaitMs: 10_000 };

/** What a client's calls share: where they go, the token they carry, the waits they may make, and their tally. */
export interface CallDependencies {
  config: ApiConfig;
  transport: Transport;
  tokenProvider: TokenProvider;
  rateLimit: RateLimitPolicy;
  sleep: (ms: number) => Promise<void>;
  log?: ((entry: ApiLogEntry) => void) | undefined;
  /** HTTP exchanges sent, per call. */
  callCounts: Record<ApiOperation, number>;
}

/**
 * The response to one call: a 2xx or a status `passes`, after a fresh token for a 401 and the waits for 429s;
 * any other answer is thrown as its ApiError.
 */
export async function answer(
  deps: CallDependencies,
  operation: ApiOperation,
  { body, pathParams = {} }: { body?: unknown; pathParams?: Record<string, string> },
  passes: (status: number) => boolean = () => false,
): Promise<{ context: ApiErrorContext; response: HttpResponse }> {
  const { config, tokenProvider, rateLimit } = deps;
  const { method, path: template } = ENDPOINTS[operation];
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathParams[name] ?? ''));
  const context: ApiErrorContext = { call: operation, environment: config.environment, request: `${method} ${path}` };
  // An error's message may quote what we sent: the request's secrets are kept out of it (echoes.ts).
  const sentSecrets = secretValuesOf(body);
  let refreshedAfter401 = false;
  let rateLimitWaits = 0;
  for (let attempt = 1; ; attempt += 1) {
    const token = await tokenProvider.getToken();
    const response = await exchange(deps, operation, context, attempt, {
      method,
      url: `${config.baseUrl}${path}`,
      headers: {
        authorization: `Bearer ${token.reveal()}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      freshConnection: isMutatingCall(operation),
    });
    if ((response.status >= 200 && response.status <= 299) || passes(response.status)) {
      return { context, response };
    }
    const error = errorFromResponse(context, response, [token.reveal(), config.clientSecret.reveal(), ...sentSecrets]);
    if (error instanceof ApiAuthenticationError && !refreshedAfter401) {
      refreshedAfter401 = true;
      tokenProvider.invalidate(token);
      continue;
    }
    if (error instanceof ApiAuthenticationError) {
      throw new ApiAuthenticationError(
        context,
        `the API refused a freshly issued token: ${error.reason}. ` +
          `Check that MVE_API_BASE_URL and MVE_AUTH_URL belong to the same environment (${config.environment}) as the API key`,
        error.status,
        error.traceId,
      );
    }
    if (
      error instanceof ApiRateLimitedError &&
      rateLimitWaits < rateLimit.maxWaits &&
      error.retryAfterMs <= rateLimit.maxWaitMs
    ) {
      rateLimitWaits += 1;
      await deps.sleep(error.retryAfterMs);
      continue;
    }
    throw error;
  }
}

/** One HTTP exchange, counted and logged; a transport failure becomes an ApiNetworkError of this call. */
async function exchange(
  deps: CallDependencies,
  operation: ApiOperation,
  context: ApiErrorContext,
  attempt: number,
  request: HttpRequest,
): Promise<HttpResponse> {
  deps.callCounts[operation] += 1;
  const started = performance.now();
  const logLine = { call: context.call, environment: context.environment, request: context.request, attempt };
  try {
    const response = await deps.transport.send(request);
    const traceId = response.header('trace-id');
    deps.log?.({
      ...logLine,
      status: response.status,
      ...(traceId ? { traceId } : {}),
      durationMs: elapsed(started),
    });
    return response;
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    deps.log?.({ ...logLine, error: error.message, durationMs: elapsed(started) });
    throw new ApiNetworkError(context, error.reason, error.requestSent, error.message);
  }
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
