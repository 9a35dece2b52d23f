import { z } from 'zod';
import { Secret } from './secret.js';

export const ENVIRONMENTS = ['staging', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Where and how to reach the ordering API of one environment. */
export interface ApiConfig {
  environment: Environment;
  /** API host, e.g. https://api-staging.example.com (no trailing slash). */
  baseUrl: string;
  /** Token host; the token call is POST {authUrl}/oauth2/token. */
  authUrl: string;
  clientId: string;
  clientSecret: Secret;
  /** Time allowed to open the TCP connection. */
  connectTimeoutMs: number;
  /** Time allowed from sending the request to having read the whole response. */
  responseTimeoutMs: number;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const DEFAULT_RESPONSE_TIMEOUT_MS = 30_000;

/** The environment variables read by `loadApiConfig`, for error messages and documentation. */
export const API_ENV_VARS = {
  baseUrl: 'MVE_API_BASE_URL',
  authUrl: 'MVE_AUTH_URL',
  environment: 'MVE_ENVIRONMENT',
  clientId: 'MVE_CLIENT_ID',
  clientSecret: 'MVE_CLIENT_SECRET',
  allowProduction: 'MVE_ALLOW_PRODUCTION',
  connectTimeoutMs: 'MVE_CONNECT_TIMEOUT_MS',
  responseTimeoutMs: 'MVE_RESPONSE_TIMEOUT_MS',
} as const;

export class ApiConfigError extends Error {
  readonly type = 'ApiConfigError';

  /** One entry per problem, each naming the variable. */
  constructor(readonly problems: string[]) {
    super(`The ordering API is not configured correctly:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ApiConfigError';
  }
}

const httpUrl = z
  .string()
  .trim()
  .min(1, 'is not set')
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'must be an http(s) URL')
  .transform((value) => value.replace(/\/+$/, ''));

const timeoutMs = (fallback: number) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value) => (value === undefined || value === '' ? String(fallback) : value))
    .pipe(z.string().regex(/^\d+$/, 'must be a whole number of milliseconds'))
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1 ms').max(600_000, 'must be at most 600000 ms (10 minutes)'));

const envSchema = z.object({
  [API_ENV_VARS.baseUrl]: httpUrl,
  [API_ENV_VARS.authUrl]: httpUrl,
  [API_ENV_VARS.environment]: z.enum(ENVIRONMENTS, { error: 'must be "staging" or "production"' }),
  [API_ENV_VARS.clientId]: z.string().trim().min(1, 'is not set'),
  [API_ENV_VARS.clientSecret]: z.string().min(1, 'is not set'),
  [API_ENV_VARS.allowProduction]: z.string().optional(),
  [API_ENV_VARS.connectTimeoutMs]: timeoutMs(DEFAULT_CONNECT_TIMEOUT_MS),
  [API_ENV_VARS.responseTimeoutMs]: timeoutMs(DEFAULT_RESPONSE_TIMEOUT_MS),
});

/**
 * Reads the API configuration from environment variables. Every problem is reported at once, each naming
 * its variable; secrets are never echoed. Production is refused unless MVE_ALLOW_PRODUCTION=true, because
 * orders there are charged.
 */
export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const parsed = envSchema.safeParse(pickApiVars(env));
  if (!parsed.success) {
    throw new ApiConfigError(
      parsed.error.issues.map((issue) => {
        const variable = String(issue.path[0]);
        const message = env[variable] === undefined ? 'is not set' : issue.message;
        return `${variable} ${message}`;
      }),
    );
  }
  const vars = parsed.data;
  if (vars.MVE_ENVIRONMENT === 'production' && vars.MVE_ALLOW_PRODUCTION !== 'true') {
    throw new ApiConfigError([
      `${API_ENV_VARS.environment} is "production", where orders are charged: set ${API_ENV_VARS.allowProduction}=true to switch it on explicitly`,
    ]);
  }
  return {
    environment: vars.MVE_ENVIRONMENT,
    baseUrl: vars.MVE_API_BASE_URL,
    authUrl: vars.MVE_AUTH_URL,
    clientId: vars.MVE_CLIENT_ID,
    clientSecret: new Secret(vars.MVE_CLIENT_SECRET),
    connectTimeoutMs: vars.MVE_CONNECT_TIMEOUT_MS,
    responseTimeoutMs: vars.MVE_RESPONSE_TIMEOUT_MS,
  };
}

function pickApiVars(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  return Object.fromEntries(Object.values(API_ENV_VARS).map((name) => [name, env[name]]));
}
