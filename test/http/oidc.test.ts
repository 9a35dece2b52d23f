import test, { type ExecutionContext } from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base64url, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { ConfigError } from '../../config/env.js';
import {
  createOidcVerifier,
  looksLikeJwt,
  loadOidcConfig,
  OidcUnavailableError,
  type OidcConfig,
} from '../../client/http/auth/oidc.js';
import { AuthenticationError } from '../../client/http/index.js';

const AUDIENCE = 'mve-api';
const KID = 'key-1';

/** A minimal identity provider on loopback: a discovery document and a JWKS, with switches to break either. */
interface Idp {
  issuer: string;
  jwksUrl: string;
  privateKey: CryptoKey;
  requests: { discovery: number; jwks: number };
  /** The status the endpoints answer with; 200 serves the documents. */
  status: { discovery: number; jwks: number };
}

async function startIdp(t: ExecutionContext, extraKeys: JWK[] = []): Promise<Idp> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const requests = { discovery: 0, jwks: 0 };
  const status = { discovery: 200, jwks: 200 };
  const server = createServer((req, res) => {
    const send = (code: number, body: unknown) =>
      res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/.well-known/openid-configuration') {
      requests.discovery++;
      send(status.discovery, status.discovery === 200 ? { issuer, jwks_uri: `${issuer}/jwks` } : { error: 'down' });
    } else if (req.url === '/jwks') {
      requests.jwks++;
      send(status.jwks, status.jwks === 200 ? { keys: [jwk, ...extraKeys] } : { error: 'down' });
    } else {
      send(404, { error: 'not found' });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { issuer, jwksUrl: `${issuer}/jwks`, privateKey, requests, status };
}

function configFor(idp: Idp, overrides: Partial<OidcConfig> = {}): OidcConfig {
  return {
    issuer: idp.issuer,
    audience: AUDIENCE,
    rolesClaim: 'roles',
    usernameClaim: 'preferred_username',
    jwksUrl: idp.jwksUrl,
    ...overrides,
  };
}

const now = () => Math.floor(Date.now() / 1000);

/** A token as the IdP would issue it; `claims` override or (when undefined) remove the defaults. */
async function sign(
  idp: Idp,
  claims: Record<string, unknown> = {},
  options: { key?: CryptoKey | Uint8Array; alg?: string; kid?: string | null } = {},
): Promise<string> {
  const defaults: JWTPayload = {
    iss: idp.issuer,
    aud: AUDIENCE,
    exp: now() + 300,
    iat: now(),
    sub: 'u-1',
    preferred_username: 'alice',
    roles: ['requester'],
  };
  const payload = Object.fromEntries(
    Object.entries({ ...defaults, ...claims }).filter(([, value]) => value !== undefined),
  );
  const kid = options.kid === undefined ? KID : options.kid;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: options.alg ?? 'RS256', typ: 'JWT', ...(kid === null ? {} : { kid }) })
    .sign(options.key ?? idp.privateKey);
}

/** Asserts that verification fails with an AuthenticationError whose message matches, and never holds the token. */
async function refused(
  t: ExecutionContext,
  idp: Idp,
  token: string,
  message: RegExp,
  config = configFor(idp),
): Promise<string> {
  const error = await t.throwsAsync(createOidcVerifier(config).verify(token), {
    instanceOf: AuthenticationError,
    message,
  });
  t.false(error.message.includes(token), 'the message must not contain the token');
  return error.message;
}

test('a good token gives the principal: trimmed username, lower-cased roles, unusable roles dropped', async (t) => {
  const idp = await startIdp(t);
  const token = await sign(idp, {
    preferred_username: '  alice  ',
    roles: ['Admin', 'finance-approver', 'not a role!', 42, 'ops', 'ops'],
  });
  const principal = await createOidcVerifier(configFor(idp)).verify(token);
  t.deepEqual(principal, {
    id: 'alice',
    qualifiedId: `${idp.issuer}#alice`,
    roles: ['admin', 'finance-approver', 'ops'],
    via: { kind: 'oidc', issuer: idp.issuer },
  });
});

test('roles are read by dotted path (realm_access.roles), or by a claim name that itself contains dots', async (t) => {
  const idp = await startIdp(t);
  const verifier = createOidcVerifier(configFor(idp, { rolesClaim: 'realm_access.roles' }));
  const token = await sign(idp, { roles: undefined, realm_access: { roles: ['ops', 'Finance-Approver'] } });
  t.deepEqual((await verifier.verify(token)).roles, ['ops', 'finance-approver']);

  const namespaced = createOidcVerifier(configFor(idp, { rolesClaim: 'https://mve.example.com/roles' }));
  t.deepEqual((await namespaced.verify(await sign(idp, { 'https://mve.example.com/roles': ['admin'] }))).roles, [
    'admin',
  ]);
});

test('a roles claim may be one space- or comma-separated string; a missing one gives no roles', async (t) => {
  const idp = await startIdp(t);
  const verifier = createOidcVerifier(configFor(idp, { rolesClaim: 'scope' }));
  t.deepEqual((await verifier.verify(await sign(idp, { scope: 'requester  OPS,admin, openid' }))).roles, [
    'requester',
    'ops',
    'admin',
    'openid',
  ]);
  t.deepEqual((await verifier.verify(await sign(idp))).roles, []);
});

test('the username claim is configurable; a token without it is refused, naming the claim and the variable', async (t) => {
  const idp = await startIdp(t);
  const byEmail = createOidcVerifier(configFor(idp, { usernameClaim: 'email' }));
  t.is((await byEmail.verify(await sign(idp, { email: 'bob@example.com' }))).id, 'bob@example.com');

  await refused(
    t,
    idp,
    await sign(idp, { preferred_username: undefined }),
    /^the token has no "preferred_username" claim \(set MVE_OIDC_USERNAME_CLAIM\)$/,
  );
  await refused(
    t,
    idp,
    await sign(idp, { preferred_username: '   ' }),
    /"preferred_username" claim is not a non-empty string.*MVE_OIDC_USERNAME_CLAIM/,
  );
  await refused(
    t,
    idp,
    await sign(idp, { preferred_username: ['alice'] }),
    /"preferred_username" claim is not a non-empty string/,
  );
});

test("a person's qualified id names the issuer, so no username can equal an API token's owner", async (t) => {
  const idp = await startIdp(t);
  const verifier = createOidcVerifier(configFor(idp));
  const bot = await verifier.verify(await sign(idp, { preferred_username: 'Ticket-Bot', roles: ['ticket-system'] }));
  t.is(bot.id, 'Ticket-Bot', 'the name a person acts under is the username, as before');
  t.is(bot.qualifiedId, `${idp.issuer}#Ticket-Bot`);
  // A token owner is letters, digits and . _ @ - (the tokens repository refuses anything else): never a colon.
  t.true(bot.qualifiedId.includes(':'));
  t.is((await verifier.verify(await sign(idp, { preferred_username: 'fiona' }))).qualifiedId, `${idp.issuer}#fiona`);
});

test('a username over 128 characters or with a control character is refused', async (t) => {
  const idp = await startIdp(t);
  t.is(
    (await createOidcVerifier(configFor(idp)).verify(await sign(idp, { preferred_username: 'a'.repeat(128) }))).id
      .length,
    128,
  );
  for (const username of ['a'.repeat(129), 'alice\nbob', 'alice\u0000', 'ali\u007fce']) {
    await refused(
      t,
      idp,
      await sign(idp, { preferred_username: username }),
      /^the token's "preferred_username" claim is longer than 128 characters or holds a control character$/,
    );
  }
});

test('an issuer that is not an http(s) URL, or too long for a qualified id, is a ConfigError', (t) => {
  const config = (issuer: string): OidcConfig => ({
    issuer,
    audience: AUDIENCE,
    rolesClaim: 'roles',
    usernameClaim: 'preferred_username',
  });
  t.throws(() => createOidcVerifier(config('idp.example.com')), { instanceOf: ConfigError, message: /http\(s\) URL/ });
  t.throws(() => createOidcVerifier(config(`https://idp.example.com/${'r'.repeat(110)}`)), {
    instanceOf: ConfigError,
    message: /^MVE_OIDC_ISSUER: longer than 126 characters/,
  });
  t.notThrows(() => createOidcVerifier(config(`https://idp.example.com/${'r'.repeat(102)}`)));
});

test('an expired token is refused; one expired within the clock tolerance is not', async (t) => {
  const idp = await startIdp(t);
  const message = await refused(t, idp, await sign(idp, { exp: now() - 120 }), /^the token has expired/);
  t.regex(message, /\d{4}-\d\d-\d\dT/, 'says when');
  t.is((await createOidcVerifier(configFor(idp)).verify(await sign(idp, { exp: now() - 10 }))).id, 'alice');
  await refused(
    t,
    idp,
    await sign(idp, { exp: now() - 10 }),
    /^the token has expired/,
    configFor(idp, { clockToleranceSeconds: 0 }),
  );
});

test('a token without exp is refused', async (t) => {
  const idp = await startIdp(t);
  await refused(t, idp, await sign(idp, { exp: undefined }), /^the token has no "exp" claim$/);
});

test('a token not yet valid (nbf in the future) is refused', async (t) => {
  const idp = await startIdp(t);
  await refused(t, idp, await sign(idp, { nbf: now() + 600 }), /^the token is not valid yet \(nbf \d{4}-/);
});

test('a token for another audience is refused, naming both audiences', async (t) => {
  const idp = await startIdp(t);
  await refused(
    t,
    idp,
    await sign(idp, { aud: 'other-api' }),
    /^the token is for audience "other-api", not "mve-api"$/,
  );
  await refused(t, idp, await sign(idp, { aud: ['a', 'b'] }), /audience \["a","b"\], not "mve-api"/);
  // One of several audiences is enough.
  t.is(
    (await createOidcVerifier(configFor(idp)).verify(await sign(idp, { aud: ['other-api', AUDIENCE] }))).id,
    'alice',
  );
});

test('a token from another issuer is refused, naming both issuers', async (t) => {
  const idp = await startIdp(t);
  const message = await refused(
    t,
    idp,
    await sign(idp, { iss: 'https://evil.example.com' }),
    /^the token was issued by "https:\/\/evil\.example\.com", not the configured issuer/,
  );
  t.true(message.includes(JSON.stringify(idp.issuer)));
});

test('a token signed by a key the issuer does not publish is refused', async (t) => {
  const idp = await startIdp(t);
  const other = await generateKeyPair('RS256');
  await refused(
    t,
    idp,
    await sign(idp, {}, { key: other.privateKey, kid: 'unknown-key' }),
    /^the token's signature does not verify against the issuer's keys/,
  );
  // The same kid as the published key does not help: the signature is checked against the published key.
  await refused(
    t,
    idp,
    await sign(idp, {}, { key: other.privateKey }),
    /^the token's signature does not verify against the issuer's keys$/,
  );
  await refused(
    t,
    idp,
    await sign(idp, {}, { key: other.privateKey, kid: null }),
    /^the token's signature does not verify against the issuer's keys$/,
  );
});

test('a token whose payload was altered after signing is refused', async (t) => {
  const idp = await startIdp(t);
  const [header, , signature] = (await sign(idp)).split('.');
  const forged = base64url.encode(
    JSON.stringify({
      iss: idp.issuer,
      aud: AUDIENCE,
      exp: now() + 300,
      preferred_username: 'mallory',
      roles: ['admin'],
    }),
  );
  await refused(
    t,
    idp,
    `${header}.${forged}.${signature}`,
    /^the token's signature does not verify against the issuer's keys$/,
  );
});

test('HS256 (signed with a shared secret) and alg none are refused before any key is looked up', async (t) => {
  const idp = await startIdp(t);
  const secret = new TextEncoder().encode('a-secret-anyone-with-the-config-could-know-32b');
  await refused(
    t,
    idp,
    await sign(idp, {}, { key: secret, alg: 'HS256' }),
    /^the token is signed with alg "HS256", which is not allowed \(only RS256/,
  );
  const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }));
  const payload = base64url.encode(
    JSON.stringify({ iss: idp.issuer, aud: AUDIENCE, exp: now() + 300, preferred_username: 'mallory' }),
  );
  await refused(t, idp, `${header}.${payload}.`, /alg "none", which is not allowed/);
  t.is(idp.requests.jwks, 0);
});

test('the JWKS may hold several keys of several types; the kid picks one', async (t) => {
  const ec = await generateKeyPair('ES256');
  const ed = await generateKeyPair('EdDSA');
  const idp = await startIdp(t, [
    { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
    { ...(await exportJWK(ed.publicKey)), kid: 'ed-1', alg: 'EdDSA', use: 'sig' },
  ]);
  const verifier = createOidcVerifier(configFor(idp));
  t.is(
    (
      await verifier.verify(
        await sign(idp, { preferred_username: 'ec' }, { key: ec.privateKey, alg: 'ES256', kid: 'ec-1' }),
      )
    ).id,
    'ec',
  );
  t.is(
    (
      await verifier.verify(
        await sign(idp, { preferred_username: 'ed' }, { key: ed.privateKey, alg: 'EdDSA', kid: 'ed-1' }),
      )
    ).id,
    'ed',
  );
  t.is((await verifier.verify(await sign(idp, { preferred_username: 'rs' }))).id, 'rs');
  t.is(idp.requests.jwks, 1, 'the key set is fetched once and cached');
  // The ES256 key's kid with an RS256 signature: no published key fits.
  await refused(
    t,
    idp,
    await sign(idp, {}, { kid: 'ec-1' }),
    /does not verify against the issuer's keys \(none of them matches its kid and alg\)/,
  );
});

test('without jwksUrl the keys are found through the issuer discovery document, fetched once on first verify', async (t) => {
  const idp = await startIdp(t);
  const verifier = createOidcVerifier(configFor(idp, { jwksUrl: undefined }));
  t.is(idp.requests.discovery, 0, 'nothing is fetched before the first verify');
  const tokens = await Promise.all([
    sign(idp),
    sign(idp, { preferred_username: 'bob' }),
    sign(idp, { preferred_username: 'carol' }),
  ]);
  const principals = await Promise.all(tokens.map((token) => verifier.verify(token)));
  t.deepEqual(
    principals.map((p) => p.id),
    ['alice', 'bob', 'carol'],
  );
  await verifier.verify(tokens[0]);
  t.is(idp.requests.discovery, 1);
  t.is(idp.requests.jwks, 1);
});

test('a failed discovery is a distinct OidcUnavailableError, and is retried on the next request', async (t) => {
  const idp = await startIdp(t);
  idp.status.discovery = 503;
  const verifier = createOidcVerifier(configFor(idp, { jwksUrl: undefined }));
  const token = await sign(idp);
  const error = await t.throwsAsync(verifier.verify(token), { instanceOf: OidcUnavailableError });
  t.false(error instanceof AuthenticationError);
  t.regex(
    error.message,
    /discovery document could not be fetched from http:\/\/127\.0\.0\.1:\d+\/\.well-known\/openid-configuration: HTTP 503/,
  );
  t.false(error.message.includes(token));
  idp.status.discovery = 200;
  t.is((await verifier.verify(token)).id, 'alice');
});

test('a JWKS endpoint that fails or is down gives OidcUnavailableError naming the URL, not an authentication error', async (t) => {
  const idp = await startIdp(t);
  idp.status.jwks = 500;
  const verifier = createOidcVerifier(configFor(idp));
  const token = await sign(idp);
  const failing = await t.throwsAsync(verifier.verify(token), { instanceOf: OidcUnavailableError });
  t.true(failing.message.startsWith(`the identity provider's keys could not be fetched from ${idp.jwksUrl}: `));
  t.false(failing.message.includes(token));
  idp.status.jwks = 200;
  t.is((await verifier.verify(token)).id, 'alice', 'the next request tries again');

  // Nothing listening at all.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/jwks`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const down = await t.throwsAsync(createOidcVerifier(configFor(idp, { jwksUrl: deadUrl })).verify(token), {
    instanceOf: OidcUnavailableError,
  });
  t.regex(
    down.message,
    new RegExp(
      `^the identity provider's keys could not be fetched from ${deadUrl.replaceAll('.', '\\.')}: .*ECONNREFUSED`,
    ),
  );
});

test('malformed bearer values are refused as authentication errors', async (t) => {
  const idp = await startIdp(t);
  for (const token of [
    '',
    'x',
    'a.b',
    'a.b.c.d',
    'a b.c.d',
    'a.b.c',
    'bm90IGpzb24.e30.c2ln',
    `${'a'.repeat(20_000)}.b.c`,
  ]) {
    await t.throwsAsync(
      createOidcVerifier(configFor(idp)).verify(token),
      {
        instanceOf: AuthenticationError,
        message: /^the (bearer )?token (is not a well-formed JWT|is signed with alg)/,
      },
      JSON.stringify(token.slice(0, 40)),
    );
  }
  t.is(idp.requests.jwks, 0);
});

test('no error message contains the token or any part of it', async (t) => {
  const idp = await startIdp(t);
  const other = await generateKeyPair('RS256');
  const good = await sign(idp);
  const [header, , signature] = good.split('.');
  const tokens = [
    await sign(idp, { exp: now() - 120 }),
    await sign(idp, { nbf: now() + 600 }),
    await sign(idp, { aud: 'other-api' }),
    await sign(idp, { iss: 'https://evil.example.com' }),
    await sign(idp, { preferred_username: undefined }),
    await sign(idp, {}, { key: other.privateKey }),
    await sign(idp, {}, { key: other.privateKey, kid: 'unknown' }),
    await sign(idp, {}, { key: new TextEncoder().encode('s'.repeat(32)), alg: 'HS256' }),
    `${header}.${base64url.encode('{"preferred_username":"mallory"}')}.${signature}`,
    `${header}.e30.${signature}`,
  ];
  const verifier = createOidcVerifier(configFor(idp));
  for (const token of tokens) {
    const error = await t.throwsAsync(verifier.verify(token), { instanceOf: AuthenticationError });
    for (const part of token.split('.').filter((part) => part.length > 8))
      t.false(error.message.includes(part), error.message);
  }
});

test('looksLikeJwt tells a compact JWS from an API token', async (t) => {
  const idp = await startIdp(t);
  t.true(looksLikeJwt(await sign(idp)));
  t.true(looksLikeJwt('eyJhbGciOiJub25lIn0.e30.'));
  for (const value of ['mvo_abcdefgh12_' + 'A'.repeat(43), '', 'a.b', 'a.b.c.d', 'a.b c.d', 'a+b.c.d', 'a..c'])
    t.false(looksLikeJwt(value), value);
});

test('loadOidcConfig: undefined without an issuer; defaults for the claims', (t) => {
  t.is(loadOidcConfig({}), undefined);
  t.is(loadOidcConfig({ MVE_OIDC_ISSUER: '  ', MVE_OIDC_AUDIENCE: 'x' }), undefined);
  t.deepEqual(loadOidcConfig({ MVE_OIDC_ISSUER: 'https://idp.example.com/realms/mve', MVE_OIDC_AUDIENCE: 'mve-api' }), {
    issuer: 'https://idp.example.com/realms/mve',
    audience: 'mve-api',
    rolesClaim: 'roles',
    usernameClaim: 'preferred_username',
  });
  t.deepEqual(
    loadOidcConfig({
      MVE_OIDC_ISSUER: 'https://idp.example.com/',
      MVE_OIDC_AUDIENCE: 'mve-api',
      MVE_OIDC_ROLES_CLAIM: 'realm_access.roles',
      MVE_OIDC_USERNAME_CLAIM: 'email',
      MVE_OIDC_JWKS_URL: 'https://idp.example.com/keys',
    }),
    {
      issuer: 'https://idp.example.com/',
      audience: 'mve-api',
      rolesClaim: 'realm_access.roles',
      usernameClaim: 'email',
      jwksUrl: 'https://idp.example.com/keys',
    },
  );
});

test('loadOidcConfig: an incomplete or malformed configuration is a ConfigError naming the variable', (t) => {
  const issuer = 'https://idp.example.com';
  t.throws(() => loadOidcConfig({ MVE_OIDC_ISSUER: issuer }), {
    instanceOf: ConfigError,
    message: /^MVE_OIDC_AUDIENCE is not set/,
  });
  t.throws(() => loadOidcConfig({ MVE_OIDC_ISSUER: issuer, MVE_OIDC_AUDIENCE: ' ' }), {
    instanceOf: ConfigError,
    message: /^MVE_OIDC_AUDIENCE/,
  });
  for (const bad of ['idp.example.com', 'not a url', 'ftp://idp.example.com']) {
    t.throws(
      () => loadOidcConfig({ MVE_OIDC_ISSUER: bad, MVE_OIDC_AUDIENCE: 'a' }),
      { instanceOf: ConfigError, message: /^MVE_OIDC_ISSUER: .* is not an http\(s\) URL$/ },
      bad,
    );
  }
  t.throws(() => loadOidcConfig({ MVE_OIDC_ISSUER: issuer, MVE_OIDC_AUDIENCE: 'a', MVE_OIDC_JWKS_URL: '/jwks' }), {
    instanceOf: ConfigError,
    message: /^MVE_OIDC_JWKS_URL/,
  });
  t.throws(
    () =>
      loadOidcConfig({ MVE_OIDC_ISSUER: issuer, MVE_OIDC_AUDIENCE: 'a', MVE_OIDC_ROLES_CLAIM: 'realm_access..roles' }),
    { instanceOf: ConfigError, message: /^MVE_OIDC_ROLES_CLAIM/ },
  );
  t.throws(
    () => loadOidcConfig({ MVE_OIDC_ISSUER: issuer, MVE_OIDC_AUDIENCE: 'a', MVE_OIDC_USERNAME_CLAIM: '.email' }),
    { instanceOf: ConfigError, message: /^MVE_OIDC_USERNAME_CLAIM/ },
  );
});
