/**
 * The console over plain HTTP (no browser): sessions and their cookie, CSRF on every form, sign-out, no
 * dev sign-in unless dev users are given, a GET never acts, escaping, and the console registered on the
 * same fastify instance as the API routes (as buildApiServer will), whose form parser stays out of the API.
 */
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { registerConsole } from '../../client/console/index.js';
import { issueApiToken } from '../../client/http/index.js';
import { installErrorHandler } from '../../client/http/errors.js';
import { registerApprovalRoutes } from '../../client/http/routes/approvals.js';
import { registerOrderRoutes } from '../../client/http/routes/orders.js';
import type { ApiOrder } from '../../client/http-client/index.js';
import { json } from '../helpers/json.js';
import { sydneyRequest } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { Client, devUsersOf, sessionsOf, startConsole, waitForApiState, type ConsoleHarness } from './harness.js';

const test = anyTest as TestFn<{ harness: ConsoleHarness }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.harness = await startConsole(pg, { browser: false });
  const response = await t.context.harness.api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: sydneyRequest('HTTP-1', { size: 'MVE 8/32', productName: '<script>alert(1)</script> & co' }),
  });
  if (response.status !== 201) throw new Error(JSON.stringify(response.body));
  await waitForApiState(t.context.harness.api, 'HTTP-1', 'AWAITING_APPROVAL');
});
test.after.always(async (t) => {
  await t.context.harness?.stop();
});

test('a page needs a session: anonymous visitors are sent to the sign-in page, whose cookie is HttpOnly and SameSite=Lax', async (t) => {
  const browser = new Client(t.context.harness.url);
  const home = await browser.request('GET', '/orders/HTTP-1');
  t.is(home.status, 303);
  t.is(home.headers.get('location'), '/sign-in?next=%2Forders%2FHTTP-1');
  const setCookie = home.headers.get('set-cookie') ?? '';
  const signIn = await browser.request('GET', '/sign-in?next=%2Forders%2FHTTP-1');
  t.is(signIn.status, 200);
  t.regex(setCookie, /^mve_console=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
  for (const user of devUsersOf(t.context.harness.api))
    t.true(signIn.text.includes(`data-testid="sign-in-${user.id}"`), user.id);
  t.false(signIn.text.includes('mvo_'), 'no token reaches the browser');
  t.regex(signIn.headers.get('content-security-policy') ?? '', /script-src 'nonce-[^']+'/);
  t.is(signIn.headers.get('cache-control'), 'no-store');

  const anonymousId = browser.cookies.get('mve_console');
  const signedIn = await browser.request('POST', '/sign-in/dev', {
    _csrf: browser.csrf(signIn.text),
    user: 'fiona',
    next: '/orders/HTTP-1',
  });
  t.is(signedIn.status, 303);
  t.is(signedIn.headers.get('location'), '/orders/HTTP-1');
  t.not(browser.cookies.get('mve_console'), anonymousId, 'a new session id on sign-in');
  const order = await browser.request('GET', '/orders/HTTP-1');
  t.is(order.status, 200);
  t.regex(order.text, /data-testid="approve-button">Approve 1,618\.20 AUD a month</);

  // The anonymous id is worth nothing now.
  const fixated = new Client(t.context.harness.url);
  fixated.cookies.set('mve_console', anonymousId!);
  t.is((await fixated.request('GET', '/')).status, 303);
});

test('next after sign-in stays on this origin: /%09/host, /%0a/x, //host and the like go to /, never 500', async (t) => {
  const { harness } = t.context;
  const origin = new URL(harness.url).origin;
  const hostile = ['/%09/host', '/%0a/x', '/%0d%0aset-cookie:%20x=1', '//host', '/%5Chost', '/\\host', 'https://evil'];
  const sameOrigin = (location: string | null) => location !== null && new URL(location, harness.url).origin === origin;

  // Not signed in: the page answers, and the forms carry / instead.
  const anonymous = new Client(harness.url);
  for (const next of hostile) {
    const page = await anonymous.request('GET', `/sign-in?next=${next}`);
    t.is(page.status, 200, next);
    t.regex(page.text, /<input type="hidden" name="next" value="\/">/, next);
  }

  // The dev sign-in form's next (as a form would post it, decoded) is checked the same way.
  const signing = new Client(harness.url);
  const form = await signing.request('GET', '/sign-in');
  const posted = await signing.request('POST', '/sign-in/dev', {
    _csrf: signing.csrf(form.text),
    user: 'fiona',
    next: '/\t/host',
  });
  t.is(posted.status, 303);
  t.is(posted.headers.get('location'), '/');

  // Signed in: /sign-in redirects at once, only ever to this origin.
  for (const next of hostile) {
    const answer = await signing.request('GET', `/sign-in?next=${next}`);
    t.is(answer.status, 303, `${next}: ${answer.text}`);
    t.is(answer.headers.get('location'), '/', next);
    t.true(sameOrigin(answer.headers.get('location')), next);
    t.is(answer.headers.get('set-cookie'), null, `${next}: no header smuggled in`);
  }
  const kept = await signing.request('GET', '/sign-in?next=%2Forders%2FHTTP-1%3Fx%3D1');
  t.is(kept.headers.get('location'), '/orders/HTTP-1?x=1', 'a same-origin path is kept');
});

test('sign-in and every action need the CSRF token of the session; a refused form changes nothing', async (t) => {
  const { harness } = t.context;
  const browser = new Client(harness.url);
  const page = await browser.request('GET', '/sign-in');
  t.is((await browser.request('POST', '/sign-in/dev', { user: 'fiona' })).status, 403);
  t.is((await browser.request('POST', '/sign-in/dev', { _csrf: 'x'.repeat(43), user: 'fiona' })).status, 403);
  t.is(
    (await browser.request('POST', '/sign-in/dev', { _csrf: browser.csrf(page.text), user: 'mallory' })).status,
    404,
  );
  await browser.signIn('fiona');

  const order = await browser.request('GET', '/orders/HTTP-1');
  const vote = { monthlyRate: '1618.2', currency: 'AUD', decision: 'approve', comment: 'forged' };
  t.is((await browser.request('POST', '/orders/HTTP-1/decide', vote)).status, 403);
  t.is((await browser.request('POST', '/orders/HTTP-1/decide', { ...vote, _csrf: 'wrong' })).status, 403);
  // Another session's token does not do either.
  const other = new Client(harness.url);
  await other.signIn('dave');
  const othersToken = other.csrf((await other.request('GET', '/')).text);
  t.is((await browser.request('POST', '/orders/HTTP-1/decide', { ...vote, _csrf: othersToken })).status, 403);
  // A JSON body (no form) is refused too.
  const jsonBody = await fetch(`${harness.url}/orders/HTTP-1/decide`, {
    method: 'POST',
    headers: { cookie: `mve_console=${browser.cookies.get('mve_console')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...vote, _csrf: othersToken }),
  });
  t.is(jsonBody.status, 403);
  // A link in an e-mail (GET) only ever shows: there is no GET that acts.
  t.is(
    (await browser.request('GET', '/orders/HTTP-1/decide?decision=approve&monthlyRate=1618.2&currency=AUD')).status,
    404,
  );
  t.is(
    json<ApiOrder>(await harness.api.call('GET', '/api/v1/orders/HTTP-1', { as: 'olga' })).approval?.votes.length,
    0,
    'nothing was voted',
  );
  t.truthy(browser.csrf(order.text));
});

test('signing out ends the session; a revoked credential ends it too', async (t) => {
  const { harness } = t.context;
  const browser = new Client(harness.url);
  await browser.signIn('olga');
  const home = await browser.request('GET', '/ops');
  t.is(home.status, 200);
  const cookie = browser.cookies.get('mve_console')!;
  const out = await browser.request('POST', '/sign-out', { _csrf: browser.csrf(home.text) });
  t.is(out.status, 303);
  t.is(out.headers.get('location'), '/sign-in');
  t.regex(out.headers.get('set-cookie') ?? '', /Max-Age=0/);
  const replay = new Client(harness.url);
  replay.cookies.set('mve_console', cookie);
  t.is((await replay.request('GET', '/ops')).status, 303, 'the old cookie is dead');
  // A live refresh of a page whose session ended answers 401 (the script stops), not a redirect.
  t.is((await replay.request('GET', '/ops', undefined, { 'x-console-live': '1' })).status, 401);
});

test("a live refresh's copy has the page's regions but no style or script, which its parser would refuse", async (t) => {
  const browser = new Client(t.context.harness.url);
  await browser.signIn('fiona');
  const full = await browser.request('GET', '/orders/HTTP-1');
  t.regex(full.text, /<style nonce="[^"]+">/);
  t.regex(full.text, /<script nonce="[^"]+">/);
  const copy = await browser.request('GET', '/orders/HTTP-1', undefined, { 'x-console-live': '1' });
  t.is(copy.status, 200);
  t.regex(copy.text, /data-live="decision"/);
  t.false(/<style|<script/.test(copy.text), 'nothing in the copy runs or styles under the page it is parsed into');
});

test('values from orders are escaped; secrets of the request are never shown', async (t) => {
  const browser = new Client(t.context.harness.url);
  await browser.signIn('olga');
  const order = await browser.request('GET', '/orders/HTTP-1');
  t.true(order.text.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; co'));
  t.false(order.text.includes('<script>alert(1)'));
  t.false(order.text.includes('ssh-rsa'));
  t.false(/licenseData|sshPublicKey|vendorConfig/.test(order.text));
  const scripts = [...order.text.matchAll(/<script( nonce="[^"]+")?>/g)];
  t.is(scripts.length, 1);
  t.truthy(scripts[0][1], 'the one script carries the nonce');
  t.is((await browser.request('GET', '/orders/NO-SUCH')).status, 404);
});

test('roles: the ops view is for ops and admins; requesters see their own orders', async (t) => {
  const { harness } = t.context;
  const fiona = new Client(harness.url);
  await fiona.signIn('fiona');
  t.is((await fiona.request('GET', '/ops')).status, 403);
  const bot = new Client(harness.url);
  await bot.signIn('ticket-bot');
  const home = await bot.request('GET', '/');
  t.is(home.status, 200);
  t.false(home.text.includes('HTTP-1'), 'the ticket system did not submit HTTP-1');
  t.is((await bot.request('GET', '/orders/HTTP-1')).status, 404, 'an order you may not see does not exist');
  const alice = new Client(harness.url);
  await alice.signIn('alice');
  t.regex((await alice.request('GET', '/')).text, /data-ticket="HTTP-1"/);
});

test.serial("ops read the order's Temporal history on its page; a requester does not see the section", async (t) => {
  const { harness } = t.context;
  const olga = new Client(harness.url);
  await olga.signIn('olga');
  const page = await olga.request('GET', '/orders/HTTP-1');
  t.is(page.status, 200);
  t.regex(page.text, /<details data-testid="workflow-history">/);
  const rows = [
    ...page.text.matchAll(
      /<tr data-testid="history-event" data-event-type="([A-Z_]+)"><td class="num" data-label="#">(\d+)<\/td><td data-label="When \(UTC\)"><time datetime="([^"]+)">/g,
    ),
  ];
  t.true(rows.length >= 5, `${rows.length} events listed`);
  t.is(rows[0][1], 'WORKFLOW_EXECUTION_STARTED');
  t.deepEqual(
    rows.map((row) => Number(row[2])),
    rows.map((_, index) => index + 1),
    'event ids in order',
  );
  t.false(Number.isNaN(Date.parse(rows[0][3])), 'each event has its time');
  t.regex(
    page.text,
    /data-event-type="ACTIVITY_TASK_SCHEDULED">(?:(?!<\/tr>).)*<td class="prose" data-label="Summary">(<details><summary>)?<code class="wrap">activity recordJournal/,
    'activity names in the summary',
  );
  t.regex(
    page.text,
    /data-event-type="MARKER_RECORDED">(?:(?!<\/tr>).)*<td class="prose" data-label="Summary">(<details><summary>)?<code class="wrap">marker core_local_activity; local activity beginRun/,
    'local activities named in the summary',
  );
  t.regex(page.text, /workflow orderWorkflow; \{&quot;request&quot;:\{/, 'the decoded input, escaped');
  const payloads = /<pre class="wrap" data-testid="history-payloads">([^<]*)<\/pre>/.exec(page.text)?.[1] ?? '';
  t.regex(payloads, /&quot;ticketId&quot;:&quot;HTTP-1&quot;/, 'the whole payload, unfolded on demand');
  t.false(
    /licenseData|sshPublicKey|vendorConfig|ssh-rsa/.test(page.text),
    'the vendor configuration is left out, even redacted',
  );

  const alice = new Client(harness.url);
  await alice.signIn('alice');
  const mine = await alice.request('GET', '/orders/HTTP-1');
  t.is(mine.status, 200);
  t.false(mine.text.includes('workflow-history'), 'no history section for a requester');
  t.false(mine.text.includes('WORKFLOW_EXECUTION_STARTED'));
});

test.serial('a FAILED order is listed under "needs attention" with its last error and trace id', async (t) => {
  const { harness } = t.context;
  // Every buy answered 429: after the engine's six tries the order fails, the last error carrying the API's trace id.
  harness.api.sim.injectFault({ kind: 'rate-limit', endpoint: 'buy', retryAfterSeconds: 1, times: 6 });
  const submitted = await harness.api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: sydneyRequest('HTTP-FAIL-1', { size: 'MVE 4/16' }),
  });
  t.is(submitted.status, 201, JSON.stringify(submitted.body));
  await waitForApiState(harness.api, 'HTTP-FAIL-1', 'FAILED', 60_000);
  const order = json<ApiOrder>(await harness.api.call('GET', '/api/v1/orders/HTTP-FAIL-1', { as: 'olga' }));
  const traceId = order.lastError?.traceId;
  t.truthy(traceId, JSON.stringify(order.lastError));

  const olga = new Client(harness.url);
  await olga.signIn('olga');
  const ops = await olga.request('GET', '/ops');
  const item = /<li data-testid="attention-failed" data-ticket="HTTP-FAIL-1">.*?<\/li>/s.exec(ops.text)?.[0] ?? '';
  t.truthy(item, 'listed as failed');
  t.regex(item, /<span data-testid="attention-failed-error">[^<]*\S[^<]*<\/span>/, 'with its last error');
  t.true(item.includes(`<code data-testid="attention-failed-trace">${traceId}</code>`), item);
  t.is(item.split(traceId!).length - 1, 1, `the trace id is named once: ${item}`);
});

/** The console on the same instance as the API routes, as buildApiServer registers it. */
async function sameAppServer(
  t: ExecutionContext<{ harness: ConsoleHarness }>,
  options: { secureCookies: boolean; devUsers?: Array<{ id: string; roles: string[]; token: string }> },
): Promise<FastifyInstance> {
  const { api } = t.context.harness;
  const { context } = api;
  const app = Fastify({ logger: false });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app, context.log);
  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith('/api/'))
      request.principal = await context.authenticator.authenticate(request.headers.authorization);
  });
  registerOrderRoutes(app, context);
  registerApprovalRoutes(app, context);
  await registerConsole(app, context, { ...options, sessions: sessionsOf(api) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return app;
}

test.serial(
  'registered on the API app itself: the console calls its own API; the form parser does not reach the API',
  async (t) => {
    const { api } = t.context.harness;
    const temp = await issueApiToken(api.repository, { owner: 'fiona', roles: ['finance-approver'] });
    const app = await sameAppServer(t, {
      secureCookies: false,
      devUsers: [{ id: 'fiona', roles: ['finance-approver'], token: temp.token }],
    });
    try {
      const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const browser = new Client(url);
      await browser.signIn('fiona');
      const inbox = await browser.request('GET', '/');
      t.regex(inbox.text, /data-testid="inbox-row" data-ticket="HTTP-1"/);
      // The API still takes JSON only.
      const form = await fetch(`${url}/api/v1/orders/HTTP-1/approve`, {
        method: 'POST',
        headers: { authorization: `Bearer ${temp.token}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'monthlyRate=1618.2&currency=AUD',
      });
      t.is(form.status, 415);
      // A credential revoked meanwhile ends the session at the next page.
      await api.repository.revokeToken({ id: temp.record.id, by: 'test' });
      const after = await browser.request('GET', '/');
      t.is(after.status, 303);
      t.regex(after.headers.get('location') ?? '', /^\/sign-in/);
    } finally {
      await app.close();
    }
  },
);

test.serial(
  'without dev users there is no dev sign-in; secure cookies carry Secure and the __Host- prefix',
  async (t) => {
    const app = await sameAppServer(t, { secureCookies: true });
    try {
      const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const browser = new Client(url);
      const page = await browser.request('GET', '/sign-in');
      t.false(page.text.includes('data-testid="sign-in-'));
      t.regex(page.text, /No sign-in is configured/);
      t.regex(
        page.headers.get('set-cookie') ?? '',
        /^__Host-mve_console=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Secure$/,
      );
      const tryDev = await browser.request('POST', '/sign-in/dev', { _csrf: 'no-form-to-take-it-from', user: 'olga' });
      t.is(tryDev.status, 404);
    } finally {
      await app.close();
    }
  },
);
