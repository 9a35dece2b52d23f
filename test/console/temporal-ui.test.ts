/**
 * Ops watching an order in the real Temporal Web UI under `mve-orders dev` (`temporal server start-dev`'s UI, behind
 * dev's front: tooling/dev/web-ui-front.ts), in Debian's chromium: the order found by its TicketId search attribute,
 * its history's payloads decoded through the API's codec server with no codec setting made in the UI — the request
 * readable, its secrets redacted — once the browser is signed in to the console as ops; before that, and for an
 * approver, ciphertext and a banner saying where to sign in. The codec server takes the console's cookie only from
 * the Web UI's origin, and only for itself: another page in the same browser, another origin, a forged Origin
 * without the cookie and a cookie on /api/ are refused.
 */
import { createServer, request as httpRequest } from 'node:http';
import { mkdtemp, readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { resolveKeyring } from '../../codec/index.js';
import type { ApiOrder, SubmitResult } from '../../client/http-client/index.js';
import { encryptedJson, type JsonPayload } from '../helpers/codec-json.js';
import { json } from '../helpers/json.js';
import { sydneyRequest } from '../helpers/orders.js';
import { removeDevFolder, spawnCli, type CliChild } from '../dev/child.js';
import { historyInWebUi, startedEvent } from '../../scripts/web-ui.js';
import { launchChromium, screenshotPath } from './harness.js';

interface DevState {
  http: { url: string };
  temporal: { uiUrl: string; namespace: string };
  users: Array<{ id: string; token: string }>;
}

const test = anyTest as TestFn<{ root: string; dev: CliChild; state: DevState; browser: Browser }>;
const START_MS = 240_000;
const TICKET = 'UI-1';
// The example request's secrets, which the UI must never show.
const LICENSE = /LS0tLS1CRUdJTiBGR1Qg/;
const SSH_KEY = /ssh-rsa AAAA/;
/** The banner the UI shows when a decode is refused: dev's words (the front's settings), not the UI's default. */
const SIGN_IN_BANNER = 'Payloads are decoded for ops and admins signed in to the mve-orders console in this browser';
const DEFAULT_BANNER = 'Codec Server could not connect';

test.before(async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'mve-temporal-ui-'));
  t.context.root = root;
  const dataDir = join(root, 'data');
  const dev = spawnCli(
    ['dev', '--temporal-port', '0', '--temporal-ui-port', '0', '--sim-port', '0', '--http-port', '0'],
    { MVE_DATA_DIR: dataDir },
  );
  t.context.dev = dev;
  await dev.waitForOutput(/^ready: /m, START_MS);
  t.context.state = JSON.parse(await readFile(join(dataDir, 'dev.json'), 'utf8')) as DevState;
  t.context.browser = await launchChromium();
});

test.after.always(async (t) => {
  await t.context.browser?.close().catch(() => undefined);
  await t.context.dev?.stop('SIGINT', 60_000);
  if (t.context.root) await removeDevFolder(t.context.root);
});

/** A call to the dev API as one of its seeded users, or with the headers given. */
async function api(state: DevState, path: string, init: RequestInit & { as?: string } = {}) {
  const token = init.as ? state.users.find((user) => user.id === init.as)!.token : undefined;
  const response = await fetch(`${state.http.url}${path}`, {
    ...init,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(init.headers as Record<string, string> | undefined),
    },
  });
  const body: unknown = await response.json().catch(() => undefined);
  return { status: response.status, body, json: () => body };
}

async function signIn(page: Page, state: DevState, user: string): Promise<void> {
  await page.goto(`${state.http.url}/sign-in`);
  await page.getByTestId(`sign-in-${user}`).click();
  await page.getByTestId('signed-in-as').filter({ hasText: user }).waitFor();
}

async function signOut(page: Page, state: DevState): Promise<void> {
  await page.goto(`${state.http.url}/`);
  await page.getByTestId('sign-out').click();
  await page.waitForURL(/\/sign-in/);
}

/** Submits the order (auto-approved below the staging line) and waits until it is LIVE. */
async function liveOrder(t: ExecutionContext, state: DevState): Promise<string> {
  const submitted = await api(state, '/api/v1/orders', {
    method: 'POST',
    as: 'ticket-bot',
    body: JSON.stringify(sydneyRequest(TICKET, { size: 'MVE 8/32' })),
  });
  t.is(submitted.status, 201, JSON.stringify(submitted.body));
  let order: ApiOrder | undefined = json<SubmitResult>(submitted).order;
  const { orderId } = order;
  for (let i = 0; i < 300 && order?.state !== 'LIVE'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    order = json<ApiOrder | undefined>(await api(state, `/api/v1/orders/${orderId}`, { as: 'olga' }));
  }
  t.is(order?.state, 'LIVE', 'auto-approved below the staging line, bought, and LIVE');
  return orderId;
}

/** The statuses the codec server answered the page's decode requests with, from now on. */
function codecAnswers(page: Page, state: DevState): () => number[] {
  const answers: number[] = [];
  page.on('response', (response) => {
    if (response.url().startsWith(`${state.http.url}/codec/`) && response.request().method() === 'POST')
      answers.push(response.status());
  });
  return () => [...new Set(answers.splice(0))];
}

/** The banners the UI shows, by their words: dev's (saying where to sign in) and the UI's own default. */
async function banners(page: Page): Promise<{ signIn: number; fallback: number }> {
  const visible = async (text: string) => {
    const all = await page.getByText(text).all();
    return (await Promise.all(all.map((element) => element.isVisible()))).filter(Boolean).length;
  };
  return { signIn: await visible(SIGN_IN_BANNER), fallback: await visible(DEFAULT_BANNER) };
}

test('in dev, ops read an order in the real Web UI decoded with no codec setting, secrets redacted; others do not', async (t) => {
  const { state, browser } = t.context;
  const orderId = await liveOrder(t, state);
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();
  const answered = codecAnswers(page, state);
  const { uiUrl, namespace } = state.temporal;
  const historyUrl = await historyInWebUi(page, { uiUrl, namespace, ticketId: TICKET, orderId });

  // Nobody signed in: the codec server refuses, the UI shows ciphertext and says where to sign in.
  answered();
  let text = await startedEvent(page, historyUrl);
  t.deepEqual(answered(), [401]);
  t.notRegex(text, /"ticketId"/);
  t.deepEqual(await banners(page), { signIn: 1, fallback: 0 });
  t.is(await page.getByRole('link', { name: `${state.http.url}/sign-in` }).count(), 1);

  // An approver: refused (no role to read payloads), ciphertext still.
  await signIn(page, state, 'fiona');
  text = await startedEvent(page, historyUrl);
  t.deepEqual(answered(), [403]);
  t.notRegex(text, /"ticketId"/);

  // Ops: the history reads, the request with its secrets redacted, and no banner. Nothing was set in the UI.
  await signOut(page, state);
  await signIn(page, state, 'olga');
  text = await startedEvent(page, historyUrl);
  t.deepEqual(answered(), [200]);
  await page.getByTestId('data-encoder-status-success').waitFor();
  t.deepEqual(await banners(page), { signIn: 0, fallback: 0 });
  t.regex(text, new RegExp(`"ticketId": "${TICKET}"`));
  t.regex(text, /"productName": "Sydney FortiGate"/);
  t.regex(text, /"licenseData": "\[redacted\]"/);
  t.regex(text, /"sshPublicKey": "\[redacted\]"/);
  t.notRegex(text, LICENSE);
  t.notRegex(text, SSH_KEY);
  t.notRegex(await page.locator('body').innerText(), LICENSE);
  // What the UI keeps in the browser (its codec settings, when someone sets them): nothing of the codec.
  const kept = (await context.storageState()).origins.find((origin) => origin.origin === state.temporal.uiUrl);
  const codecSettings = (kept?.localStorage ?? []).filter(
    (item) =>
      ['endpoint', 'passAccessToken', 'includeCredentials', 'overrideRemoteCodecConfiguration'].includes(item.name) &&
      !['null', 'false', '""'].includes(item.value),
  );
  t.deepEqual(codecSettings, [], "the UI's own codec settings were not touched");
  const shot = screenshotPath('temporal-ui-decoded-order.png');
  if (shot) {
    // the start event's request, vendorConfig in sight
    await page.getByTestId('event-summary-table').getByText('"vendorConfig"').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: shot });
  }
  await context.close();
});

/**
 * What a page of another origin gets when it asks the codec server with the browser's cookies, three ways: as the
 * Web UI asks (JSON, preflighted), as a simple request (no preflight, its answer unread), and opaque (no-cors). Run in
 * the page as written here (a string: the test's compiler adds nothing to it).
 */
const DECODE_FROM_PAGE = `async ({ url, body }) => {
  const attempt = (init) =>
    fetch(url, { method: 'POST', credentials: 'include', body, ...init }).then(
      async (response) => (response.type === 'opaque' ? 'opaque' : response.status + ' ' + (await response.text())),
      () => 'blocked',
    );
  return {
    json: await attempt({ headers: { 'content-type': 'application/json', 'x-namespace': 'default' } }),
    simple: await attempt({ headers: { 'content-type': 'text/plain' } }),
    opaque: await attempt({ mode: 'no-cors', headers: { 'content-type': 'text/plain' } }),
  };
}`;

function decodeFrom(page: Page, url: string, payload: JsonPayload): Promise<Record<string, string>> {
  const args = JSON.stringify({ url, body: JSON.stringify({ payloads: [payload] }) });
  return page.evaluate<Record<string, string>>(`(${DECODE_FROM_PAGE})(${args})`);
}

/** A page served by another local server: same site as the API (127.0.0.1), another origin. */
async function localPage(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>another page</title>'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The decode requests that reached the codec server from `context`'s pages, as `METHOD status`. */
function reached(context: BrowserContext, state: DevState): string[] {
  const seen: string[] = [];
  context.on('response', (response) => {
    if (response.url().startsWith(`${state.http.url}/codec/`))
      seen.push(`${response.request().method()} ${response.status()}`);
  });
  return seen;
}

test('decoding is for the Web UI signed in as ops: other pages, other origins, forged origins, /api/ are refused', async (t) => {
  const { state, browser } = t.context;
  // A payload as dev's engine writes it, with dev's keys: the codec server encrypts nothing.
  const keyring = await resolveKeyring({ env: process.env, devDataDir: join(t.context.root, 'data') });
  const payload = await encryptedJson(keyring, { productName: 'Edge', vendorConfig: { adminPassword: 'hunter2' } });
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, state, 'olga');
  const seen = reached(context, state);

  // Other pages in the same browser, signed in as ops: one of the same site (its cookie goes along), one not.
  const local = await localPage();
  await context.route('http://evil.test/**', (route) =>
    route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>evil</title>' }),
  );
  try {
    // Of the same site: the requests go, with the cookie, and the page reads no answer.
    await page.goto(local.url);
    const codecUrl = `${state.http.url}/codec/default/decode`;
    t.deepEqual(await decodeFrom(page, codecUrl, payload), { json: 'blocked', simple: 'blocked', opaque: 'opaque' });
    // Of another site: chromium may keep a public page from loopback altogether; it reads no answer either way.
    await page.goto('http://evil.test/');
    const fromEvil = await decodeFrom(page, codecUrl, payload);
    t.true(
      Object.values(fromEvil).every((answer) => answer === 'blocked' || answer === 'opaque'),
      JSON.stringify(fromEvil),
    );
  } finally {
    await local.close();
  }
  t.false(
    seen.some((answer) => answer === 'POST 200'),
    `no decode answered: ${seen.join(', ')}`,
  );
  t.true(
    seen.some((answer) => answer === 'POST 401'),
    `the simple requests reached it and were refused: ${seen.join(', ')}`,
  );

  // Outside a browser: the cookie from the UI's origin decodes (redacted); anything else is refused.
  const cookie = (await context.cookies(state.http.url)).map((c) => `${c.name}=${c.value}`).join('; ');
  const decode = (headers: Record<string, string>) =>
    api(state, '/codec/default/decode', { method: 'POST', body: JSON.stringify({ payloads: [payload] }), headers });
  const fromUi = await decode({ cookie, origin: state.temporal.uiUrl });
  t.is(fromUi.status, 200);
  const [decoded] = json<{ payloads: Array<{ data: string }> }>(fromUi).payloads;
  t.deepEqual(JSON.parse(Buffer.from(decoded.data, 'base64').toString('utf8')), {
    productName: 'Edge',
    vendorConfig: { adminPassword: '[redacted]' },
  });
  t.is((await decode({ cookie, origin: 'http://evil.test' })).status, 401, 'the cookie, from another origin');
  t.is((await decode({ cookie })).status, 401, 'the cookie, with no origin');
  t.is((await decode({ origin: state.temporal.uiUrl })).status, 401, "the UI's origin, forged, without the cookie");
  t.is((await api(state, '/api/v1/me', { headers: { cookie, origin: state.temporal.uiUrl } })).status, 401);

  // The Web UI answers by the names dev serves it as only (a page of another site rebinding its name gets nothing).
  const rebound = await new Promise<number>((resolve, reject) => {
    const { port } = new URL(state.temporal.uiUrl);
    httpRequest({ host: '127.0.0.1', port, path: '/api/v1/settings', headers: { host: `evil.test:${port}` } }, (r) =>
      resolve(r.resume().statusCode!),
    )
      .on('error', reject)
      .end();
  });
  t.is(rebound, 421);
  await context.close();
});
