/**
 * The commitments page in a real browser (Debian's chromium, playwright-core) against the real API, at a laptop's and
 * a phone's width: the month's figures per team and currency against budget, a bar over budget said in words, the
 * orders behind the figures and the renewals; a requester sees their own team's only, a ticket system none.
 */
import anyTest, { type TestFn } from 'ava';
import type { Page } from 'playwright-core';
import { seedCommitmentsView, TEAMED_POLICIES } from '../helpers/commitments-view.js';
import { json } from '../helpers/json.js';
import { usePostgres } from '../helpers/postgres.js';
import {
  attributesOf,
  misfits,
  screenshotPath,
  signedIn,
  startConsole,
  VIEWPORTS,
  type ConsoleHarness,
} from './harness.js';

interface Answer {
  teams: Array<{ team: string | null; currency: string; approvedThisMonth: string }>;
  orders: Array<{ ticketId: string }>;
}

const test = anyTest as TestFn<{ harness: ConsoleHarness }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.harness = await startConsole(pg, { worker: false, engine: { policies: TEAMED_POLICIES } });
  await seedCommitmentsView(t.context.harness.api);
});
test.after.always(async (t) => {
  await t.context.harness?.stop();
});

const JANUARY = '/commitments?month=2026-01';

/** The page, loaded and refreshed once by its live script (what the refresh swaps in must fit too). */
async function open(harness: ConsoleHarness, page: Page, path: string): Promise<number | undefined> {
  const response = await page.goto(harness.url + path);
  await page.locator('body[data-live-updated]').waitFor({ state: 'attached', timeout: 10_000 });
  return response?.status();
}

for (const viewport of Object.keys(VIEWPORTS) as Array<keyof typeof VIEWPORTS>) {
  const { width, height } = VIEWPORTS[viewport];
  test.serial(
    `finance sees January against budget, a bar over it, and the renewals at ${width}×${height}`,
    async (t) => {
      const { harness } = t.context;
      const { context, page, problems } = await signedIn(harness, 'fiona', { viewport });
      try {
        t.is(await open(harness, page, JANUARY), 200);
        t.is(await page.locator('h1').innerText(), 'Commitments · January 2026');
        t.is(await page.locator('nav[aria-label=Main] a[aria-current=page]').innerText(), 'Commitments');

        const network = page.locator('[data-testid=team-figures][data-team=network][data-currency=AUD]');
        const runRate = network.locator('[data-testid=bar][data-kind=run-rate]');
        t.is(await runRate.getAttribute('data-over'), 'true');
        t.regex(
          await runRate.innerText(),
          /Run-rate 1738\.22 AUD \(\+ 3336\.41 AUD approved, not bought\) of cap 1618\.23 AUD · Over cap by 3456\.4 AUD/,
        );
        t.is(await runRate.locator('svg[role=img]').count(), 1, 'drawn as a bar');
        // Approved this month is what the API says, shown as it writes it.
        const api = json<Answer>(await harness.api.call('GET', '/api/v1/commitments?month=2026-01', { as: 'fiona' }));
        const approved = api.teams.find((figures) => figures.team === 'network' && figures.currency === 'AUD')!;
        t.regex(
          await network.locator('[data-kind=approved]').innerText(),
          new RegExp(
            `Approved this month ${approved.approvedThisMonth.replace('.', '\\.')} AUD of budget 3236\\.41 AUD`,
          ),
        );
        const secOps = page.locator('[data-testid=team-figures][data-team=sec-ops][data-currency=USD]');
        t.regex(await secOps.locator('[data-kind=run-rate]').innerText(), /Run-rate 325\.5 USD · no cap set/);
        t.is(await secOps.locator('[data-kind=approved]').getAttribute('data-over'), 'false');
        t.regex(await secOps.locator('[data-kind=approved]').innerText(), /0 USD of budget 500 USD · 500 USD left/);

        t.deepEqual(
          await attributesOf(page.getByTestId('commitment-order'), 'data-ticket'),
          api.orders.map((order) => order.ticketId),
        );
        t.deepEqual(await attributesOf(page.getByTestId('renewal'), 'data-ticket'), ['R2', 'R3', 'R1']);
        t.regex(
          await page.locator('[data-testid=renewal][data-ticket=R3]').innerText(),
          /20 AUD[\s\S]*6 months[\s\S]*10/,
        );

        t.is(await misfits(page), '', 'everything fits');
        t.deepEqual(problems.splice(0), [], 'no console error');
        const shot = screenshotPath(`commitments-${viewport}.png`);
        if (shot) await page.screenshot({ path: shot, fullPage: true });
      } finally {
        await context.close();
      }
    },
  );
}

test.serial(
  'the month picker and the filters narrow the page, the CSV link follows them, a bad filter is refused',
  async (t) => {
    const { harness } = t.context;
    const { context, page } = await signedIn(harness, 'olga');
    try {
      await open(harness, page, JANUARY);
      await page.getByTestId('previous-month').click();
      await page.locator('h1', { hasText: 'December 2025' }).waitFor();
      await page.getByTestId('next-month').click();
      await page.locator('h1', { hasText: 'January 2026' }).waitFor();

      await page.getByTestId('filter-currency').fill('usd');
      await page.getByTestId('filter-button').click();
      await page.waitForURL(/currency=usd/);
      t.deepEqual(await attributesOf(page.getByTestId('team-figures'), 'data-team'), ['network', 'sec-ops']);
      t.deepEqual(await attributesOf(page.getByTestId('team-figures'), 'data-currency'), ['USD', 'USD']);
      t.deepEqual(await attributesOf(page.getByTestId('renewal'), 'data-ticket'), ['R2']);

      // The CSV link gives the API's own CSV of the same filters, every row at once.
      const href = (await page.getByTestId('csv-link').getAttribute('href'))!;
      const download = await page.request.get(harness.url + href);
      t.is(download.status(), 200);
      t.is(download.headers()['content-type'], 'text/csv; charset=utf-8');
      t.is(download.headers()['content-disposition'], 'attachment; filename="commitments-production-2026-01.csv"');
      const fromApi = await fetch(`${harness.api.url}/api/v1/commitments?month=2026-01&currency=USD&format=csv`, {
        headers: { authorization: `Bearer ${harness.api.tokens.olga}` },
      });
      t.is(await download.text(), await fromApi.text());
      t.regex(await download.text(), /^environment,month,team,team_name,currency,order_id,ticket_id,/);

      const refused = await page.goto(`${harness.url}/commitments?month=2026-13`);
      t.is(refused?.status(), 400);
      t.regex(await page.getByTestId('error').innerText(), /querystring\.month: must be a month as YYYY-MM/);
    } finally {
      await context.close();
    }
  },
);

test.serial("a requester sees their own team's commitments only; a ticket system is refused", async (t) => {
  const { harness } = t.context;
  const alice = await signedIn(harness, 'alice', { viewport: 'phone' });
  try {
    t.is(await open(harness, alice.page, JANUARY), 200);
    t.deepEqual(await attributesOf(alice.page.getByTestId('team-figures'), 'data-team'), ['network', 'network']);
    t.is(await alice.page.getByTestId('filter-team').count(), 0, 'no other team to choose');
    t.deepEqual(await attributesOf(alice.page.getByTestId('renewal'), 'data-ticket'), ['R3', 'R1']);
    t.is(await misfits(alice.page), '');
  } finally {
    await alice.context.close();
  }
  const bot = await signedIn(harness, 'ticket-bot');
  try {
    t.is(await bot.page.locator('nav[aria-label=Main] a', { hasText: 'Commitments' }).count(), 0, 'not offered');
    const response = await bot.page.goto(harness.url + JANUARY);
    t.is(response?.status(), 403);
    t.regex(
      await bot.page.getByTestId('forbidden').innerText(),
      /You may not read these commitments: reading commitments needs a role/,
    );
  } finally {
    await bot.context.close();
  }
});
