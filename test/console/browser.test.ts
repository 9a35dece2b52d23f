/**
 * The console in a real browser (Debian's chromium, playwright-core) against the real engine and API:
 * approvers decide from their inbox, the requester sees why she cannot, a price that changed is refused in
 * the page and the new one shown, and ops resolve an uncertain buy.
 */
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import type { Page } from 'playwright-core';
import type { ApiOrder } from '../../client/http-client/index.js';
import { json } from '../helpers/json.js';
import { sydneyRequest } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import {
  screenshotPath,
  signedIn,
  signInPage,
  startConsole,
  VIEWPORTS,
  waitForApiState,
  misfits,
  attributesOf,
  type Browsing,
  type ConsoleHarness,
} from './harness.js';

const test = anyTest as TestFn<{ harness: ConsoleHarness }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.harness = await startConsole(pg, { simulatorPortal: true });
});
test.afterEach.always((t) => {
  t.context.harness?.api.sim.clearFaults();
  t.context.harness?.api.sim.setPriceFactor(1);
});
test.after.always(async (t) => {
  await t.context.harness?.stop();
});

async function submit(
  harness: ConsoleHarness,
  ticketId: string,
  size: string,
  as: 'alice' | 'ticket-bot' = 'alice',
  extra: Record<string, unknown> = {},
) {
  const response = await harness.api.call('POST', '/api/v1/orders', {
    as,
    body: sydneyRequest(ticketId, { size, productName: `${ticketId} firewall`, ...extra }),
  });
  if (response.status !== 201)
    throw new Error(`submit ${ticketId}: ${response.status} ${JSON.stringify(response.body)}`);
}

test.serial(
  'fiona signs in, finds the order in her inbox, approves it with a comment, and the page shows it bought',
  async (t) => {
    const { harness } = t.context;
    await submit(harness, 'WEB-1', 'MVE 8/32');
    await waitForApiState(harness.api, 'WEB-1', 'AWAITING_APPROVAL');
    await submit(harness, 'WEB-2', 'MVE 16/64', 'ticket-bot', { requestedBy: 'pat' });
    await waitForApiState(harness.api, 'WEB-2', 'AWAITING_APPROVAL');

    const { context, page, problems } = await signedIn(harness, 'fiona');
    try {
      await page.goto(harness.url + '/');
      const rows = page.getByTestId('inbox-row');
      await rows.first().waitFor();
      t.deepEqual(await attributesOf(rows, 'data-ticket'), ['WEB-1', 'WEB-2'], 'oldest first');
      const row = rows.filter({ hasText: 'WEB-1' });
      const rowText = await row.innerText();
      t.regex(rowText, /alice/);
      t.regex(rowText, /1,618\.20 AUD/);
      t.regex(rowText, /19,418\.40 AUD/, 'what it comes to over the term');
      t.is(await row.getByTestId('inbox-what').innerText(), 'MVE 8/32, Sydney, AU, 12 months', 'what is bought');
      t.regex(rowText, /team: 1 of 1 still needed/);
      t.regex(rowText, /left/);
      const shot = screenshotPath('inbox.png');
      if (shot) await page.screenshot({ path: shot, fullPage: true });

      await row.getByRole('link', { name: 'WEB-1' }).click();
      await page.waitForURL(/\/orders\/WEB-1\.[0-9a-f]{10}$/);
      t.is(await page.getByTestId('order-state').innerText(), 'AWAITING_APPROVAL');
      t.is(await page.getByRole('heading', { level: 1 }).innerText(), 'Order WEB-1');
      t.regex(await page.getByTestId('order-location').innerText(), /Sydney/);
      t.regex(await page.getByTestId('order-image').innerText(), /Fortinet FortiGate-VM/);
      t.is(await page.getByTestId('order-size').innerText(), 'MVE 8/32');
      t.is(await page.getByTestId('order-term').innerText(), '12 months');
      t.regex(await page.getByTestId('order-vnics').innerText(), /^2: WAN, LAN 1/);
      t.regex(await page.getByTestId('policy').innerText(), /test-1/);
      t.regex(await page.getByTestId('tier').innerText(), /team: 1 approval from finance-approver/);
      t.regex(await page.getByTestId('why').innerText(), /^1,618\.20 AUD needs the "team" tier/, 'prices read alike');
      t.is(await page.getByTestId('commitment').innerText(), '1,618.20 AUD × 12 months = 19,418.40 AUD');
      t.is(await page.getByTestId('decision-commitment').innerText(), '19,418.40 AUD');
      t.regex(await page.getByTestId('deadline').innerText(), /\(2 d 2\d h left\)/);
      const content = await page.content();
      t.false(content.includes('ssh-rsa'), 'no secret of the request reaches the page');
      t.false(content.includes('licenseData'));
      const approve = page.getByTestId('approve-button');
      t.is(await approve.innerText(), 'Approve 1,618.20 AUD a month');
      const shotOrder = screenshotPath('order.png');
      if (shotOrder) await page.screenshot({ path: shotOrder, fullPage: true });

      await page.getByTestId('decision-comment').fill('budgeted in Q3');
      await approve.click();
      await page.waitForURL(/\/orders\/WEB-1\.[0-9a-f]{10}$/);
      t.regex(
        await page.getByTestId('flash').innerText(),
        /^You approved 1,618\.20 AUD a month, the last approval needed\./,
      );
      // The page follows the order by itself, without a reload, until it is bought; the notice says so with it.
      await page.getByTestId('order-state').filter({ hasText: 'BOUGHT' }).waitFor({ timeout: 30_000 });
      await page.getByTestId('flash').filter({ hasText: 'It was bought at 1,618.20 AUD a month.' }).waitFor();
      await page.getByTestId('product-uid').waitFor({ timeout: 10_000 });
      t.is(await page.getByTestId('deadline').count(), 0, 'a bought order has no deadline counting down');
      t.notRegex(await page.locator('main').innerText(), /left\)/);
      t.regex(
        await page.getByTestId('quote-history').innerText(),
        /1,618\.20 AUD[^\n]*\n1,618\.20 AUD[^\n]*\(re-checked before buying: unchanged\)/,
        'the second quote says why it is there',
      );
      const votes = await page.getByTestId('vote-row').allInnerTexts();
      t.is(votes.length, 1);
      t.regex(votes[0], /fiona\s+approved\s+1,618\.20 AUD\s+budgeted in Q3/);
      t.is(await page.getByRole('heading', { name: 'Your decision' }).count(), 0, 'nothing left to decide');
      t.is(await page.getByTestId('cannot-decide').count(), 0);
      const records = await harness.api.records('WEB-1');
      t.like(records?.approvals, [{ approverId: 'fiona', decision: 'approve', reason: 'budgeted in Q3' }]);

      await page.goto(harness.url + '/');
      t.deepEqual(await attributesOf(page.getByTestId('inbox-row'), 'data-ticket'), ['WEB-2']);
      t.deepEqual(problems, [], 'no console error on any page');
    } finally {
      await context.close();
    }
  },
);

test.serial(
  'alice cannot approve her own order and is told why; erin has the wrong role; dave sees the inbox update live',
  async (t) => {
    const { harness } = t.context;
    await submit(harness, 'WEB-3', 'MVE 8/32');
    await waitForApiState(harness.api, 'WEB-3', 'AWAITING_APPROVAL');
    const whoDecides = 'Decided by finance-approver (tier team): 1 more approval needed.';
    for (const [user, reason, words] of [
      ['alice', 'own-order', `${whoDecides} You requested this order, so you cannot vote on it.`],
      ['alice-approver', 'own-order', `${whoDecides} You requested this order, so you cannot vote on it.`],
      ['erin', 'wrong-role', `${whoDecides} You hold none of those roles.`],
      ['olga', 'no-approver-role', whoDecides],
    ] as const) {
      const { context, page } = await signedIn(harness, user);
      try {
        await page.goto(`${harness.url}/orders/WEB-3`);
        const why = page.getByTestId('cannot-decide');
        t.is(await why.getAttribute('data-reason'), reason, user);
        t.is(await why.innerText(), words, user);
        t.is(await page.getByTestId('approve-button').count(), 0, `${user} has no approve button`);
        t.is(await page.getByRole('heading', { name: 'Your decision' }).count(), 0, `${user} has no decision section`);
      } finally {
        await context.close();
      }
    }
    // dave (finance-director) is not in the one-approver tier: WEB-3 is not in his inbox; a new two-approver order appears live.
    const { context, page } = await signedIn(harness, 'dave');
    try {
      await page.goto(harness.url + '/');
      t.is(await page.locator('[data-testid=inbox-row][data-ticket=WEB-3]').count(), 0);
      await submit(harness, 'WEB-4', 'MVE 16/64');
      await page.locator('[data-testid=inbox-row][data-ticket=WEB-4]').waitFor({ timeout: 30_000 });
      t.is(
        await page.locator('[data-testid=inbox-row][data-ticket=WEB-4]').count(),
        1,
        'the inbox showed the new order without a reload',
      );
    } finally {
      await context.close();
    }
    t.is(
      json<ApiOrder>(await harness.api.call('GET', '/api/v1/orders/WEB-3', { as: 'olga' })).approval?.votes.length,
      0,
      'nothing was voted',
    );
  },
);

test.serial(
  'a price that changed since the page loaded is refused in the page, which shows the new price',
  async (t) => {
    const { harness } = t.context;
    await submit(harness, 'WEB-5', 'MVE 8/32');
    await waitForApiState(harness.api, 'WEB-5', 'AWAITING_APPROVAL');
    // Without JavaScript the page cannot follow the order, so the form still carries the price first shown.
    const { context, page } = await signedIn(harness, 'fiona', { javaScriptEnabled: false });
    try {
      await page.goto(`${harness.url}/orders/WEB-5`);
      t.is(await page.getByTestId('approve-button').innerText(), 'Approve 1,618.20 AUD a month');

      // Meanwhile the price rises by 10 % and a new approval round starts at the new price.
      harness.api.sim.setPriceFactor(1.1);
      const first = await harness.api.call('POST', '/api/v1/orders/WEB-5/approve', {
        as: 'fiona',
        body: { monthlyRate: 1618.2, currency: 'AUD' },
      });
      t.is(first.status, 200, JSON.stringify(first.body));
      await waitFor(async () => {
        const order = json<ApiOrder>(await harness.api.call('GET', '/api/v1/orders/WEB-5', { as: 'olga' }));
        return order.state === 'AWAITING_APPROVAL' && order.quote?.monthlyRate === 1780.02 ? order : undefined;
      });

      await page.getByTestId('decision-comment').fill('ok at the old price');
      await page.getByTestId('approve-button').click();
      const error = page.getByTestId('error');
      t.is(await error.getAttribute('data-code'), 'QUOTE_NOT_CURRENT');
      t.regex(await error.innerText(), /you were shown 1,618\.20 AUD a month/);
      t.regex(await error.innerText(), /the current quote is 1,780\.02 AUD/);
      t.is(
        await page.getByTestId('approve-button').innerText(),
        'Approve 1,780.02 AUD a month',
        'the new price is shown',
      );
      t.regex(await page.getByTestId('quote').innerText(), /1,780\.02 AUD/);
      t.regex(
        await page.getByTestId('quote-history').innerText(),
        /1,618\.20 AUD[\s\S]*1,780\.02 AUD[\s\S]*\(re-checked before buying: rose 10\.0%\)/,
        'the price that rose is shown as such',
      );
      const history = json<ApiOrder>(
        await harness.api.call('GET', '/api/v1/orders/WEB-5', { as: 'olga' }),
      ).quoteHistory;
      t.deepEqual(
        history?.map((quote) => [
          quote.monthlyRate,
          typeof quote.quotedAt === 'string' && new Date(quote.quotedAt).toISOString() === quote.quotedAt,
        ]),
        [
          [1618.2, true],
          [1780.02, true],
        ],
        "the API's quote history gives its times as ISO text, as every other time",
      );
      t.is(await page.getByTestId('decision-comment').inputValue(), 'ok at the old price', 'the comment is kept');
      t.is(
        json<ApiOrder>(await harness.api.call('GET', '/api/v1/orders/WEB-5', { as: 'olga' })).approval?.votes.length,
        0,
        'the refused vote changed nothing',
      );

      await page.getByTestId('approve-button').click();
      t.regex(await page.getByTestId('flash').innerText(), /You approved 1,780\.02 AUD a month/);
      await waitForApiState(harness.api, 'WEB-5', 'BOUGHT');
      await page.reload();
      t.is(await page.getByTestId('order-state').innerText(), 'BOUGHT');
    } finally {
      await context.close();
    }
  },
);

test.serial('with JavaScript the decision follows a new price before it is sent', async (t) => {
  const { harness } = t.context;
  await submit(harness, 'WEB-6', 'MVE 8/32');
  await waitForApiState(harness.api, 'WEB-6', 'AWAITING_APPROVAL');
  const { context, page } = await signedIn(harness, 'fiona');
  try {
    await page.goto(`${harness.url}/orders/WEB-6`);
    t.is(await page.getByTestId('approve-button').innerText(), 'Approve 1,618.20 AUD a month');
    harness.api.sim.setPriceFactor(1.1);
    t.is(
      (
        await harness.api.call('POST', '/api/v1/orders/WEB-6/approve', {
          as: 'fiona',
          body: { monthlyRate: 1618.2, currency: 'AUD' },
        })
      ).status,
      200,
    );
    await page
      .getByTestId('approve-button')
      .filter({ hasText: 'Approve 1,780.02 AUD a month' })
      .waitFor({ timeout: 30_000 });
    await page.getByTestId('decision-comment').fill('too dear after the rise');
    await page.getByTestId('reject-button').click();
    await page.waitForURL(/\/orders\/WEB-6\.[0-9a-f]{10}$/);
    t.is(
      await page.getByTestId('flash').innerText(),
      'You rejected the order at 1,780.02 AUD a month. It is REJECTED: nothing is bought.',
    );
    await page.getByTestId('order-state').filter({ hasText: 'REJECTED' }).waitFor();
  } finally {
    await context.close();
  }
});

test.serial('ops resolve an uncertain buy from the ops view', async (t) => {
  const { harness } = t.context;
  const { api } = harness;
  api.sim.injectFault({ kind: 'apply-then-drop', endpoint: 'buy' });
  await submit(harness, 'WEB-7', 'MVE 4/16');
  await waitForApiState(api, 'WEB-7', 'BUY_UNCERTAIN');
  const created = api.sim.state().products.filter((product) => product.serviceName?.startsWith('WEB-7 firewall ['));
  t.is(created.length, 1);
  const uid = created[0].technicalServiceUid;

  // Approvers do not get the ops view.
  const fiona = await signedIn(harness, 'fiona');
  await fiona.page.goto(`${harness.url}/ops`);
  t.is(await fiona.page.getByTestId('forbidden').count(), 1);
  await fiona.page.goto(`${harness.url}/orders/WEB-7`);
  t.is(await fiona.page.getByTestId('resolve-uid').count(), 0, 'no resolve form for an approver');
  await fiona.context.close();

  const { context, page } = await signedIn(harness, 'olga');
  try {
    await page.goto(`${harness.url}/ops`);
    const item = page.locator('[data-testid=attention-uncertain][data-ticket=WEB-7]');
    t.regex(await item.innerText(), /uncertain for/);
    // In dev the provider is the simulator: "the provider's portal" links to its state, which lists the product.
    const portal = `${api.sim.url}/_sim/state`;
    t.regex(await item.innerText(), /Check the provider's portal \(here: the API simulator's \/_sim\/state/);
    t.is(await item.getByTestId('provider-portal').getAttribute('href'), portal);
    const state = (await (await fetch(portal)).json()) as { products: Array<{ technicalServiceUid: string }> };
    t.true(
      state.products.some((product) => product.technicalServiceUid === uid),
      'the portal lists the product',
    );
    t.true((await page.getByTestId('ops-row').count()) >= 6);
    const shot = screenshotPath('ops.png');
    if (shot) await page.screenshot({ path: shot, fullPage: true });

    // Filters: by state, and by ticket.
    await page.getByTestId('filter-status').selectOption('BOUGHT');
    await page.getByTestId('filter-button').click();
    await page.waitForURL(/status=BOUGHT/);
    const bought = await attributesOf(page.getByTestId('ops-row'), 'data-ticket');
    t.true(bought.includes('WEB-1') && bought.includes('WEB-5') && !bought.includes('WEB-7'), bought.join(','));
    await page.goto(`${harness.url}/ops?ticket=WEB-3`);
    t.deepEqual(await attributesOf(page.getByTestId('ops-row'), 'data-ticket'), ['WEB-3']);
    await page.goto(`${harness.url}/ops?requester=pat`);
    t.deepEqual(await attributesOf(page.getByTestId('ops-row'), 'data-ticket'), ['WEB-2']);

    await page.goto(`${harness.url}/ops`);
    await item.getByRole('link', { name: 'WEB-7' }).click();
    await page.waitForURL(/\/orders\/WEB-7\.[0-9a-f]{10}$/);
    t.is(await page.getByTestId('order-state').innerText(), 'BUY_UNCERTAIN');
    t.regex(await page.getByTestId('uncertain-note').innerText(), /uncertain for/);
    // What ops look for in the portal is the very name the product was bought under.
    t.is(await page.getByTestId('bought-under-name').innerText(), created[0].serviceName);
    t.regex(await page.getByTestId('uncertain-note').innerText(), /MVE \d+\/\d+, 12 months, sent /);
    t.is(await page.getByTestId('uncertain-note').getByTestId('provider-portal').getAttribute('href'), portal);
    t.is(await page.getByTestId('cancel-form').count(), 0, 'an uncertain buy cannot be cancelled');
    const shotUncertain = screenshotPath('order-buy-uncertain.png');
    if (shotUncertain) await page.screenshot({ path: shotUncertain, fullPage: true });

    // A wrong UID is refused by the API, and the page says so.
    await page.getByTestId('resolve-uid').fill('not-a-uid');
    await page.getByTestId('resolve-created-button').click();
    t.is(await page.getByTestId('error').getAttribute('data-code'), 'INVALID_INPUT');
    t.regex(await page.getByTestId('error').innerText(), /technicalServiceUid/);
    t.is(await page.getByTestId('order-state').innerText(), 'BUY_UNCERTAIN');

    await page.getByTestId('resolve-uid').fill(uid);
    await page.getByTestId('resolve-created-note').fill('found in the portal');
    await page.getByTestId('resolve-created-button').click();
    await page.waitForURL(/\/orders\/WEB-7\.[0-9a-f]{10}$/);
    t.regex(await page.getByTestId('flash').innerText(), /Recorded as created/);
    await page.getByTestId('order-state').filter({ hasText: 'BOUGHT' }).waitFor({ timeout: 30_000 });
    t.regex(await page.getByTestId('product-uid').innerText(), new RegExp(uid));
    t.is(
      api.sim.state().products.filter((product) => product.serviceName?.startsWith('WEB-7 firewall [')).length,
      1,
      'nothing bought again',
    );
    const records = await api.records('WEB-7');
    t.like(records?.buyAttempts, [{ attempt: 1, outcome: 'created', technicalServiceUid: uid, resolvedBy: 'olga' }]);
  } finally {
    await context.close();
  }
});

test.serial(
  'ops cancel a waiting order with a reason; the ops view lists approvals close to their deadline',
  async (t) => {
    const { harness } = t.context;
    const { context, page } = await signedIn(harness, 'olga');
    try {
      // WEB-2 and WEB-3 wait with a 72 h deadline: not close yet. 50 h later (the console's clock moved on) they are.
      await page.goto(`${harness.url}/ops`);
      t.is(await page.locator('[data-testid=attention-expiring][data-ticket=WEB-3]').count(), 0);
      harness.clock.offsetMs = 50 * 3600_000;
      try {
        await page.goto(`${harness.url}/ops`);
        const expiring = page.locator('[data-testid=attention-expiring][data-ticket=WEB-3]');
        t.regex(await expiring.innerText(), /1,618\.20 AUD, tier team, 1 still needed\): \d+ h( \d+ min)? left/);
        t.is(await page.locator('[data-testid=attention-expiring][data-ticket=WEB-2]').count(), 1);
        const shot = screenshotPath('ops-attention.png');
        if (shot) await page.screenshot({ path: shot, fullPage: true });
      } finally {
        harness.clock.offsetMs = 0;
      }

      await page.goto(`${harness.url}/orders/WEB-3`);
      await page.getByTestId('cancel-reason').fill('duplicate of WEB-1');
      await page.getByTestId('cancel-button').click();
      await page.waitForURL(/\/orders\/WEB-3\.[0-9a-f]{10}$/);
      await page.getByTestId('order-state').filter({ hasText: 'CANCELLED' }).waitFor({ timeout: 30_000 });
      const order = await waitForApiState(harness.api, 'WEB-3', 'CANCELLED');
      t.like(order.timeline?.at(-1), { state: 'CANCELLED', actor: 'olga', reason: 'duplicate of WEB-1' });
    } finally {
      await context.close();
    }
  },
);

test.serial('a cancel sent after the order was bought is refused, and the page names the next step', async (t) => {
  const { harness } = t.context;
  await submit(harness, 'WEB-9', 'MVE 8/32');
  await waitForApiState(harness.api, 'WEB-9', 'AWAITING_APPROVAL');
  // Without JavaScript the page keeps the cancel form it was loaded with while the order is approved and bought.
  const { context, page } = await signedIn(harness, 'alice', { javaScriptEnabled: false });
  try {
    await page.goto(`${harness.url}/orders/WEB-9`);
    await page.getByTestId('cancel-reason').fill('not needed after all');
    const approved = await harness.api.call('POST', '/api/v1/orders/WEB-9/approve', {
      as: 'fiona',
      body: { monthlyRate: 1618.2, currency: 'AUD' },
    });
    t.is(approved.status, 200, JSON.stringify(approved.body));
    await waitForApiState(harness.api, 'WEB-9', 'BOUGHT');
    await page.getByTestId('cancel-button').click();
    const error = page.getByTestId('error');
    t.is(await error.getAttribute('data-code'), 'NOT_CANCELLABLE');
    const uid = harness.api.sim
      .state()
      .products.find((product) => product.serviceName?.startsWith('WEB-9 firewall ['))?.technicalServiceUid;
    t.truthy(uid);
    t.regex(
      await error.innerText(),
      new RegExp(
        `a bought order cannot be cancelled\\. To stop it and what it costs, decommission product ${uid} with the provider`,
      ),
    );
    t.is(await page.getByTestId('order-state').innerText(), 'BOUGHT');
  } finally {
    await context.close();
  }
});

/**
 * Orders as long as real ones get: a ticket system's ticket ids, a requester's full name, a product name, and an order
 * the API refused at validation (its error a long sentence with the API's trace id). Short names fit anywhere: these
 * are what a page has to fit.
 */
const LONG = {
  waiting: 'SNOW-CHG0045821-NETWORK-EDGE-SYD-PRIMARY-FIREWALL',
  failed: 'SNOW-CHG0045822-NETWORK-EDGE-MEL-SECONDARY-FIREWALL',
  requester: 'alexandra.konstantinopoulou',
  productName: 'syd-edge-fw-primary-production-customer-acme-holdings-vrf-blue',
} as const;

/** Every console page in each state, as each kind of person sees it; `user` undefined: not signed in. */
const PAGES: ReadonlyArray<{ name: string; user?: string; path: string }> = [
  { name: 'sign-in', path: '/sign-in' },
  { name: 'inbox', user: 'fiona', path: '/' },
  { name: 'inbox-director', user: 'dave', path: '/' },
  { name: 'inbox-other-approver', user: 'erin', path: '/' },
  { name: 'order-approver', user: 'fiona', path: `/orders/${LONG.waiting}` },
  { name: 'order-bought', user: 'fiona', path: '/orders/WEB-1' },
  { name: 'orders-requester', user: 'alice', path: '/' },
  { name: 'order-requester', user: 'alice', path: '/orders/WEB-4' },
  { name: 'order-requester-failed', user: 'alice', path: `/orders/${LONG.failed}` },
  { name: 'orders-ticket-system', user: 'ticket-bot', path: '/' },
  { name: 'order-ticket-system', user: 'ticket-bot', path: `/orders/${LONG.waiting}` },
  { name: 'ops', user: 'olga', path: '/ops' },
  { name: 'order-ops-uncertain', user: 'olga', path: '/orders/WEB-8' },
  { name: 'order-ops-waiting', user: 'olga', path: `/orders/${LONG.waiting}` },
  { name: 'order-ops-requoted', user: 'olga', path: '/orders/WEB-5' },
  { name: 'order-ops-failed', user: 'olga', path: `/orders/${LONG.failed}` },
  { name: 'order-ops-bought', user: 'olga', path: '/orders/WEB-1' },
];

/** The orders the pages show besides those of the tests before: an uncertain buy, and the long ones. */
async function fillPages(harness: ConsoleHarness): Promise<void> {
  const { api } = harness;
  // An uncertain buy: its long last error is what the lists have to fit.
  api.sim.injectFault({ kind: 'apply-then-drop', endpoint: 'buy' });
  await submit(harness, 'WEB-8', 'MVE 4/16');
  await waitForApiState(api, 'WEB-8', 'BUY_UNCERTAIN');
  api.sim.clearFaults();
  // Two approvers, for a requester the ticket system names (one the directory knows, as a ticket system's must be).
  await api.repository.addApprover({ id: LONG.requester, displayName: 'Alexandra Konstantinopoulou', roles: [] });
  await submit(harness, LONG.waiting, 'MVE 16/64', 'ticket-bot', {
    requestedBy: LONG.requester,
    productName: LONG.productName,
  });
  // A location whose zones offer fewer than 32 vCPU: only the API knows, and refuses the order at validation.
  const locations = await api.apiClient.listLocations();
  const small = locations.find((location) => {
    const zones = Object.values(location.diversityZones ?? {}).filter((zone) => zone?.mveAvailable);
    return (
      location.status === 'Active' &&
      zones.length > 0 &&
      zones.every((zone) => typeof zone?.mveMaxCpuCoreCount === 'number' && zone.mveMaxCpuCoreCount < 32)
    );
  });
  if (!small) throw new Error('the simulator catalog has no location limited below 32 vCPU');
  await submit(harness, LONG.failed, 'MVE 32/128', 'alice', { location: { id: small.id } });
  await waitForApiState(api, LONG.waiting, 'AWAITING_APPROVAL');
  await waitForApiState(api, LONG.failed, 'FAILED');
}

let filled: Promise<void> | undefined;
for (const viewport of Object.keys(VIEWPORTS) as Array<keyof typeof VIEWPORTS>) {
  const { width, height } = VIEWPORTS[viewport];
  test.serial(`every page fits ${width}×${height} for every role, and reports no console error`, async (t) => {
    t.timeout(10 * 60_000);
    const { harness } = t.context;
    filled ??= fillPages(harness);
    await filled;
    const browsers = new Map<string | undefined, Browsing>();
    try {
      for (const { name, user, path } of PAGES) {
        let browsing = browsers.get(user);
        if (!browsing) {
          browsing = user ? await signedIn(harness, user, { viewport }) : await signInPage(harness, { viewport });
          browsers.set(user, browsing);
        }
        const { page, problems } = browsing;
        const where = `${name} (${user ?? 'signed out'}) at ${width}×${height}`;
        const response = await page.goto(harness.url + path);
        t.is(response?.status(), 200, where);
        // One live refresh, so what it swaps in is checked too.
        if (await page.locator('body[data-live-src]').count()) {
          await page.locator('body[data-live-updated]').waitFor({ state: 'attached', timeout: 10_000 });
        }
        t.is(await misfits(page), '', `${where}: everything fits`);
        t.deepEqual(problems.splice(0), [], `${where}: no console error`);
        const shot = screenshotPath(`pages/${name}-${viewport}.png`);
        if (shot) await page.screenshot({ path: shot, fullPage: true });
        const history = screenshotPath(`pages/${name}-history-${viewport}.png`);
        if (history && (await page.getByTestId('workflow-history').count())) {
          await page.getByTestId('workflow-history').locator('summary').first().click();
          await page.screenshot({ path: history, fullPage: true });
        }
        if (viewport === 'desktop') await lookCloser(t, name, page);
      }
    } finally {
      for (const { context } of browsers.values()) await context.close();
    }
  });
}

/** What the long orders look like on a laptop: the lists cut a long error short and name a trace id once. */
async function lookCloser(t: ExecutionContext<{ harness: ConsoleHarness }>, name: string, page: Page) {
  if (name === 'ops') {
    const failed = page.locator(`[data-testid=attention-failed][data-ticket="${LONG.failed}"]`);
    const trace = await failed.getByTestId('attention-failed-trace').innerText();
    t.regex(trace, /\S{6,}/, 'the failure has its trace id');
    t.is((await failed.innerText()).split(trace).length - 1, 1, 'the trace id is named once');
    const row = page.locator('tbody', { has: page.locator(`[data-testid=ops-row][data-ticket="${LONG.failed}"]`) });
    const error = row.getByTestId('listed-error');
    t.regex(await error.innerText(), /^Last error: POST \/v\d\/networkdesign\/validate .*needs 32 vCPU/s);
    t.regex((await error.getAttribute('title')) ?? '', /needs 32 vCPU/, 'the whole error on hover');
    const box = await row.boundingBox();
    t.true(box !== null && box.height <= 140, `the failed order takes ${box?.height} px of the list, not 300`);
  }
  if (name === 'order-ops-failed') {
    const error = await page.getByTestId('last-error').innerText();
    const trace = await page.getByTestId('last-error-trace').innerText();
    t.is(error.split(trace).length - 1, 1, 'the order page names the trace id once');
  }
}
