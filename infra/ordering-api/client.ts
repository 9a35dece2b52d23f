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
import {
  answer,
  DEFAULT_RATE_LIMIT_POLICY,
  type ApiLogEntry,
  type CallDependencies,
  type RateLimitPolicy,
} from './call.js';
import { parseJsonLeniently } from './classify.js';
import type { ApiConfig, Environment } from './config.js';
import { ENDPOINTS, type ApiOperation } from './endpoints.js';
import { ApiInvalidResponseError, ApiRequestInvalidError, type ApiErrorContext } from './errors.js';
import { isProductNotRead, productPathSchema, productResponseSchema, type ProductRead } from './product.js';
import { createTokenProvider, type TokenProvider } from './token.js';
import { createTransport, type HttpResponse } from './transport.js';

export type LocationsResponse = z.infer<typeof locationsResponseSchema>;
export type ImagesResponse = z.infer<typeof imagesResponseSchema>;
export type VariantsResponse = z.infer<typeof variantsResponseSchema>;
export type ValidateResponse = z.infer<typeof validateResponseSchema>;
export type BuyResponse = z.infer<typeof buyResponseSchema>;

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
  const callCounts: Record<ApiOperation, number> = {
    locations: 0,
    images: 0,
    variants: 0,
    validate: 0,
    buy: 0,
    product: 0,
  };
  const deps: CallDependencies = {
    config,
    transport,
    tokenProvider,
    rateLimit: options.rateLimit ?? DEFAULT_RATE_LIMIT_POLICY,
    sleep: options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
    log: options.log,
    callCounts,
  };

  async function call<T>(operation: ApiOperation, body: unknown, responseSchema: z.ZodType<T>): Promise<T> {
    const { context, response } = await answer(deps, operation, { body });
    return readBody(context, response, responseSchema);
  }

  const exactly = <T>(operation: ApiOperation, schema: z.ZodType<T>, value: unknown): T =>
    writeExactly(config.environment, operation, schema, value);

  return {
    environment: config.environment,
    tokenProvider,
    listLocations: () => call('locations', undefined, locationsResponseSchema),
    listImages: () => call('images', undefined, imagesResponseSchema),
    listVariants: () => call('variants', undefined, variantsResponseSchema),
    validate: async (body) => call('validate', exactly('validate', validateBodySchema, body), validateResponseSchema),
    buy: async (envelope) => call('buy', exactly('buy', buyEnvelopeSchema, envelope), buyResponseSchema),
    readProduct: async (productUid) => {
      const pathParams = exactly('product', productPathSchema, { productUid });
      const { context, response } = await answer(deps, 'product', { pathParams }, isProductNotRead);
      const { status } = response;
      if (isProductNotRead(status)) return { found: false, status };
      return { found: true, product: readBody(context, response, productResponseSchema) };
    },
    callCounts,
    close: () => transport.close(),
  };
}

/** The request as the schema writes it; a value it refuses is an ApiRequestInvalidError, and nothing is sent. */
function writeExactly<T>(environment: Environment, operation: ApiOperation, schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const { method, path } = ENDPOINTS[operation];
  throw new ApiRequestInvalidError(
    { call: operation, environment, request: `${method} ${path}` },
    parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`),
  );
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
