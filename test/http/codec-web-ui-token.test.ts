/**
 * The codec server as a production Temporal Web UI calls it (`mve-orders serve`; docs/deploy.md, "The Temporal Web
 * UI"): the UI signs people in with OIDC itself and, with "pass access token" on, sends the signed-in person's access
 * token as `Authorization: Bearer` and their ID token as `Authorization-Extras`, from its own origin, to
 * `…/decode?preserveStorageRefs=true`. The API verifies that access token as it verifies any (issuer, audience,
 * signature, expiry) and decodes for the ops and admin roles only; an ID token (the UI's `useIdTokenAsBearer`) is not
 * for this API's audience, and `Authorization-Extras` is never taken as a credential.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest, { type TestFn } from 'ava';
import type { FastifyInstance } from 'fastify';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { buildApiServer, createAuthenticator } from '../../client/http/index.js';
import { createOidcVerifier } from '../../client/http/auth/oidc.js';
import { startApiEngine, type ApiEngine } from '../helpers/api.js';
import { answerOf, type ApiAnswer } from '../helpers/api-call.js';
import { encryptedJson, type JsonPayload } from '../helpers/codec-json.js';
import { json, type ErrorBody } from '../helpers/json.js';
import { usePostgres } from '../helpers/postgres.js';

const UI_ORIGIN = 'https://temporal-ui.example.test';
/** MVE_OIDC_AUDIENCE: what the API's access tokens are for. */
const AUDIENCE = 'mve-api';
/** The Web UI's own OIDC client: its ID tokens are for it. */
const UI_CLIENT = 'temporal-ui';
const KID = 'idp-1';

interface Context {
  api: ApiEngine;
  server: FastifyInstance;
  url: string;
  issuer: string;
  key: CryptoKey;
  closeIdp: () => Promise<void>;
  payload: JsonPayload;
}

const test = anyTest as TestFn<Context>;
const pg = usePostgres(test);

test.before(async (t) => {
  const api = await startApiEngine(pg, { worker: false });
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const idp = createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })),
  );
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
  // `serve` with MVE_OIDC_* and MVE_CODEC_CORS_ORIGINS set to the Web UI's origin, over the same engine.
  const server = await buildApiServer({
    context: {
      ...api.context,
      authenticator: createAuthenticator({
        tokens: api.repository,
        oidc: createOidcVerifier({
          issuer,
          audience: AUDIENCE,
          rolesClaim: 'roles',
          usernameClaim: 'preferred_username',
          jwksUrl: `${issuer}/jwks`,
        }),
      }),
      codecCorsOrigins: [UI_ORIGIN],
    },
    readiness: { temporal: () => Promise.resolve(), postgres: () => Promise.resolve() },
  });
  const url = await server.listen({ host: '127.0.0.1', port: 0 });
  const payload = await encryptedJson(api.keyring, {
    ticketId: 'UI-TOKEN-1',
    vendorConfig: { adminPassword: 'hunter2' },
  });
  Object.assign(t.context, {
    api,
    server,
    url,
    issuer,
    key: privateKey,
    closeIdp: () => new Promise<void>((resolve) => idp.close(() => resolve())),
    payload,
  });
});

test.after.always(async (t) => {
  await t.context.server?.close();
  await t.context.closeIdp?.();
  await t.context.api?.stop();
});

const now = () => Math.floor(Date.now() / 1000);

/** A token as the identity provider issues it to the Web UI: an access token for the API unless `claims` say else. */
function token(t: { context: Context }, claims: JWTPayload & { roles?: string[] }, key = t.context.key) {
  return new SignJWT({
    iss: t.context.issuer,
    aud: AUDIENCE,
    iat: now(),
    exp: now() + 300,
    sub: 'sub-olga',
    preferred_username: 'olga',
    ...claims,
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: KID })
    .sign(key);
}

/** The decode request exactly as the Web UI sends it with "pass access token" on. */
async function decodeAsUi(t: { context: Context }, headers: Record<string, string>): Promise<ApiAnswer> {
  return answerOf(
    await fetch(`${t.context.url}/codec/default/decode?preserveStorageRefs=true`, {
      method: 'POST',
      headers: { origin: UI_ORIGIN, 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
      body: JSON.stringify({ payloads: [t.context.payload] }),
    }),
  );
}

test("the UI's preflight for its token headers is answered for its origin", async (t) => {
  const preflight = await fetch(`${t.context.url}/codec/default/decode?preserveStorageRefs=true`, {
    method: 'OPTIONS',
    headers: {
      origin: UI_ORIGIN,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,authorization-extras,content-type,x-namespace',
    },
  });
  t.is(preflight.status, 200);
  t.is(preflight.headers.get('access-control-allow-origin'), UI_ORIGIN);
  const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase();
  for (const header of ['authorization', 'authorization-extras', 'content-type', 'x-namespace'])
    t.true(allowed.includes(header), header);
});

test("an ops or admin person's access token, passed by the UI, decodes: secrets redacted", async (t) => {
  const idToken = await token(t, { aud: UI_CLIENT, roles: ['ops'] });
  for (const roles of [['ops'], ['admin'], ['finance-approver', 'ops']]) {
    const answer = await decodeAsUi(t, {
      authorization: `Bearer ${await token(t, { roles })}`,
      'authorization-extras': idToken,
    });
    t.is(answer.status, 200, `${roles.join(',')}: ${JSON.stringify(answer.body)}`);
    t.is(answer.headers.get('access-control-allow-origin'), UI_ORIGIN);
    const [decoded] = json<{ payloads: JsonPayload[] }>(answer).payloads;
    t.deepEqual(JSON.parse(Buffer.from(decoded.data, 'base64').toString('utf8')), {
      ticketId: 'UI-TOKEN-1',
      vendorConfig: { adminPassword: '[redacted]' },
    });
  }
});

test('anyone else signed in to the UI is refused 403: decoding needs the ops or admin role', async (t) => {
  for (const roles of [[], ['requester'], ['finance-approver'], ['finance-director'], ['ticket-system']]) {
    const answer = await decodeAsUi(t, { authorization: `Bearer ${await token(t, { roles })}` });
    t.is(answer.status, 403, roles.join(',') || 'no roles');
    t.regex(json<ErrorBody>(answer).error.message, /ops or admin/);
    t.is(json<{ payloads?: unknown }>(answer).payloads, undefined);
  }
});

test('tokens that are not an access token for this API are refused 401, and Authorization-Extras is no credential', async (t) => {
  const opsAccessToken = await token(t, { roles: ['ops'] });
  const { privateKey: otherKey } = await generateKeyPair('RS256');
  const refusals: Array<[string, Record<string, string>, RegExp]> = [
    // what the UI sends with useIdTokenAsBearer: the ID token, for the UI's client
    ['an ID token as bearer', { authorization: `Bearer ${await token(t, { aud: UI_CLIENT, roles: ['ops'] })}` }, /aud/],
    ['an expired token', { authorization: `Bearer ${await token(t, { roles: ['ops'], exp: now() - 120 })}` }, /exp/],
    [
      'a token of another issuer',
      { authorization: `Bearer ${await token(t, { roles: ['ops'], iss: 'https://idp.evil.test' })}` },
      /iss/,
    ],
    ['a token signed by another key', { authorization: `Bearer ${await token(t, { roles: ['ops'] }, otherKey)}` }, /./],
    ['the access token in Authorization-Extras only', { 'authorization-extras': opsAccessToken }, /./],
  ];
  for (const [what, headers, reason] of refusals) {
    const answer = await decodeAsUi(t, headers);
    t.is(answer.status, 401, what);
    t.is(json<ErrorBody>(answer).error.code, 'UNAUTHENTICATED', what);
    t.regex(json<ErrorBody>(answer).error.message, reason, what);
  }
});
