import {
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { ConfigError } from '../../../config/env.js';
import type { Principal } from '../../orders/index.js';
import { AuthenticationError } from './authentication-error.js';

// OIDC bearer JWTs for people: the identity provider signs, we check the signature against its published keys
// (JWKS), then the issuer, audience and lifetime, and read the username and roles from configured claims.

export interface OidcConfig {
  /** MVE_OIDC_ISSUER: must equal the tokens' `iss` exactly (trailing slash included). */
  issuer: string;
  /** MVE_OIDC_AUDIENCE: a token's `aud` must be or contain it. */
  audience: string;
  /** MVE_OIDC_ROLES_CLAIM, default `roles`; a dotted path such as `realm_access.roles` is allowed. */
  rolesClaim: string;
  /** MVE_OIDC_USERNAME_CLAIM, default `preferred_username`. */
  usernameClaim: string;
  /** MVE_OIDC_JWKS_URL; when absent, the `jwks_uri` of the issuer's discovery document. */
  jwksUrl?: string;
  /** Leeway for `exp` and `nbf` against clock skew; default 30. */
  clockToleranceSeconds?: number;
}

/** The identity provider (its discovery document or keys) could not be reached: not the caller's fault, HTTP 503. */
export class OidcUnavailableError extends Error {
  override readonly name = 'OidcUnavailableError';
}

export interface OidcVerifier {
  verify(token: string): Promise<Principal>;
}

/** Asymmetric algorithms only: HS* would let anyone holding the shared secret mint tokens, and `none` anyone at all. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'];
const ROLE_FORMAT = /^[a-z][a-z0-9._-]{0,63}$/;
const JWT_FORMAT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** Far above any real ID or access token; spares the parser megabyte headers. */
const MAX_TOKEN_LENGTH = 16_384;
/** As long as an approver directory id may be. */
const MAX_USERNAME_LENGTH = 128;
/** So that a person's qualified id, `<issuer>#<username>`, fits the 255 characters the records keep of a submitter. */
const MAX_ISSUER_LENGTH = 255 - 1 - MAX_USERNAME_LENGTH;
const FETCH_TIMEOUT_MS = 5_000;

/** undefined when MVE_OIDC_ISSUER is unset; ConfigError naming the variable when the rest is missing or malformed. */
export function loadOidcConfig(env: NodeJS.ProcessEnv): OidcConfig | undefined {
  const issuer = env.MVE_OIDC_ISSUER?.trim();
  if (!issuer) return undefined;
  if (!isHttpUrl(issuer)) throw new ConfigError(`MVE_OIDC_ISSUER: ${JSON.stringify(issuer)} is not an http(s) URL`);
  const audience = env.MVE_OIDC_AUDIENCE?.trim();
  if (!audience) {
    throw new ConfigError(
      'MVE_OIDC_AUDIENCE is not set (required with MVE_OIDC_ISSUER: the "aud" the identity provider puts in tokens for this API)',
    );
  }
  const jwksUrl = env.MVE_OIDC_JWKS_URL?.trim() || undefined;
  if (jwksUrl !== undefined && !isHttpUrl(jwksUrl)) {
    throw new ConfigError(`MVE_OIDC_JWKS_URL: ${JSON.stringify(jwksUrl)} is not an http(s) URL`);
  }
  return {
    issuer,
    audience,
    rolesClaim: claimPath(env, 'MVE_OIDC_ROLES_CLAIM', 'roles'),
    usernameClaim: claimPath(env, 'MVE_OIDC_USERNAME_CLAIM', 'preferred_username'),
    ...(jwksUrl === undefined ? {} : { jwksUrl }),
  };
}

/** Whether `token` has the form of a compact JWS (so is not, say, an API token). Says nothing of its validity. */
export function looksLikeJwt(token: string): boolean {
  return token.length <= MAX_TOKEN_LENGTH && JWT_FORMAT.test(token);
}

export function createOidcVerifier(config: OidcConfig): OidcVerifier {
  if (!isHttpUrl(config.issuer))
    throw new ConfigError(`MVE_OIDC_ISSUER: ${quote(config.issuer)} is not an http(s) URL`);
  if (config.issuer.length > MAX_ISSUER_LENGTH) {
    throw new ConfigError(
      `MVE_OIDC_ISSUER: longer than ${MAX_ISSUER_LENGTH} characters (a person's qualified id, <issuer>#<username>, must fit 255)`,
    );
  }
  const keys = lazyKeySet(config);
  const options = {
    issuer: config.issuer,
    audience: config.audience,
    algorithms: ALGORITHMS,
    requiredClaims: ['exp'],
    clockTolerance: config.clockToleranceSeconds ?? 30,
  };

  return {
    async verify(token) {
      if (!looksLikeJwt(token)) throw new AuthenticationError('the bearer token is not a well-formed JWT');
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keys, options));
      } catch (error) {
        throw error instanceof errors.JOSEError
          ? new AuthenticationError(describe(error, token, config), { cause: error })
          : error;
      }
      const id = readClaim(payload, config.usernameClaim);
      if (id === undefined) {
        throw new AuthenticationError(`the token has no "${config.usernameClaim}" claim (set MVE_OIDC_USERNAME_CLAIM)`);
      }
      if (typeof id !== 'string' || !id.trim()) {
        throw new AuthenticationError(
          `the token's "${config.usernameClaim}" claim is not a non-empty string (set MVE_OIDC_USERNAME_CLAIM)`,
        );
      }
      const username = id.trim();
      if (username.length > MAX_USERNAME_LENGTH || /\p{Cc}/u.test(username)) {
        throw new AuthenticationError(
          `the token's "${config.usernameClaim}" claim is longer than ${MAX_USERNAME_LENGTH} characters or holds a control character`,
        );
      }
      return {
        id: username,
        qualifiedId: oidcQualifiedId(config.issuer, username),
        roles: parseRoles(readClaim(payload, config.rolesClaim)),
        via: { kind: 'oidc', issuer: config.issuer },
      };
    },
  };
}

/**
 * The issuer's key set, found (via discovery if need be) on first use. Any failure to get the keys becomes an
 * OidcUnavailableError; only "no key matches this token" is left for `describe`, as that is the token's fault.
 */
function lazyKeySet(config: OidcConfig): JWTVerifyGetKey {
  let remote: Promise<{ url: string; getKey: JWTVerifyGetKey }> | undefined;
  const load = async () => {
    const url = config.jwksUrl ?? (await discoverJwksUrl(config.issuer));
    return { url, getKey: createRemoteJWKSet(new URL(url), { timeoutDuration: FETCH_TIMEOUT_MS }) };
  };
  return async (header, token) => {
    // A failed discovery is forgotten, so the next request tries again rather than failing until restart.
    remote ??= load().catch((error: unknown) => {
      remote = undefined;
      throw error;
    });
    const { url, getKey } = await remote;
    try {
      return await getKey(header, token);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) throw error;
      throw new OidcUnavailableError(
        `the identity provider's keys could not be fetched from ${url}: ${reason(error)}`,
        { cause: error },
      );
    }
  };
}

async function discoverJwksUrl(issuer: string): Promise<string> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const unavailable = (why: string, cause?: unknown) =>
    new OidcUnavailableError(`the identity provider's discovery document could not be fetched from ${url}: ${why}`, {
      cause,
    });
  let document: unknown;
  try {
    const response = await fetch(url, {
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      headers: { accept: 'application/json' },
    });
    if (!response.ok) throw unavailable(`HTTP ${response.status}`);
    document = await response.json();
  } catch (error) {
    throw error instanceof OidcUnavailableError ? error : unavailable(reason(error), error);
  }
  const jwksUri = (document as { jwks_uri?: unknown } | null)?.jwks_uri;
  if (typeof jwksUri !== 'string' || !isHttpUrl(jwksUri))
    throw unavailable('it has no http(s) "jwks_uri" (or set MVE_OIDC_JWKS_URL)');
  return jwksUri;
}

/** What was wrong with the token, in words, from jose's error. Quotes claims (already signature-checked), never the token. */
function describe(error: errors.JOSEError, token: string, config: OidcConfig): string {
  if (error instanceof errors.JWTExpired) return `the token has expired (exp ${timeOf(error.payload.exp)})`;
  if (error instanceof errors.JWTClaimValidationFailed) {
    const { claim, reason: why, payload } = error;
    if (why === 'missing') return `the token has no "${claim}" claim`;
    if (claim === 'iss')
      return `the token was issued by ${quote(payload.iss)}, not the configured issuer ${quote(config.issuer)}`;
    if (claim === 'aud') return `the token is for audience ${quote(payload.aud)}, not ${quote(config.audience)}`;
    if (claim === 'nbf' && why === 'check_failed') return `the token is not valid yet (nbf ${timeOf(payload.nbf)})`;
    return `the token's "${claim}" claim is invalid (${error.message})`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return `the token is signed with alg ${quote(headerAlg(token))}, which is not allowed (only ${ALGORITHMS.join(', ')})`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return "the token's signature does not verify against the issuer's keys";
  if (error instanceof errors.JWKSNoMatchingKey) {
    return "the token's signature does not verify against the issuer's keys (none of them matches its kid and alg)";
  }
  if (error instanceof errors.JWKSMultipleMatchingKeys) {
    return "the token's signature cannot be checked: several of the issuer's keys match it (the token names no kid)";
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid)
    return `the token is not a well-formed JWT (${error.message})`;
  return `the token was refused (${error.message})`;
}

/** A claim by exact name (namespaced claims such as `https://example.com/roles` contain dots), else by dotted path. */
function readClaim(payload: JWTPayload, path: string): unknown {
  if (Object.hasOwn(payload, path)) return payload[path];
  let value: unknown = payload;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** An array of strings or one space/comma separated string; anything that is not a plausible role name is dropped. */
function parseRoles(claim: unknown): string[] {
  const raw = typeof claim === 'string' ? claim.split(/[\s,]+/) : Array.isArray(claim) ? claim : [];
  const roles = raw.filter((role): role is string => typeof role === 'string').map((role) => role.trim().toLowerCase());
  return [...new Set(roles.filter((role) => ROLE_FORMAT.test(role)))];
}

function claimPath(env: NodeJS.ProcessEnv, variable: string, fallback: string): string {
  const value = env[variable]?.trim() || fallback;
  if (value.split('.').some((part) => !part))
    throw new ConfigError(`${variable}: ${JSON.stringify(value)} is not a claim name or dotted path`);
  return value;
}

function isHttpUrl(value: string): boolean {
  return URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol);
}

function headerAlg(token: string): unknown {
  try {
    return decodeProtectedHeader(token).alg;
  } catch {
    return undefined;
  }
}

function timeOf(seconds: unknown): string {
  return typeof seconds === 'number' && Number.isFinite(seconds)
    ? new Date(seconds * 1000).toISOString()
    : quote(seconds);
}

/** A claim value for a message: JSON, cut short, so an odd value cannot flood or forge log lines. */
function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** Why a fetch failed: fetch's own "fetch failed" says little, the cause (ECONNREFUSED, ENOTFOUND...) says more. */
function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const detail = cause?.code ?? cause?.message;
  return typeof detail === 'string' && detail ? `${error.message} (${detail})` : error.message;
}

/** The qualified id of an OIDC person: `<issuer>#<username>`, which no API token's owner can equal (it has a colon). */
export function oidcQualifiedId(issuer: string, username: string): string {
  return `${issuer}#${username}`;
}
