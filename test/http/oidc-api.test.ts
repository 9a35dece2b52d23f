/**
 * OIDC through the HTTP API: the real engine behind the real server, whose authenticator takes API tokens
 * (Postgres) and JWTs from an identity provider served on loopback (a JWKS signed for with jose). A person's
 * JWT says who they are; approvals by JWT reach the workflow and are recorded under that identity; bad
 * tokens are 401 with the reason; a provider that cannot be reached is 503, not the caller's fault. People and
 * machines are apart: a username equal to an API token's owner gives nothing of what that token submitted, and
 * the other way round; and a person whose token carries no role reads no order, not even their own.
 */
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_LIVE_READS, LiveReads, OrderIntake, OrderService } from '../../client/orders/index.js';
import { buildApiServer, createAuthenticator, issueApiToken, type ApiContext } from '../../client/http/index.js';
import { createOidcVerifier } from '../../client/http/auth/oidc.js';
import type {
  ApiOrder,
  OrderHistory,
  OrderList,
  PendingApproval,
  SubmitResult,
  VoteResult,
} from '../../client/http-client/index.js';
import { SIM_KIND_MAP } from '../../tooling/sim/index.js';
import { usePostgres } from '../helpers/postgres.js';
import { orderOf, startOrderEngine, sydneyRequest, type OrderEngine } from '../helpers/orders.js';
import { waitFor, waitForState } from '../helpers/wait.js';
import { callApi, type ApiAnswer } from '../helpers/api-call.js';
import { json, type ErrorBody } from '../helpers/json.js';

const AUDIENCE = 'mve-api';
const KID = 'idp-key-1';

interface Idp {
  issuer: string;
  jwksUrl: string;
  privateKey: CryptoKey;
  jwksRequests: number;
  close(): Promise<void>;
}

interface Context {
  engine: OrderEngine;
  idp: Idp;
  app: FastifyInstance;
  url: string;
  context: ApiContext;
  tokens: { alice: string; olga: string; bot: string; aliceBot: string };
}

const test = anyTest as TestFn<Context>;
const pg = usePostgres(test);

/** An identity provider on loopback: its discovery document and its signing key's JWKS. */
async function startIdp(): Promise<Idp> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const idp = { jwksRequests: 0 } as Idp;
  const server = createServer((request, response) => {
    const send = (code: number, body: unknown) =>
      response.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.url === '/.well-known/openid-configuration') send(200, { issuer: idp.issuer, jwks_uri: idp.jwksUrl });
    else if (request.url === '/jwks') {
      idp.jwksRequests++;
      send(200, { keys: [jwk] });
    } else send(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  idp.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  idp.jwksUrl = `${idp.issuer}/jwks`;
  idp.privateKey = privateKey;
  idp.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return idp;
}

const now = () => Math.floor(Date.now() / 1000);

/** A JWT as the provider would issue it; `claims` override the defaults. */
async function jwt(
  idp: Idp,
  claims: JWTPayload & { roles?: string[]; preferred_username?: string },
  key: CryptoKey = idp.privateKey,
): Promise<string> {
  return new SignJWT({
    iss: idp.issuer,
    aud: AUDIENCE,
    iat: now(),
    exp: now() + 300,
    sub: `sub-${claims.preferred_username ?? 'x'}`,
    ...claims,
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: KID })
    .sign(key);
}

/** The API's context over the engine, as test/helpers/api.ts builds it, with an OIDC verifier as well. */
function contextFor(engine: OrderEngine, oidc: Parameters<typeof createOidcVerifier>[0]): ApiContext {
  const log = (line: string) => void (process.env['API_TEST_LOG'] && console.error(line));
  const service = new OrderService({
    orders: engine.orders,
    intake: new OrderIntake({
      orders: engine.orders,
      repository: engine.repository,
      fingerprintKeys: engine.actionKeys,
      kindMap: SIM_KIND_MAP,
    }),
    repository: engine.repository,
    temporal: engine.client,
    codecKeys: engine.keyring,
    liveReads: new LiveReads(DEFAULT_LIVE_READS),
    log,
  });
  return {
    service,
    authenticator: createAuthenticator({ tokens: engine.repository, oidc: createOidcVerifier(oidc) }),
    codecKeys: engine.keyring,
    codecCorsOrigins: [],
    log,
  };
}

const readiness = (engine: OrderEngine) => ({
  temporal: async () => void (await engine.client.connection.workflowService.getSystemInfo({})),
  postgres: async () => void (await engine.db.sql`SELECT 1`),
});

test.before(async (t) => {
  const engine = await startOrderEngine(pg);
  const idp = await startIdp();
  const context = contextFor(engine, {
    issuer: idp.issuer,
    audience: AUDIENCE,
    rolesClaim: 'roles',
    usernameClaim: 'preferred_username',
    jwksUrl: idp.jwksUrl,
  });
  const app = await buildApiServer({ context, readiness: readiness(engine) });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const tokens = {
    alice: (await issueApiToken(engine.repository, { owner: 'alice', roles: ['requester'] })).token,
    olga: (await issueApiToken(engine.repository, { owner: 'olga', roles: ['ops'] })).token,
    bot: (await issueApiToken(engine.repository, { owner: 'ticket-bot', roles: ['ticket-system'] })).token,
    /** A machine whose owner happens to be a person's username. */
    aliceBot: (await issueApiToken(engine.repository, { owner: 'alice', roles: ['ticket-system'] })).token,
  };
  t.context = { engine, idp, app, url, context, tokens };
});
test.after.always(async (t) => {
  await t.context.app?.close();
  await t.context.idp?.close();
  await t.context.engine?.stop();
});

/** A request to the API (of the server at `url`) with `token` as the bearer credential. */
function call(
  t: ExecutionContext<Context>,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
  url = t.context.url,
): Promise<ApiAnswer> {
  return callApi(url, method, path, { token, body });
}

/** alice submits (with her API token) an order that needs one finance approver; answers its current quote. */
async function awaitingApproval(
  t: ExecutionContext<Context>,
  ticketId: string,
): Promise<{ monthlyRate: number; currency: string }> {
  const submitted = await call(
    t,
    'POST',
    '/api/v1/orders',
    t.context.tokens.alice,
    sydneyRequest(ticketId, { size: 'MVE 8/32' }),
  );
  t.is(submitted.status, 201, JSON.stringify(submitted.body));
  const status = await waitForState(t.context.engine.orders, ticketId, 'AWAITING_APPROVAL');
  return { monthlyRate: Number(status.quote!.monthlyRate), currency: status.quote!.currency };
}

test('a valid JWT is a person: /api/v1/me says who, with the roles from the token, via oidc', async (t) => {
  const token = await jwt(t.context.idp, { preferred_username: 'fiona', roles: ['finance-approver'] });
  const me = await call(t, 'GET', '/api/v1/me', token);
  t.is(me.status, 200, JSON.stringify(me.body));
  t.deepEqual(me.body, {
    id: 'fiona',
    qualifiedId: `${t.context.idp.issuer}#fiona`,
    roles: ['finance-approver'],
    via: 'oidc',
    can: {
      readOrders: true,
      submit: false,
      approve: true,
      seeAllOrders: true,
      resolveBuys: false,
      readHistoryPayloads: false,
    },
  });
  // API tokens still work beside OIDC; their owner is their qualified id as it always was.
  const machine = await call(t, 'GET', '/api/v1/me', t.context.tokens.olga);
  t.like(machine.body, { id: 'olga', qualifiedId: 'olga', via: 'token' });
});

test('fiona approves by JWT an order alice submitted by API token: it is BOUGHT, the vote recorded as fiona', async (t) => {
  const quote = await awaitingApproval(t, 'OIDC-APPROVE-1');
  const fiona = await jwt(t.context.idp, { preferred_username: 'fiona', roles: ['finance-approver'] });

  // The inbox reads the records, which follow the workflow by a journal write: wait for it to show.
  const inbox = await waitFor(
    async () => {
      const response = await call(t, 'GET', '/api/v1/approvals', fiona);
      t.is(response.status, 200);
      return json<{ approvals: PendingApproval[] }>(response).approvals.some(
        (item) => item.ticketId === 'OIDC-APPROVE-1',
      )
        ? response
        : undefined;
    },
    20_000,
    "OIDC-APPROVE-1 in fiona's inbox",
  );
  t.is(inbox.status, 200);

  const approved = await call(t, 'POST', '/api/v1/orders/OIDC-APPROVE-1/approve', fiona, {
    ...quote,
    comment: 'fine by finance',
  });
  t.is(approved.status, 200, JSON.stringify(approved.body));
  t.deepEqual(json<VoteResult>(approved).approvedBy, ['fiona']);
  t.is(json<VoteResult>(approved).stillNeeded, 0);

  await waitForState(t.context.engine.orders, 'OIDC-APPROVE-1', 'BOUGHT');
  const order = await call(t, 'GET', '/api/v1/orders/OIDC-APPROVE-1', fiona);
  t.is(json<ApiOrder>(order).state, 'BOUGHT');

  const history = await call(t, 'GET', '/api/v1/orders/OIDC-APPROVE-1/history?events=false', t.context.tokens.olga);
  t.is(history.status, 200, JSON.stringify(history.body));
  t.is(json<OrderHistory>(history).votes.length, 1);
  t.like(json<OrderHistory>(history).votes[0], { approverId: 'fiona', decision: 'approve', currency: quote.currency });
  t.is(Number(json<OrderHistory>(history).votes[0].monthlyRate), quote.monthlyRate);
});

test('bad JWTs are 401 with the reason: expired, wrong audience, wrong issuer, badly signed', async (t) => {
  const { idp } = t.context;
  const fiona = { preferred_username: 'fiona', roles: ['finance-approver'] };
  const stranger = await generateKeyPair('RS256');
  const cases: Array<[string, string, RegExp]> = [
    [
      'expired',
      await jwt(idp, { ...fiona, exp: now() - 600, iat: now() - 900 }),
      /^the token has expired \(exp \d{4}-/,
    ],
    [
      'wrong audience',
      await jwt(idp, { ...fiona, aud: 'another-api' }),
      /^the token is for audience "another-api", not "mve-api"$/,
    ],
    [
      'wrong issuer',
      await jwt(idp, { ...fiona, iss: 'https://idp.evil.test' }),
      /^the token was issued by "https:\/\/idp\.evil\.test", not the configured issuer/,
    ],
    [
      'badly signed',
      await jwt(idp, fiona, stranger.privateKey),
      /^the token's signature does not verify against the issuer's keys/,
    ],
    ['not a JWT', 'not-a-jwt', /^the bearer token is not a well-formed JWT$/],
  ];
  for (const [name, token, reason] of cases) {
    for (const [method, path, body] of [
      ['GET', '/api/v1/me', undefined],
      ['POST', '/api/v1/orders/OIDC-NONE/approve', { monthlyRate: 1, currency: 'AUD' }],
    ] as const) {
      const response = await call(t, method, path, token, body);
      t.is(response.status, 401, `${name} ${method} ${path}: ${JSON.stringify(response.body)}`);
      t.is(json<ErrorBody>(response).error.code, 'UNAUTHENTICATED', name);
      t.regex(json<ErrorBody>(response).error.message, reason, name);
      t.is(response.headers.get('www-authenticate'), 'Bearer realm="mve-orders"', name);
      for (const part of token.split('.').filter((part) => part.length > 8))
        t.false(json<ErrorBody>(response).error.message.includes(part), `${name}: no part of the token in the answer`);
    }
  }
});

test("a JWT whose username is alice, with an approver role, cannot approve alice's own order: 422 REQUESTER_CANNOT_VOTE", async (t) => {
  const quote = await awaitingApproval(t, 'OIDC-SELF-1');
  const alice = await jwt(t.context.idp, { preferred_username: 'alice', roles: ['requester', 'finance-approver'] });
  const me = await call(t, 'GET', '/api/v1/me', alice);
  t.like(me.body, { id: 'alice', via: 'oidc', can: { approve: true } });

  const refused = await call(t, 'POST', '/api/v1/orders/OIDC-SELF-1/approve', alice, quote);
  t.is(refused.status, 422, JSON.stringify(refused.body));
  t.is(json<ErrorBody>(refused).error.code, 'REQUESTER_CANNOT_VOTE');
  // Case and spacing do not make another person.
  const shouting = await jwt(t.context.idp, { preferred_username: ' ALICE ', roles: ['finance-approver'] });
  const again = await call(t, 'POST', '/api/v1/orders/OIDC-SELF-1/approve', shouting, quote);
  t.is(again.status, 422, JSON.stringify(again.body));
  t.is(json<ErrorBody>(again).error.code, 'REQUESTER_CANNOT_VOTE');

  const status = await t.context.engine.orders.status(orderOf('OIDC-SELF-1'));
  t.is(status.state, 'AWAITING_APPROVAL', 'nothing changed');
  const history = await call(t, 'GET', '/api/v1/orders/OIDC-SELF-1/history?events=false', t.context.tokens.olga);
  t.deepEqual(json<OrderHistory>(history).votes, []);
});

test('a JWKS endpoint that is down: 503 IDENTITY_PROVIDER_UNAVAILABLE (not 401); API tokens still work', async (t) => {
  const { engine, idp } = t.context;
  // A provider whose key endpoint has gone away: the same issuer and tokens, its JWKS URL on a closed port.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const deadJwks = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/jwks`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const app = await buildApiServer({
    context: contextFor(engine, {
      issuer: idp.issuer,
      audience: AUDIENCE,
      rolesClaim: 'roles',
      usernameClaim: 'preferred_username',
      jwksUrl: deadJwks,
    }),
    readiness: readiness(engine),
  });
  t.teardown(() => app.close());
  const url = await app.listen({ host: '127.0.0.1', port: 0 });

  const token = await jwt(idp, { preferred_username: 'fiona', roles: ['finance-approver'] });
  const response = await call(t, 'GET', '/api/v1/me', token, undefined, url);
  t.is(response.status, 503, JSON.stringify(response.body));
  t.is(json<ErrorBody>(response).error.code, 'IDENTITY_PROVIDER_UNAVAILABLE');
  t.true(
    json<ErrorBody>(response).error.message.startsWith(
      `the identity provider's keys could not be fetched from ${deadJwks}`,
    ),
    json<ErrorBody>(response).error.message,
  );
  t.regex(json<ErrorBody>(response).error.message, /ECONNREFUSED/);
  t.false(json<ErrorBody>(response).error.message.includes(token.split('.')[1]));

  const machine = await call(t, 'GET', '/api/v1/me', t.context.tokens.olga, undefined, url);
  t.is(machine.status, 200, 'API tokens do not depend on the identity provider');
});

/** Whether `token`'s listing holds `ticketId`, once the records show the order to those who may see it. */
async function listed(t: ExecutionContext<Context>, token: string, ticketId: string): Promise<boolean> {
  const response = await call(t, 'GET', '/api/v1/orders?limit=500', token);
  t.is(response.status, 200, JSON.stringify(response.body));
  return json<OrderList>(response).orders.some((order) => order.ticketId === ticketId);
}

test("an OIDC person named like a ticket system's token owner (Ticket-Bot) gets nothing it submitted", async (t) => {
  const { tokens, idp, engine } = t.context;
  const submitted = await call(t, 'POST', '/api/v1/orders', tokens.bot, sydneyRequest('NS-BOT-1'));
  t.is(submitted.status, 201, JSON.stringify(submitted.body));
  t.is(
    json<SubmitResult>(submitted).order.submittedBy,
    'ticket-bot',
    'a token submission is recorded under its owner, as before',
  );
  await waitForState(engine.orders, 'NS-BOT-1', 'BOUGHT', 20_000, 'ticket-bot');
  await waitFor(async () => ((await listed(t, tokens.bot, 'NS-BOT-1')) ? true : undefined), 20_000, 'NS-BOT-1 listed');
  t.is((await call(t, 'GET', '/api/v1/orders/NS-BOT-1', tokens.bot)).status, 200, 'the ticket system keeps its own');

  for (const roles of [['ticket-system'], ['requester'], ['ticket-system', 'requester']]) {
    const person = await jwt(idp, { preferred_username: 'Ticket-Bot', roles });
    const me = await call(t, 'GET', '/api/v1/me', person);
    t.like(me.body, { id: 'Ticket-Bot', qualifiedId: `${idp.issuer}#Ticket-Bot`, via: 'oidc' });
    const order = await call(t, 'GET', '/api/v1/orders/NS-BOT-1', person);
    t.is(order.status, 404, `${roles.join(',')}: ${JSON.stringify(order.body)}`);
    t.is(
      (await call(t, 'GET', '/api/v1/orders/NS-BOT-1/history?events=false', person)).status,
      404,
      `${roles.join(',')}`,
    );
    t.false(await listed(t, person, 'NS-BOT-1'), `${roles.join(',')}: not in the list`);
    const cancel = await call(t, 'POST', '/api/v1/orders/NS-BOT-1/cancel', person, { reason: 'mine, I say' });
    t.is(cancel.status, 404, `${roles.join(',')}: ${JSON.stringify(cancel.body)}`);
  }
});

test('a token owner named like an OIDC person (alice) gets nothing that person submitted', async (t) => {
  const { tokens, idp, engine } = t.context;
  // alice, a person with the ticket-system role as well, submits for fiona through the identity provider.
  const person = await jwt(idp, { preferred_username: 'alice', roles: ['ticket-system'] });
  const submitted = await call(
    t,
    'POST',
    '/api/v1/orders',
    person,
    sydneyRequest('NS-PERSON-1', { requestedBy: 'fiona' }),
  );
  t.is(submitted.status, 201, JSON.stringify(submitted.body));
  t.is(json<SubmitResult>(submitted).order.submittedBy, `${idp.issuer}#alice`, 'recorded under her qualified id');
  await waitForState(engine.orders, 'NS-PERSON-1', 'BOUGHT', 20_000, `${idp.issuer}#alice`);
  await waitFor(async () => ((await listed(t, person, 'NS-PERSON-1')) ? true : undefined), 20_000, 'listed');
  t.is((await call(t, 'GET', '/api/v1/orders/NS-PERSON-1', person)).status, 200, 'she keeps what she submitted');

  // The machine whose owner is "alice" did not submit it.
  t.is((await call(t, 'GET', '/api/v1/orders/NS-PERSON-1', tokens.aliceBot)).status, 404);
  t.false(await listed(t, tokens.aliceBot, 'NS-PERSON-1'));
});

test('a person whose token carries no role reads no order, not even their own: 403 saying a role is needed', async (t) => {
  const { tokens, idp } = t.context;
  await awaitingApproval(t, 'NS-NOROLE-1');
  const roleless = await jwt(idp, { preferred_username: 'alice', roles: [] });

  const me = await call(t, 'GET', '/api/v1/me', roleless);
  t.is(me.status, 200, 'who you are is still answered');
  t.like(me.body, { id: 'alice', roles: [], can: { readOrders: false, submit: false, seeAllOrders: false } });

  for (const [method, path, body] of [
    ['GET', '/api/v1/orders/NS-NOROLE-1', undefined],
    ['GET', '/api/v1/orders/NS-NOROLE-1/history?events=false', undefined],
    ['GET', '/api/v1/orders', undefined],
    ['GET', '/api/v1/orders?requester=alice', undefined],
    ['GET', '/api/v1/orders/NO-SUCH-ORDER', undefined],
    ['POST', '/api/v1/orders/NS-NOROLE-1/cancel', { reason: 'changed my mind' }],
  ] as const) {
    const response = await call(t, method, path, roleless, body);
    t.is(response.status, 403, `${method} ${path}: ${JSON.stringify(response.body)}`);
    t.is(json<ErrorBody>(response).error.code, 'FORBIDDEN');
    t.regex(json<ErrorBody>(response).error.message, /^reading orders needs a role: requester \(your own orders\)/);
  }

  // With the requester role she reads her own, as her API token does.
  const requester = await jwt(idp, { preferred_username: 'alice', roles: ['requester'] });
  t.is((await call(t, 'GET', '/api/v1/orders/NS-NOROLE-1', requester)).status, 200);
  t.is((await call(t, 'GET', '/api/v1/orders/NS-NOROLE-1', tokens.alice)).status, 200);
  t.is((await call(t, 'GET', '/api/v1/orders/NS-NOROLE-1', tokens.olga)).status, 200, 'ops read every order');
  const status = await t.context.engine.orders.status(orderOf('NS-NOROLE-1'));
  t.is(status.state, 'AWAITING_APPROVAL', 'the refused cancel changed nothing');
});
