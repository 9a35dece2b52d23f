import type { TokensRepository } from '../../../infra/db/index.js';
import { authenticateApiToken, looksLikeApiToken } from './api-tokens.js';
import type { OidcVerifier } from './oidc.js';
import type { Principal } from '../../orders/index.js';
import { AuthenticationError } from './authentication-error.js';

export interface Authenticator {
  /** The principal behind an `Authorization` header; AuthenticationError (401) when there is none or it does not hold. */
  authenticate(authorization: string | undefined): Promise<Principal>;
}

/**
 * Bearer credentials of two kinds: API tokens (`mvo_…`, machines and the embedded default) checked against
 * their hashes in Postgres, and, when an issuer is configured, OIDC JWTs (people) checked against its keys.
 */
export function createAuthenticator(options: { tokens: TokensRepository; oidc?: OidcVerifier }): Authenticator {
  return {
    async authenticate(authorization) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
      if (!match)
        throw new AuthenticationError('send credentials as "Authorization: Bearer <API token or OIDC access token>"');
      const credential = match[1];
      if (looksLikeApiToken(credential)) return authenticateApiToken(options.tokens, credential);
      if (!options.oidc)
        throw new AuthenticationError('the credential is not an API token (mvo_…), and no OIDC issuer is configured');
      return options.oidc.verify(credential);
    },
  };
}
