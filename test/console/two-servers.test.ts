/**
 * Two API servers behind one address, as `mve-orders serve` runs twice behind a load balancer: both built by
 * startApiServer (what serve runs) on one PostgreSQL and one Temporal, each with its own memory. A browser signed in
 * through one is signed in on the other, a form carries one CSRF token to both, a sign-out on one ends the session on
 * both, and the codec server of either takes the cookie. The table holds neither the cookie's id nor the credential.
 */
import { createHash } from 'node:crypto';
import anyTest, { type TestFn } from 'ava';
import type { Browser } from 'playwright-core';
import { startApiServer, type RunningApi } from '../../client/server/start.js';
import { SIM_KIND_MAP } from '../../tooling/sim/index.js';
import { startApiEngine, waitForApiState, type ApiEngine } from '../helpers/api.js';
import { encryptedJson } from '../helpers/codec-json.js';
import { sydneyRequest, TASK_QUEUE } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { Client, devUsersOf, launchChromium } from './harness.js';

const test = anyTest as TestFn<{ api: ApiEngine; a: RunningApi; b: RunningApi; browser: Browser }>;
const pg = usePostgres(test);
const UI_ORIGIN = 'http://ui.test';

/** One `serve` on the engine's Temporal and database, on a port of its own. */
function serve(api: ApiEngine): Promise<RunningApi> {
  return startApiServer({
    env: {
      TEMPORAL_ADDRESS: api.temporal.address,
      TEMPORAL_NAMESPACE: api.temporal.namespace,
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      MVE_CODEC_CORS_ORIGINS: UI_ORIGIN,
    },
    databaseUrl: api.db.url,
    codecKeys: api.keyring,
    actionKeys: api.actionKeys,
    kindMap: SIM_KIND_MAP,
    host: '127.0.0.1',
    port: 0,
    // The dev sign-in (and plain-http cookies): the test users sign in with their API tokens.
    devUsers: devUsersOf(api),
    log: (line) => process.env['API_TEST_LOG'] && console.error(line),
  });
}

async function submit(api: ApiEngine, ticketId: string): Promise<void> {
  const response = await api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: sydneyRequest(ticketId, { size: 'MVE 8/32', productName: `${ticketId} firewall` }),
  });
  if (response.status !== 201)
    throw new Error(`submit ${ticketId}: ${response.status} ${JSON.stringify(response.body)}`);
  await waitForApiState(api, ticketId, 'AWAITING_APPROVAL');
}

test.before(async (t) => {
  const api = await startApiEngine(pg);
  t.context.api = api;
  [t.context.a, t.context.b] = await Promise.all([serve(api), serve(api)]);
  t.context.browser = await launchChromium();
  await Promise.all([submit(api, 'TWO-1'), submit(api, 'TWO-2')]);
});
test.after.always(async (t) => {
  await t.context.browser?.close().catch(() => undefined);
  await t.context.a?.close();
  await t.context.b?.close();
  await t.context.api?.stop();
});

/** A cookie jar carried to another server: what a browser does behind a load balancer. */
function sameBrowserOn(client: Client, url: string): Client {
  const other = new Client(url);
  other.cookies = client.cookies;
  return other;
}

/** A payload as the Web UI sends it to the codec server: as the engine wrote it to history. */
async function encodedPayload(api: ApiEngine) {
  const value = { productName: 'Edge', vendorConfig: { adminPassword: 'hunter2' } };
  return { payloads: [await encryptedJson(api.keyring, value)] };
}

async function decodeOn(server: RunningApi, body: unknown, cookie: string) {
  const response = await fetch(`${server.url}/codec/default/decode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: UI_ORIGIN, cookie },
    body: JSON.stringify(body),
  });
  return response.status;
}

test.serial(
  'signed in on A: B shows the order, takes the CSRF token of A, and a sign-out on A ends the session on B',
  async (t) => {
    const { api, a, b } = t.context;
    const onA = new Client(a.url);
    await onA.signIn('fiona');
    const onB = sameBrowserOn(onA, b.url);

    const page = await onB.request('GET', '/orders/TWO-1');
    t.is(page.status, 200, 'the session made on A is known to B');
    t.regex(page.text, /data-testid="signed-in-as">fiona</);
    t.regex(page.text, /data-testid="approve-button">Approve 1,618\.20 AUD a month</);

    // The form as A rendered it, posted to B.
    const csrf = onA.csrf((await onA.request('GET', '/orders/TWO-1')).text);
    t.is(csrf, onB.csrf(page.text), 'one session, one CSRF token, whichever server renders the form');
    const vote = await onB.request('POST', '/orders/TWO-1/decide', {
      _csrf: csrf,
      decision: 'approve',
      monthlyRate: '1618.2',
      currency: 'AUD',
      comment: 'approved through B',
    });
    t.is(vote.status, 303, vote.text);
    // The flash set by B is shown by A, once.
    const after = await onA.request('GET', '/orders/TWO-1');
    t.regex(after.text, /data-testid="flash">You approved 1,618\.20 AUD a month, the last approval needed/);
    t.notRegex((await onB.request('GET', '/orders/TWO-1')).text, /data-testid="flash"/, 'shown once, on either');
    const records = await api.records('TWO-1');
    t.like(records?.approvals, [{ approverId: 'fiona', decision: 'approve', reason: 'approved through B' }]);

    const id = onA.cookies.get('mve_console')!;
    const signOut = await onA.request('POST', '/sign-out', { _csrf: csrf });
    t.is(signOut.status, 303);
    // A browser that kept the cookie (or a copy of it) gets nothing from B.
    const kept = new Client(b.url);
    kept.cookies.set('mve_console', id);
    const refused = await kept.request('GET', '/orders/TWO-1');
    t.is(refused.status, 303, 'B has forgotten the session A ended');
    t.is(refused.headers.get('location'), '/sign-in?next=%2Forders%2FTWO-1');
  },
);

test.serial(
  'the codec server of B takes the cookie of a session signed in on A; an unknown cookie nothing',
  async (t) => {
    const { api, a, b } = t.context;
    const onA = new Client(a.url);
    await onA.signIn('olga');
    const id = onA.cookies.get('mve_console')!;
    const cookie = `mve_console=${id}`;
    const payloads = await encodedPayload(api);
    t.is(await decodeOn(b, payloads, cookie), 200);
    const forged = id.slice(0, -1) + (id.endsWith('A') ? 'B' : 'A');
    t.is(await decodeOn(b, payloads, `mve_console=${forged}`), 401, 'a forged cookie');
    t.is(await decodeOn(b, payloads, 'mve_console=' + 'A'.repeat(43)), 401, 'an unknown cookie');

    // What the table holds: the id's SHA-256, never the id, and the credential sealed, never in plaintext.
    const token = api.tokens.olga;
    const rows = await api.db
      .sql`SELECT id_hash, secrets_key_id, row_to_json(s)::text AS everything FROM console_sessions s`;
    const hash = createHash('sha256').update(id).digest();
    const row = rows.find((candidate) => Buffer.from(candidate.id_hash as Uint8Array).equals(hash));
    t.truthy(row, 'the session is stored under the SHA-256 of its id');
    t.is(row!.secrets_key_id, api.keyring.currentKeyId);
    for (const stored of rows) {
      const text = stored.everything as string;
      t.false(text.includes(id), 'no cookie id in the table');
      t.false(text.includes(token), 'no credential in the table');
      t.false(text.includes(token.split('_').at(-1)!), 'not even the secret part of one');
    }

    const csrf = onA.csrf((await onA.request('GET', '/')).text);
    t.is((await onA.request('POST', '/sign-out', { _csrf: csrf })).status, 303);
    t.is(await decodeOn(b, payloads, cookie), 401, 'signed out on A: B takes the cookie no more');
  },
);

test.serial(
  'in chromium: signed in on A, the same browser approves on B, whose page then follows the order live',
  async (t) => {
    const { api, a, b, browser } = t.context;
    const context = await browser.newContext();
    const problems: string[] = [];
    context.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${message.page()?.url()}: ${message.text()}`);
    });
    const page = await context.newPage();
    try {
      await page.goto(`${a.url}/sign-in`);
      await page.getByTestId('sign-in-fiona').click();
      await page.getByTestId('signed-in-as').filter({ hasText: 'fiona' }).waitFor();
      // Cookies are per host, not per port: the browser sends A's cookie to B.
      t.deepEqual(
        (await context.cookies(b.url)).map((cookie) => cookie.name),
        ['mve_console'],
      );

      // One tab on B watches the order; another, on B too, approves it.
      const watching = await context.newPage();
      await watching.goto(`${b.url}/orders/TWO-2`);
      t.is(await watching.getByTestId('order-state').innerText(), 'AWAITING_APPROVAL');
      await page.goto(`${b.url}/orders/TWO-2`);
      t.is(await page.getByTestId('signed-in-as').innerText(), 'fiona');
      await page.getByTestId('decision-comment').fill('approved in the browser on B');
      await page.getByTestId('approve-button').click();
      await page.waitForURL(new RegExp(`^${b.url}/orders/TWO-2`));
      t.regex(await page.getByTestId('flash').innerText(), /^You approved 1,618\.20 AUD a month/);
      // The watching tab refreshes itself from B (every 2 s), with no reload, until the order is bought.
      await watching.getByTestId('order-state').filter({ hasText: 'BOUGHT' }).waitFor({ timeout: 30_000 });
      t.is(await watching.locator('body[data-live-updated]').count(), 1, 'by the live refresh');
      const records = await api.records('TWO-2');
      t.like(records?.approvals, [{ approverId: 'fiona', reason: 'approved in the browser on B' }]);

      // Signed out on A (in another tab): B's pages ask for a sign-in.
      const other = await context.newPage();
      await other.goto(`${a.url}/`);
      await other.getByTestId('sign-out').click();
      await other.waitForURL(`${a.url}/sign-in`);
      await page.goto(`${b.url}/orders/TWO-2`);
      t.regex(page.url(), new RegExp(`^${b.url}/sign-in\\?next=`));
      t.deepEqual(problems, [], 'no console error on any page');
    } finally {
      await context.close();
    }
  },
);
