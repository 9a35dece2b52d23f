import { tokenResponseSchema } from '../../schemas/index.js';
import { errorFromResponse, parseJsonLeniently } from './classify.js';
import type { Environment } from './config.js';
import { ApiAuthenticationError, ApiInvalidResponseError, ApiNetworkError, type ApiErrorContext } from './errors.js';
import { Secret } from './secret.js';
import { TransportError, type Transport } from './transport.js';

export interface TokenProviderOptions {
  environment: Environment;
  /** Token host; the call is POST {authUrl}/oauth2/token (spec 4.6). */
  authUrl: string;
  clientId: string;
  clientSecret: Secret;
  transport: Transport;
  /** Milliseconds since the epoch; injectable so tests can move time. */
  now?: () => number;
  /** Refresh this long before expiry (capped at a tenth of the lifetime, so short-lived tokens are still used). */
  refreshMarginMs?: number;
}

export interface TokenProvider {
  /** A valid access token, fetched at most once however many callers wait for it. */
  getToken(): Promise<Secret>;
  /** Forgets `token` if it is still the cached one (the API said 401), so the next getToken fetches anew. */
  invalidate(token: Secret): void;
  /** How many token requests were sent. */
  readonly requestCount: number;
}

export const DEFAULT_REFRESH_MARGIN_MS = 60_000;
export const TOKEN_PATH = '/oauth2/token';

interface CachedToken {
  token: Secret;
  refreshAt: number;
}

/** Client-credentials tokens for one environment, cached until shortly before they expire. */
export function createTokenProvider(options: TokenProviderOptions): TokenProvider {
  const now = options.now ?? Date.now;
  const marginMs = options.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS;
  const context: ApiErrorContext = { call: 'token', environment: options.environment, request: `POST ${TOKEN_PATH}` };
  let cached: CachedToken | undefined;
  let inFlight: Promise<Secret> | undefined;
  let requestCount = 0;

  async function requestToken(): Promise<Secret> {
    requestCount += 1;
    const issuedAt = now();
    const basic = Buffer.from(`${options.clientId}:${options.clientSecret.reveal()}`).toString('base64');
    let response;
    try {
      response = await options.transport.send({
        method: 'POST',
        url: `${options.authUrl}${TOKEN_PATH}`,
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
      });
    } catch (error) {
      if (error instanceof TransportError) {
        throw new ApiNetworkError(
          context,
          error.reason,
          error.requestSent,
          `${error.message} (token URL ${options.authUrl}${TOKEN_PATH})`,
        );
      }
      throw error;
    }
    if (response.status === 400 || response.status === 401) {
      throw new ApiAuthenticationError(
        context,
        `the ${options.environment} token endpoint ${options.authUrl}${TOKEN_PATH} refused API key "${options.clientId}". ` +
          `Check MVE_CLIENT_ID and MVE_CLIENT_SECRET: a key works only in the environment where it was generated`,
        response.status,
        response.header('trace-id'),
      );
    }
    if (response.status < 200 || response.status > 299)
      throw errorFromResponse(context, response, [options.clientSecret.reveal()]);
    const parsed = tokenResponseSchema.safeParse(parseJsonLeniently(response.text));
    if (!parsed.success || !(parsed.data.expires_in > 0)) {
      throw new ApiInvalidResponseError(context, response.status, 'expected access_token and a positive expires_in');
    }
    const lifetimeMs = parsed.data.expires_in * 1000;
    const token = new Secret(parsed.data.access_token);
    cached = { token, refreshAt: issuedAt + lifetimeMs - Math.min(marginMs, lifetimeMs / 10) };
    return token;
  }

  return {
    getToken() {
      if (cached && now() < cached.refreshAt) return Promise.resolve(cached.token);
      inFlight ??= requestToken().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
    invalidate(token) {
      if (cached?.token === token) cached = undefined;
    },
    get requestCount() {
      return requestCount;
    },
  };
}
