/**
 * Ops watching an order in the real Temporal Web UI (the one `temporal server start-dev` serves, under
 * `mve-orders dev`), in Debian's chromium: the order found by its TicketId search attribute, its
 * history's payloads decoded through the API's codec server — the request readable, its secrets redacted — once the
 * browser is signed in to the console as ops and the UI sends the browser's credentials; refused before, and for an
 * approver. The codec server takes the console's cookie only from the Web UI's origin, and only for itself.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import anyTest, { type TestFn } from 'ava';
import type { Browser, Page } from 'playwright-core';
import { resolveKeyring } from '../../codec/index.js';
import type { ApiOrder, SubmitResult } from '../../client/http-client/index.js';
import { encryptedJson } from '../helpers/codec-json.js';
import { json } from '../helpers/json.js';
import { sydneyRequest } from '../helpers/orders.js';
import { spawnCli, type CliChild } from '../dev/child.js';
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
  if (t.context.root) await rm(t.context.root, { recursive: true, force: true });
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

/** The first event of the order's history (its start, with the request), expanded: its text as the UI shows it. */
async function startedEvent(page: Page, historyUrl: string): Promise<string> {
  await page.goto(historyUrl);
  const first = page.getByTestId('event-summary-row').first();
  await first.waitFor();
  await first.click();
  const details = page.getByTestId('event-summary-table');
  await details.getByText('Original Execution Run ID').waitFor();
  // Decoding is asynchronous: wait for it to have answered, either way.
  await page
    .locator('[data-testid="data-encoder-status-error"], [data-testid="data-encoder-status-success"]')
    .waitFor();
  await page.waitForLoadState('networkidle');
  return details.innerText();
}

test('ops find an order by TicketId in the real Web UI and read its history decoded, secrets redacted', async (t) => {
  const { state, browser } = t.context;
  const submitted = await api(state, '/api/v1/orders', {
    method: 'POST',
    as: 'ticket-bot',
    body: JSON.stringify(sydneyRequest(TICKET, { size: 'MVE 8/32' })),
  });
  t.is(submitted.status, 201, JSON.stringify(submitted.body));
  let order: ApiOrder | undefined = json<SubmitResult>(submitted).order;
  const { orderId } = order;
  // Bought, then followed until the simulator reports it LIVE.
  for (let i = 0; i < 300 && order?.state !== 'LIVE'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    order = json<ApiOrder | undefined>(await api(state, `/api/v1/orders/${orderId}`, { as: 'olga' }));
  }
  t.is(order?.state, 'LIVE', 'auto-approved below the staging line, bought, and LIVE');

  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();
  const codecAnswers: number[] = [];
  page.on('response', (response) => {
    if (response.url().startsWith(`${state.http.url}/codec/`) && response.request().method() === 'POST')
      codecAnswers.push(response.status());
  });
  const answeredSince = (from: number) => [...new Set(codecAnswers.slice(from))];

  // Found by its search attribute, as ops search the UI.
  await page.goto(
    `${state.temporal.uiUrl}/namespaces/${state.temporal.namespace}/workflows?query=${encodeURIComponent(`TicketId="${TICKET}"`)}`,
  );
  await page
    .getByRole('link', { name: `mve-order-${orderId}` })
    .first()
    .click();
  await page.getByTestId('history-tab').click();
  await page.getByRole('button', { name: 'Descending' }).click(); // oldest first: the start on top
  await page.waitForURL(/\/history\?sort=ascending/);
  const historyUrl = page.url();

  // Nobody signed in: the codec server refuses, and the UI shows ciphertext only.
  let seen = codecAnswers.length;
  let text = await startedEvent(page, historyUrl);
  t.deepEqual(answeredSince(seen), [401]);
  t.notRegex(text, /"ticketId"/);

  // The UI set to send the browser's credentials to the API's codec server, as docs/running.md says.
  await page.getByTestId('data-encoder-status-error').click();
  await page.getByTestId('use-local-endpoint-input').check({ force: true });
  await page.locator('#data-encoder-endpoint-input').fill(`${state.http.url}/codec`);
  await page.getByTestId('data-encoder-include-credentials').click();
  await page.getByRole('button', { name: 'Apply' }).click();

  // Still nobody signed in, then an approver: refused (no role to read payloads), ciphertext still.
  seen = codecAnswers.length;
  text = await startedEvent(page, historyUrl);
  t.deepEqual(answeredSince(seen), [401]);
  t.notRegex(text, /"ticketId"/);
  await signIn(page, state, 'fiona');
  seen = codecAnswers.length;
  text = await startedEvent(page, historyUrl);
  t.deepEqual(answeredSince(seen), [403]);
  t.notRegex(text, /"ticketId"/);

  // Signed in to the console as ops instead: the history reads, the request with its secrets redacted.
  await page.goto(`${state.http.url}/`);
  await page.getByTestId('sign-out').click();
  await signIn(page, state, 'olga');
  seen = codecAnswers.length;
  text = await startedEvent(page, historyUrl);
  t.deepEqual(answeredSince(seen), [200]);
  await page.getByTestId('data-encoder-status-success').waitFor();
  t.regex(text, new RegExp(`"ticketId": "${TICKET}"`));
  t.regex(text, /"productName": "Sydney FortiGate"/);
  t.regex(text, /"licenseData": "\[redacted\]"/);
  t.regex(text, /"sshPublicKey": "\[redacted\]"/);
  t.notRegex(text, LICENSE);
  t.notRegex(text, SSH_KEY);
  t.notRegex(await page.locator('body').innerText(), LICENSE);
  const shot = screenshotPath('temporal-ui-decoded-order.png');
  if (shot) {
    // the start event's request, vendorConfig in sight
    await page.getByTestId('event-summary-table').getByText('"vendorConfig"').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: shot });
  }

  // The cookie stands for ops only on the codec server, and only from the Web UI's origin; decoding redacts there too.
  const cookie = (await context.cookies(state.http.url)).map((c) => `${c.name}=${c.value}`).join('; ');
  // A payload as dev's engine writes it, with dev's keys: the codec server encrypts nothing.
  const keyring = await resolveKeyring({ env: process.env, devDataDir: join(t.context.root, 'data') });
  const payload = await encryptedJson(keyring, { productName: 'Edge', vendorConfig: { adminPassword: 'hunter2' } });
  const decode = (headers: Record<string, string>) =>
    api(state, '/codec/default/decode', { method: 'POST', body: JSON.stringify({ payloads: [payload] }), headers });
  const fromUi = await decode({ cookie, origin: state.temporal.uiUrl });
  t.is(fromUi.status, 200);
  const [decoded] = json<{ payloads: Array<{ data: string }> }>(fromUi).payloads;
  t.deepEqual(JSON.parse(Buffer.from(decoded.data, 'base64').toString('utf8')), {
    productName: 'Edge',
    vendorConfig: { adminPassword: '[redacted]' },
  });
  t.is((await decode({ cookie, origin: 'http://evil.test' })).status, 401);
  t.is((await decode({ cookie })).status, 401);
  t.is((await api(state, '/api/v1/me', { headers: { cookie, origin: state.temporal.uiUrl } })).status, 401);
  await context.close();
});
