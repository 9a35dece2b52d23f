import type { z } from 'zod';
import {
  buyEnvelopeSchema,
  buyResponseSchema,
  imagesResponseSchema,
  locationsResponseSchema,
  validateBodySchema,
  validateResponseSchema,
  variantsResponseSchema,
  type BuyEnvelope,
  type ValidateBody,
} from '../../schemas/index.js';
import { errorFromResponse, parseJsonLeniently } from './classify.js';
import { secretValuesOf } from './echoes.js';
import type { ApiConfig, Environment } from './config.js';
import {
  ApiAuthenticationError,
  ApiInvalidResponseError,
  ApiNetworkError,
  ApiRateLimitedError,
  ApiRequestInvalidError,
  isMutatingCall,
  type ApiCall,
  type ApiErrorContext,
} from './errors.js';
import { isProductNotRead, productPathSchema, productResponseSchema, type ProductRead } from './product.js';
import { createTokenProvider, type TokenProvider } from './token.js';
import { createTransport, TransportError, type HttpRequest, type HttpResponse } from './transport.js';

export type LocationsResponse = z.infer<typeof locationsResponseSchema>;
export type ImagesResponse = z.infer<typeof imagesResponseSchema>;
export type VariantsResponse = z.infer<typeof variantsResponseSchema>;
export type ValidateResponse = z.infer<typeof validateResponseSchema>;
export type BuyResponse = z.infer<typeof buyResponseSchema>;

type ApiOperation = Exclude<ApiCall, 'token'>;

/** Method and path of each call (spec section 4); `{name}` in a path is filled in per call. */
export const ENDPOINTS: Record<ApiOperation, { method: 'GET' | 'POST'; path: string }> = {
  locations: { method: 'GET', path: '/v3/locations' },
  images: { method: 'GET', path: '/v4/product/mve/images' },
  variants: { method: 'GET', path: '/v3/product/mve/variants' },
  validate: { method: 'POST', path: '/v3/networkdesign/validate' },
  buy: { method: 'POST', path: '/v4/networkdesign/buy' },
  product: { method: 'GET', path: '/v2/product/{productUid}' },
};

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

export interface ApiClientOptions {
  config: ApiConfig;
  /** Defaults to a provider built from the config over the same transport. */
  tokenProvider?: TokenProvider;
  rateLimit?: RateLimitPolicy;
  log?: (entry: ApiLogEntry) => void;
  /** Injectable for tests; defaults to setTimeout. */
  sleep?: (ms: number) => Promise<void>;
}

export interface ApiClient {
  readonly environment: Environment;
  readonly tokenProvider: TokenProvider;
  listLocations(): Promise<LocationsResponse>;
  listImages(): Promise<ImagesResponse>;
  listVariants(): Promise<VariantsResponse>;
  validate(body: ValidateBody): Promise<ValidateResponse>;
  buy(envelope: BuyEnvelope): Promise<BuyResponse>;
  /**
   * A bought product (its technicalServiceUid) and its provisioning status; `found: false` with the status for a 404
   * or 405. Like every read, safe to retry on whatever error says it is transient.
   */
  readProduct(productUid: string): Promise<ProductRead>;
  /** HTTP exchanges sent by this client's calls, per call (token requests are counted by the provider). */
  readonly callCounts: Readonly<Record<ApiOperation, number>>;
  close(): void;
}

/**
 * The typed client of the ordering API for one environment. Every call carries the shared bearer token;
 * a 401 drops that token and the call is sent once more with a fresh one (a 401 comes before any
 * processing, so this is safe even for buy); a 429 is waited out as its Retry-After says, within the
 * policy. Everything else surfaces as a typed ApiError that says whether a retry is safe.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const { config } = options;
  const transport = createTransport(config);
  const tokenProvider =
    options.tokenProvider ??
    createTokenProvider({
      environment: config.environment,
      authUrl: config.authUrl,
      clientId: config.clientId,
      clientSecret: config.clientSecret,
      transport,
    });
  const rateLimit = options.rateLimit ?? DEFAULT_RATE_LIMIT_POLICY;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const callCounts: Record<ApiOperation, number> = {
    locations: 0,
    images: 0,
    variants: 0,
    validate: 0,
    buy: 0,
    product: 0,
  };

  async function call<T>(operation: ApiOperation, body: unknown, responseSchema: z.ZodType<T>): Promise<T> {
    const { context, response } = await answer(operation, { body });
    return readBody(context, response, responseSchema);
  }

  /**
   * The response to one call: a 2xx or a status `passes`, after a fresh token for a 401 and the waits for 429s;
   * any other answer is thrown as its ApiError.
   */
  async function answer(
    operation: ApiOperation,
    { body, pathParams = {} }: { body?: unknown; pathParams?: Record<string, string> },
    passes: (status: number) => boolean = () => false,
  ): Promise<{ context: ApiErrorContext; response: HttpResponse }> {
    const { method, path: template } = ENDPOINTS[operation];
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathParams[name] ?? ''));
    const context: ApiErrorContext = { call: operation, environment: config.environment, request: `${method} ${path}` };
    // An error's message may quote what we sent: the request's secrets are kept out of it (echoes.ts).
    const sentSecrets = secretValuesOf(body);
    let refreshedAfter401 = false;
    let rateLimitWaits = 0;
    for (let attempt = 1; ; attempt += 1) {
      const token = await tokenProvider.getToken();
      const response = await exchange(operation, context, attempt, {
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
      const error = errorFromResponse(context, response, [
        token.reveal(),
        config.clientSecret.reveal(),
        ...sentSecrets,
      ]);
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
        await sleep(error.retryAfterMs);
        continue;
      }
      throw error;
    }
  }

  /** One HTTP exchange, counted and logged; a transport failure becomes an ApiNetworkError of this call. */
  async function exchange(
    operation: ApiOperation,
    context: ApiErrorContext,
    attempt: number,
    request: HttpRequest,
  ): Promise<HttpResponse> {
    callCounts[operation] += 1;
    const started = performance.now();
    const logLine = { call: context.call, environment: context.environment, request: context.request, attempt };
    try {
      const response = await transport.send(request);
      const traceId = response.header('trace-id');
      options.log?.({
        ...logLine,
        status: response.status,
        ...(traceId ? { traceId } : {}),
        durationMs: elapsed(started),
      });
      return response;
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      options.log?.({ ...logLine, error: error.message, durationMs: elapsed(started) });
      throw new ApiNetworkError(context, error.reason, error.requestSent, error.message);
    }
  }

  function writeExactly<T>(operation: ApiOperation, schema: z.ZodType<T>, value: unknown): T {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const { method, path } = ENDPOINTS[operation];
    throw new ApiRequestInvalidError(
      { call: operation, environment: config.environment, request: `${method} ${path}` },
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`),
    );
  }

  return {
    environment: config.environment,
    tokenProvider,
    listLocations: () => call('locations', undefined, locationsResponseSchema),
    listImages: () => call('images', undefined, imagesResponseSchema),
    listVariants: () => call('variants', undefined, variantsResponseSchema),
    validate: async (body) =>
      call('validate', writeExactly('validate', validateBodySchema, body), validateResponseSchema),
    buy: async (envelope) => call('buy', writeExactly('buy', buyEnvelopeSchema, envelope), buyResponseSchema),
    readProduct: async (productUid) => {
      const pathParams = writeExactly('product', productPathSchema, { productUid });
      const { context, response } = await answer('product', { pathParams }, isProductNotRead);
      const { status } = response;
      if (isProductNotRead(status)) return { found: false, status };
      return { found: true, product: readBody(context, response, productResponseSchema) };
    },
    callCounts,
    close: () => transport.close(),
  };
}

function readBody<T>(context: ApiErrorContext, response: HttpResponse, schema: z.ZodType<T>): T {
  const parsed = schema.safeParse(parseJsonLeniently(response.text));
  if (parsed.success) return parsed.data;
  const where = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
    .join('; ');
  throw new ApiInvalidResponseError(context, response.status, where);
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
