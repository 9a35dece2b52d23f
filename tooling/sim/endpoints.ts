import type { SimEnvironment, SimClient } from './auth.js';
import type { SimEndpoint } from './faults.js';
import { apiError, ok, parseJsonBody, type SimResponse } from './http.js';
import { buy, validate } from './orders.js';
import { readProduct } from './products.js';
import type { SimState } from './state.js';

export interface SimCall {
  endpoint: SimEndpoint;
  environment: SimEnvironment;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
  /** The product's uid, from the path of a product read. */
  productUid?: string;
}

const TERMS_TEXT = 'Simulated service: nothing is provisioned and nothing is charged.';

/** Answers one API call of one environment, after faults: authentication, permission, then the endpoint. */
export function handleApiCall(state: SimState, call: SimCall): SimResponse {
  if (call.endpoint === 'token') return issueToken(state, call);
  const auth = state.authority.check(call.environment, call.authorization);
  if (!auth.ok) return apiError(auth.status, auth.message);
  const client = { environment: call.environment, clientId: auth.token.clientId };
  switch (call.endpoint) {
    case 'locations':
      return ok({ message: 'List all public locations', terms: TERMS_TEXT, data: state.catalog.locations });
    case 'images':
      return ok({ message: 'MVE images', terms: TERMS_TEXT, data: { mveImages: state.catalog.imageGroups } });
    case 'variants':
      return ok({ message: 'MVE variants', terms: TERMS_TEXT, data: state.catalog.variants });
    case 'validate':
      return withJson(call.body, (body) => validate(state.catalog, body, TERMS_TEXT));
    case 'buy':
      if (auth.token.role === 'Read Only') {
        return apiError(
          403,
          `Forbidden: API key ${auth.token.clientId} has the Read Only role and cannot order services`,
        );
      }
      return withJson(call.body, (body) => buy(state, client, body, TERMS_TEXT));
    case 'product':
      return readProduct(state, call.environment, call.productUid ?? '', TERMS_TEXT);
  }
}

/** Spec 4.6: Basic authentication of the key, form-encoded grant_type=client_credentials. */
function issueToken(state: SimState, call: SimCall): SimResponse {
  if (!(call.contentType ?? '').startsWith('application/x-www-form-urlencoded')) {
    return oauthError(400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded');
  }
  const grantType = new URLSearchParams(call.body).get('grant_type');
  if (grantType !== 'client_credentials') {
    return oauthError(400, 'unsupported_grant_type', 'grant_type must be client_credentials');
  }
  const client: SimClient | undefined = state.authority.authenticateClient(call.environment, call.authorization);
  if (!client) {
    return oauthError(401, 'invalid_client', `Unknown API key or wrong secret for the ${call.environment} environment`);
  }
  return ok(state.authority.issue(client));
}

function oauthError(status: number, error: string, description: string): SimResponse {
  return { status, body: { error, error_description: description, message: description, data: null } };
}

function withJson(text: string, handle: (body: unknown) => SimResponse): SimResponse {
  const parsed = parseJsonBody(text);
  return parsed.ok ? handle(parsed.value) : parsed.response;
}
