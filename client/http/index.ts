/** Public face of client/http: the HTTP API server, and API tokens (issued by `mve-orders tokens` and `dev`). */
export { buildApiServer, API_VERSION } from './server.js';
export type { ApiContext } from './context.js';
export { authenticateApiToken, issueApiToken } from './auth/api-tokens.js';
export { createAuthenticator } from './auth/authenticate.js';
export type { Authenticator } from './auth/authenticate.js';
export { AuthenticationError } from './auth/authentication-error.js';
export { createOidcVerifier, loadOidcConfig } from './auth/oidc.js';
export type { OidcConfig } from './auth/oidc.js';
export { DEFAULT_REQUESTS_PER_MINUTE, RATE_LIMIT_VARIABLE, requestsPerMinuteFromEnv } from './rate-limit.js';
export { authFailureLimitFromEnv, DEFAULT_AUTH_FAILURES, DEFAULT_AUTH_WINDOW_MS } from './auth-failures.js';
export type { AuthFailureLimit } from './auth-failures.js';
export { trustProxyFromEnv, TRUST_PROXY_VARIABLE } from './trust-proxy.js';
export { handlersEnded, requestTimeoutFromEnv } from './time-limits.js';
