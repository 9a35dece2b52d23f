import { randomBytes } from 'node:crypto';

export const SIM_ENVIRONMENTS = ['staging', 'production'] as const;
export type SimEnvironment = (typeof SIM_ENVIRONMENTS)[number];
export type SimRole = 'Company Admin' | 'Read Only';

/** An API key of the simulator: like the real ones, valid only in the environment it belongs to. */
export interface SimClient {
  environment: SimEnvironment;
  clientId: string;
  clientSecret: string;
  role: SimRole;
}

interface IssuedToken {
  environment: SimEnvironment;
  clientId: string;
  role: SimRole;
  expiresAt: number;
}

export type TokenCheck = { ok: true; token: IssuedToken } | { ok: false; status: 401; message: string };

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
}

/** A Company Admin and a Read Only key for staging and a Company Admin key for production, with fresh secrets. */
export function defaultClients(): SimClient[] {
  const secret = () => randomBytes(18).toString('base64url');
  return [
    { environment: 'staging', clientId: 'sim-staging-admin', clientSecret: secret(), role: 'Company Admin' },
    { environment: 'staging', clientId: 'sim-staging-readonly', clientSecret: secret(), role: 'Read Only' },
    { environment: 'production', clientId: 'sim-production-admin', clientSecret: secret(), role: 'Company Admin' },
  ];
}

/** Issues opaque bearer tokens bound to an environment and a key, and checks them on every API call. */
export class TokenAuthority {
  readonly #tokens = new Map<string, IssuedToken>();
  #issued = 0;

  constructor(
    private readonly clients: readonly SimClient[],
    private readonly ttlSeconds: number,
  ) {}

  get issuedCount(): number {
    return this.#issued;
  }

  /** The key for a Basic `Authorization` header at `environment`'s token endpoint, if it is one of ours. */
  authenticateClient(environment: SimEnvironment, authorization: string | undefined): SimClient | undefined {
    const match = /^Basic\s+(\S+)$/i.exec(authorization ?? '');
    if (!match) return undefined;
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    const [id, secret] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
    return this.clients.find((c) => c.environment === environment && c.clientId === id && c.clientSecret === secret);
  }

  issue(client: SimClient): { access_token: string; expires_in: number; token_type: 'Bearer' } {
    const accessToken = randomBytes(24).toString('base64url');
    this.#tokens.set(accessToken, {
      environment: client.environment,
      clientId: client.clientId,
      role: client.role,
      expiresAt: Date.now() + this.ttlSeconds * 1000,
    });
    this.#issued += 1;
    return { access_token: accessToken, expires_in: this.ttlSeconds, token_type: 'Bearer' };
  }

  check(environment: SimEnvironment, authorization: string | undefined): TokenCheck {
    const presented = bearerToken(authorization);
    if (!presented)
      return { ok: false, status: 401, message: 'Missing bearer token: send Authorization: Bearer <token>' };
    const token = this.#tokens.get(presented);
    if (!token) return { ok: false, status: 401, message: 'Invalid access token' };
    if (token.environment !== environment) {
      return {
        ok: false,
        status: 401,
        message: `Access token was issued for ${token.environment}, not ${environment}`,
      };
    }
    if (Date.now() >= token.expiresAt) return { ok: false, status: 401, message: 'Access token expired' };
    return { ok: true, token };
  }

  /** Makes this token expire now, as if its lifetime had run out. */
  expire(accessToken: string): void {
    const token = this.#tokens.get(accessToken);
    if (token) token.expiresAt = Date.now();
  }

  expireAll(): void {
    for (const token of this.#tokens.values()) token.expiresAt = Date.now();
  }
}
