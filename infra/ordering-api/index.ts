/**
 * Public face of infra/ordering-api: configuration, the typed HTTP client of the ordering API, the token
 * provider and the errors that say whether a retry is safe.
 */
export {
  API_ENV_VARS,
  ApiConfigError,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_RESPONSE_TIMEOUT_MS,
  ENVIRONMENTS,
  loadApiConfig,
} from './config.js';
export type { ApiConfig, Environment } from './config.js';
export { Secret } from './secret.js';
export { createTokenProvider, DEFAULT_REFRESH_MARGIN_MS, TOKEN_PATH } from './token.js';
export type { TokenProvider, TokenProviderOptions } from './token.js';
export type { ApiProduct, ProductRead } from './product.js';
export { createApiClient } from './client.js';
export type {
  ApiClient,
  ApiClientOptions,
  BuyResponse,
  ImagesResponse,
  LocationsResponse,
  ValidateResponse,
  VariantsResponse,
} from './client.js';
export { DEFAULT_RATE_LIMIT_POLICY } from './call.js';
export type { ApiLogEntry, RateLimitPolicy } from './call.js';
export { ENDPOINTS } from './endpoints.js';
export {
  ApiAuthenticationError,
  ApiError,
  ApiInvalidResponseError,
  ApiNetworkError,
  ApiNotFoundError,
  ApiPermissionError,
  ApiRateLimitedError,
  ApiRejectedError,
  ApiRequestInvalidError,
  ApiServerError,
  isMutatingCall,
  isRetrySafe,
} from './errors.js';
export type { ApiCall, ApiErrorDetails } from './errors.js';
export { createTransport, TransportError } from './transport.js';
export type { Transport, TransportOptions } from './transport.js';
